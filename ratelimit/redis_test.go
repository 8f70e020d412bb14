package ratelimit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"mediagw/internal/servicetest"
	"mediagw/redisconn"
)

// redisURL is REDIS_URL; without it the test skips, or fails in CI.
func redisURL(t testing.TB) string { return servicetest.RedisURL(t) }

// testTimeout replaces the production timeouts where a test needs Redis to answer: the machine
// running the tests may be loaded, and a late answer is not what these tests are about.
const testTimeout = 5 * time.Second

// newRedisClient connects to raw and waits a bounded time for Redis to answer.
func newRedisClient(t testing.TB, raw string) redis.UniversalClient {
	t.Helper()
	cfg, err := redisconn.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case cfg.Single != nil:
		cfg.Single.ReadTimeout, cfg.Single.WriteTimeout, cfg.Single.PoolTimeout = testTimeout, testTimeout, testTimeout
	case cfg.Cluster != nil:
		cfg.Cluster.ReadTimeout, cfg.Cluster.WriteTimeout, cfg.Cluster.PoolTimeout = testTimeout, testTimeout, testTimeout
	default:
		cfg.Sentinel.ReadTimeout, cfg.Sentinel.WriteTimeout, cfg.Sentinel.PoolTimeout = testTimeout, testTimeout, testTimeout
	}
	c := cfg.NewClient()
	t.Cleanup(func() { c.Close() })
	servicetest.WaitForRedis(t, c)
	return c
}

// newTestRedis is a Redis limiter that waits as long as the tests' clients.
func newTestRedis(t testing.TB, c redis.UniversalClient, prefix string) *Redis {
	t.Helper()
	r, err := NewRedis(c, contract, WithPrefix(prefix), WithTimeout(testTimeout))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// uniquePrefix keeps each test's keys apart from every other run's.
func uniquePrefix(t testing.TB) string {
	return fmt.Sprintf("mediagw-test:%s:%s:", t.Name(), rand.Text()[:10])
}

// shiftTAT moves a visitor's stored TAT back by d: to the script that is d passing, since it
// only ever compares the TAT with Redis's clock.
func shiftTAT(t *testing.T, c redis.UniversalClient, key string, d time.Duration) {
	t.Helper()
	if d == 0 {
		return
	}
	ctx := t.Context()
	s, err := c.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	tat, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetArgs(ctx, key, strconv.FormatFloat(tat-d.Seconds(), 'f', -1, 64), redis.SetArgs{KeepTTL: true}).Err(); err != nil {
		t.Fatal(err)
	}
}

// near allows for the real time that passes between Redis calls: counts must match exactly,
// durations to well under the 5s a request is worth.
func near(t *testing.T, got, want Decision) {
	t.Helper()
	const tolerance = time.Second
	if got.Allowed != want.Allowed || got.Limit != want.Limit || got.Remaining != want.Remaining ||
		(got.RetryAfter-want.RetryAfter).Abs() > tolerance || (got.ResetAfter-want.ResetAfter).Abs() > tolerance {
		t.Errorf("got %+v, want %+v (durations within %s)", got, want, tolerance)
	}
}

// TestRedisMatchesMemory plays the contract table against Redis, and each Redis decision against
// Memory fed the same sequence.
func TestRedisMatchesMemory(t *testing.T) {
	c := newRedisClient(t, redisURL(t))
	prefix := uniquePrefix(t)
	r := newTestRedis(t, c, prefix)
	const visitor = "203.0.113.9"
	t.Run("table", func(t *testing.T) {
		runSteps(t, r, visitor, func(d time.Duration) { shiftTAT(t, c, "rate:"+prefix+visitor, d) }, contractSteps, near)
	})

	// Same sequence, request by request, against both limiters.
	clk := newClock()
	m := NewMemory(contract, clk.Now)
	const other = "203.0.113.10"
	for _, st := range contractSteps {
		clk.Advance(st.wait)
		shiftTAT(t, c, "rate:"+prefix+other, st.wait)
		for i := range st.n {
			want, _ := m.Allow(t.Context(), other)
			got, err := r.Allow(t.Context(), other)
			if err != nil {
				t.Fatal(err)
			}
			if i == st.n-1 {
				t.Run("same/"+st.name, func(t *testing.T) { near(t, got, want) })
			} else if got.Allowed != want.Allowed || got.Remaining != want.Remaining {
				t.Fatalf("%s, request %d: Redis %+v, Memory %+v", st.name, i+1, got, want)
			}
		}
	}
}

// TestRedisReplicasShareOneLimit is two replicas, each with its own client, answering one
// visitor in turn and concurrently: 120 in total, not 120 each.
func TestRedisReplicasShareOneLimit(t *testing.T) {
	replicasShareOneLimit(t, redisURL(t))
}

// replicasShareOneLimit runs TestRedisReplicasShareOneLimit on the Redis at raw, in any of its
// forms, and returns the prefix of the keys it wrote.
func replicasShareOneLimit(t *testing.T, raw string) string {
	t.Helper()
	prefix := uniquePrefix(t)
	var replicas [2]*Redis
	for i := range replicas {
		replicas[i] = newTestRedis(t, newRedisClient(t, raw), prefix)
	}

	for i := range 120 {
		d, err := replicas[i%2].Allow(t.Context(), "in-turn")
		if err != nil || !d.Allowed || d.Remaining != 119-i {
			t.Fatalf("request %d: %+v, %v; want allowed with %d remaining", i+1, d, err, 119-i)
		}
	}
	for i, r := range replicas {
		d, err := r.Allow(t.Context(), "in-turn")
		if err != nil || d.Allowed || d.RetryAfter <= 4*time.Second || d.RetryAfter > 5*time.Second {
			t.Fatalf("replica %d, 121st: %+v, %v; want limited, retry after about 5s", i, d, err)
		}
	}
	if d, _ := replicas[1].Allow(t.Context(), "someone-else"); !d.Allowed || d.Remaining != 119 {
		t.Fatalf("second visitor: %+v, want allowed with 119 remaining", d)
	}

	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 25 {
				d, err := replicas[g%2].Allow(context.Background(), "concurrent")
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 120 {
		t.Fatalf("%d of 200 concurrent requests allowed, want 120", got)
	}
	return prefix
}

func TestNewRedisRejects(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	if _, err := NewRedis(c, Policy{Limit: 0, Window: time.Minute}); !errors.Is(err, ErrInvalidPolicy) {
		t.Errorf("invalid policy: %v, want ErrInvalidPolicy", err)
	}
	if _, err := NewRedis(nil, contract); err == nil {
		t.Error("nil client accepted")
	}
	if _, err := NewRedis(c, contract, WithTimeout(0)); err == nil {
		t.Error("zero timeout accepted")
	}
}

func TestRedisUnreachableIsUnavailable(t *testing.T) {
	c, err := redisconn.Open("redis://127.0.0.1:" + freePort(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := NewRedis(c, contract)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Allow(t.Context(), "v"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Allow: got %v, want ErrUnavailable", err)
	}
	if _, err := r.Inspect(t.Context(), "v"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Inspect: got %v, want ErrUnavailable", err)
	}
}

func BenchmarkRedisAllow(b *testing.B) {
	c := newRedisClient(b, redisURL(b))
	r := newTestRedis(b, c, uniquePrefix(b))
	keys := make([]string, 1<<12)
	for i := range keys {
		keys[i] = fmt.Sprintf("198.51.%d.%d", i>>8, i&255)
	}
	var next atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := next.Add(1 << 20)
		for pb.Next() {
			i++
			if _, err := r.Allow(context.Background(), keys[i&(1<<12-1)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
