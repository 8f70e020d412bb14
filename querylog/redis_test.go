package querylog

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"mediagw/internal/servicetest"
	"mediagw/ratelimit"
)

// testTimeout replaces the client's production timeouts: the machine running the tests may be
// loaded, and a late answer is not what these tests are about.
const testTimeout = 5 * time.Second

// testClient connects to REDIS_URL (skipping without it) and removes the test's keys at the end.
func testClient(t *testing.T, prefix string) redis.UniversalClient {
	t.Helper()
	cfg, err := ratelimit.ParseRedisURL(servicetest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Single; o != nil {
		o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = testTimeout, testTimeout, testTimeout
	}
	c := cfg.NewClient()
	servicetest.WaitForRedis(t, c)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		for _, k := range testKeys(t, c, prefix) {
			c.Del(ctx, k)
		}
		c.Close()
	})
	return c
}

func testKeys(t *testing.T, c redis.UniversalClient, prefix string) []string {
	t.Helper()
	keys, err := c.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func testPrefix(t *testing.T) string {
	return fmt.Sprintf("mediagw-test:querylog:%s:%s:", t.Name(), rand.Text()[:10])
}

// clock is a time source tests move by hand.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.ns.Store(t.UnixNano())
	return c
}
func (c *clock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }
func newRecorder(t *testing.T, c redis.UniversalClient, o Options) *Recorder {
	t.Helper()
	// Flushes only when the test says: the ticker's are too far apart to run.
	o.FlushInterval = time.Hour
	o.Timeout = testTimeout
	r, err := New(c, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestSharedCountsWithinError: two replicas record one stream between them, over several buckets;
// the report lists every text with a count within its stated error of the true one, and the error
// is at most searches/k, as the README says.
func TestSharedCountsWithinError(t *testing.T) {
	tests := []struct {
		name           string
		top, distinct  int
		searches       int
		wantExactCount bool
	}{
		{"fewer texts than k: exact", 100, 40, 3000, true},
		{"more texts than k", 30, 2000, 6000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := testPrefix(t)
			c := testClient(t, prefix)
			clk := newClock(time.Now().Add(-10 * time.Second))
			o := Options{Window: 24 * time.Second, Top: tt.top, Prefix: prefix, Now: clk.now}
			replicas := []*Recorder{newRecorder(t, c, o), newRecorder(t, testClient(t, prefix), o)}
			stream, truth := zipfStream(uint64(tt.distinct), tt.distinct, tt.searches)
			zeroTruth := map[string]int64{}
			for i, text := range stream {
				// A text whose number ends in 7 finds nothing; spaces and case are normalised.
				zero := strings.HasSuffix(text, "7")
				if zero {
					zeroTruth[text]++
				}
				replicas[i%2].Record(strings.ToUpper(text)+"  ", zero)
				if i%500 == 499 { // a flush, and a new bucket, every 500 searches
					for _, r := range replicas {
						if err := r.Flush(t.Context()); err != nil {
							t.Fatal(err)
						}
					}
					clk.add(time.Second)
				}
			}
			for _, r := range replicas {
				if err := r.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Read(t.Context(), c, o, 0, tt.distinct)
			if err != nil {
				t.Fatal(err)
			}
			var zeros int64
			for _, n := range zeroTruth {
				zeros += n
			}
			if rep.Searches != int64(tt.searches) || rep.NoResults != zeros {
				t.Errorf("report counts %d searches, %d with no results; sent %d, %d", rep.Searches, rep.NoResults, tt.searches, zeros)
			}
			if tt.wantExactCount && (rep.Error != 0 || rep.ErrorNoResults != 0) {
				t.Errorf("error %d, %d: want 0 with fewer texts than k", rep.Error, rep.ErrorNoResults)
			}
			if bound := int64(tt.searches / tt.top); rep.Error > bound {
				t.Errorf("stated error %d, more than searches/k = %d", rep.Error, bound)
			}
			checkWithin(t, "searches", rep.Top, truth, rep.Error)
			checkWithin(t, "no results", rep.TopNoResults, zeroTruth, rep.ErrorNoResults)
			if len(rep.Top) == 0 || rep.Top[0].Text != "query 0" {
				t.Errorf("most frequent = %v, want query 0 (the Zipf head) first", rep.Top[:min(3, len(rep.Top))])
			}
		})
	}
}

// checkWithin: every true text's count, listed or not (0), is within e of its true count, and the
// list names no text that was never sent.
func checkWithin(t *testing.T, kind string, got []Count, truth map[string]int64, e int64) {
	t.Helper()
	listed := map[string]int64{}
	for _, c := range got {
		if _, ok := truth[c.Text]; !ok {
			t.Errorf("%s: %q listed (%d), never sent", kind, c.Text, c.N)
		}
		listed[c.Text] = c.N
	}
	for text, n := range truth {
		if d := listed[text] - n; d > e || d < -e {
			t.Errorf("%s: %q counted %d, sent %d: more than the stated error %d apart", kind, text, listed[text], n, e)
		}
	}
}

// TestHeldWhileRedisFails: a replica whose Redis does not answer keeps recording, in process, and
// counts the failed flushes; the metrics carry no text.
func TestHeldWhileRedisFails(t *testing.T) {
	servicetest.RedisURL(t)
	ratelimit.SetRedisLogger(zap.NewNop()) // a line per failed dial, on purpose here
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "redis://" + l.Addr().String()
	l.Close()
	c, err := ratelimit.NewClientFromURL(down)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := newRecorder(t, c, Options{Window: time.Hour, Top: 5})
	for i := range 100 {
		r.Record(fmt.Sprintf("secret text %d", i%20), i%4 == 0)
		if i%25 == 24 && r.Flush(t.Context()) == nil {
			t.Fatal("flush to a Redis that is down succeeded")
		}
	}
	if n := testutil.ToFloat64(r.failures); n != 4 {
		t.Errorf("flush failures = %v, want 4", n)
	}
	if s, z := testutil.ToFloat64(r.searches), testutil.ToFloat64(r.noResults); s != 100 || z != 25 {
		t.Errorf("searches %v, no results %v: want 100, 25", s, z)
	}
	if len(r.held) != 1 || len(r.held[r.opt.bucket(time.Now())].all.counts) != 5 {
		t.Errorf("held %v: want the current bucket, in 5 counters", r.held)
	}
	n, err := testutil.GatherAndCount(registryOf(t, r))
	if err != nil || n != 4 {
		t.Errorf("%d series (%v), want the 4 counters", n, err)
	}
}

// TestRedisMemoryBound: many distinct texts of the longest kind, over more buckets than a window
// holds: the keys left in Redis and the memory they take stay under MaxRedisBytes.
func TestRedisMemoryBound(t *testing.T) {
	prefix := testPrefix(t)
	c := testClient(t, prefix)
	// From two windows ago to now, so the buckets past the window have expired as they would have.
	clk := newClock(time.Now().Add(-50 * time.Second))
	o := Options{Window: 24 * time.Second, Top: 50, Prefix: prefix, Now: clk.now}
	r := newRecorder(t, c, o)
	for step := range 50 {
		for i := range 400 {
			r.Record(fmt.Sprintf("%d %d %s", step, i, strings.Repeat("x", MaxTextBytes)), i%2 == 0)
		}
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		clk.add(time.Second)
	}
	keys := testKeys(t, c, prefix)
	if len(keys) > 3*(Buckets+2) {
		t.Errorf("%d keys, more than 3 per bucket for %d buckets", len(keys), Buckets+2)
	}
	var bytes int64
	for _, k := range keys {
		n, err := c.MemoryUsage(t.Context(), k, 0).Result()
		if err != nil {
			t.Fatal(err)
		}
		bytes += n
		if strings.HasSuffix(k, "all") || strings.HasSuffix(k, "zero") {
			if n := c.ZCard(t.Context(), k).Val(); n > int64(o.Top) {
				t.Errorf("%s holds %d texts, more than k = %d", k, n, o.Top)
			}
		}
	}
	max := o.MaxRedisBytes()
	t.Logf("%d keys, %d bytes; bound %d", len(keys), bytes, max)
	if bytes > max || bytes < max/4 {
		t.Errorf("Redis holds %d bytes for the log, want at most the bound %d (and not far under it, at most 4 times)", bytes, max)
	}
}

func registryOf(t *testing.T, r *Recorder) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(r); err != nil {
		t.Fatal(err)
	}
	return reg
}
