package ratelimit

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/internal/servicetest"
	"mediagw/redisconn"
)

// freePort is a loopback TCP port nothing listens on right now.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// redisServer is a redis-server process of the test's own, so the test can stop it.
type redisServer struct {
	t    *testing.T
	port string
	cmd  *exec.Cmd
}

// startRedisServer runs redis-server on port and waits until it answers. It needs what the
// Redis tests need (REDIS_URL set: Redis is part of this run) plus the redis-server binary.
func startRedisServer(t *testing.T, port string) *redisServer {
	t.Helper()
	servicetest.RedisServer(t)
	s := &redisServer{t: t, port: port}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *redisServer) start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", "--port", s.port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	newRedisClient(s.t, "redis://127.0.0.1:"+s.port).Close()
}

func (s *redisServer) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// countingLimiter counts the calls that reach the real limiter it wraps.
type countingLimiter struct {
	Limiter
	calls    atomic.Int64
	inspects atomic.Int64
}

func (c *countingLimiter) Allow(ctx context.Context, key string) (Decision, error) {
	c.calls.Add(1)
	return c.Limiter.Allow(ctx, key)
}

func (c *countingLimiter) Inspect(ctx context.Context, key string) (Decision, error) {
	c.inspects.Add(1)
	return c.Limiter.Inspect(ctx, key)
}

func unreachableRedis(t *testing.T) *countingLimiter {
	t.Helper()
	c, err := redisconn.Open("redis://127.0.0.1:" + freePort(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r, err := NewRedis(c, contract)
	if err != nil {
		t.Fatal(err)
	}
	return &countingLimiter{Limiter: r}
}

func observed() (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.InfoLevel)
	return zap.New(core), logs
}

func TestFallbackWhenRedisUnreachable(t *testing.T) {
	clk := newClock()
	primary := unreachableRedis(t)
	logger, logs := observed()
	fb := NewFallback(primary, NewMemory(contract, clk.Now), logger, WithClock(clk.Now))

	for i := range 120 {
		d, err := fb.Allow(t.Context(), "v")
		if err != nil || !d.Allowed || d.Remaining != 119-i {
			t.Fatalf("request %d: %+v, %v; want allowed with %d remaining", i+1, d, err, 119-i)
		}
	}
	d, err := fb.Allow(t.Context(), "v")
	if want := (Decision{Limit: 120, RetryAfter: 5 * time.Second, ResetAfter: 600 * time.Second}); err != nil || d != want {
		t.Fatalf("121st: %+v, %v; want %+v", d, err, want)
	}

	if n := primary.calls.Load(); n != 1 {
		t.Errorf("Redis asked %d times within the retry interval, want once", n)
	}
	if got := testutil.ToFloat64(fb.fallbacks); got != 121 {
		t.Errorf("fallback_total %v, want 121", got)
	}
	if a, l := testutil.ToFloat64(fb.allowed), testutil.ToFloat64(fb.limited); a != 120 || l != 1 {
		t.Errorf("decisions allowed %v limited %v, want 120 and 1", a, l)
	}
	if got := testutil.ToFloat64(fb.active); got != 1 {
		t.Errorf("fallback_active %v, want 1", got)
	}
	if n := logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 1 {
		t.Errorf("%d warnings, want 1", n)
	}

	// Each retry interval lets one request try Redis again; the log stays quiet until the
	// log interval has passed.
	for range 5 {
		clk.Advance(DefaultRetryInterval)
		fb.Allow(t.Context(), "w")
		fb.Allow(t.Context(), "w")
	}
	if n := primary.calls.Load(); n != 6 {
		t.Errorf("Redis asked %d times over 5 retry intervals, want 6", n)
	}
	if n := logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 1 {
		t.Errorf("%d warnings within the log interval, want 1", n)
	}
	clk.Advance(logInterval)
	fb.Allow(t.Context(), "w")
	warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
	if len(warns) != 2 || warns[1].ContextMap()["failures"] != int64(6) {
		t.Errorf("after the log interval: %d warnings (%v), want 2, the second counting 6 failures", len(warns), warns)
	}
}

func TestFallbackCallerCancelDoesNotMarkRedisDown(t *testing.T) {
	clk := newClock()
	fb := NewFallback(unreachableRedis(t), NewMemory(contract, clk.Now), nil, WithClock(clk.Now))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if d, err := fb.Allow(ctx, "v"); err != nil || !d.Allowed {
		t.Fatalf("got %+v, %v; want an allowed decision", d, err)
	}
	if fb.down.Load() {
		t.Fatal("a cancelled caller marked Redis down")
	}
}

func TestFallbackWithoutPrimary(t *testing.T) {
	clk := newClock()
	fb := NewFallback(nil, NewMemory(Policy{Limit: 1, Window: time.Minute}, clk.Now), nil)
	fb.Allow(t.Context(), "v")
	if d, err := fb.Allow(t.Context(), "v"); err != nil || d.Allowed {
		t.Fatalf("second request: %+v, %v; want limited", d, err)
	}
	if got := testutil.ToFloat64(fb.fallbacks); got != 0 {
		t.Errorf("fallback_total %v without a primary, want 0", got)
	}
	if a, l := testutil.ToFloat64(fb.allowed), testutil.ToFloat64(fb.limited); a != 1 || l != 1 {
		t.Errorf("decisions allowed %v limited %v, want 1 and 1", a, l)
	}
}

func TestFallbackNeverFails(t *testing.T) {
	logger, logs := observed()
	fb := NewFallback(unreachableRedis(t), NewMemory(Policy{}, nil), logger)
	if d, err := fb.Allow(t.Context(), "v"); err != nil || !d.Allowed {
		t.Fatalf("got %+v, %v; want the request let through", d, err)
	}
	if n := logs.FilterLevelExact(zapcore.ErrorLevel).Len(); n != 1 {
		t.Errorf("%d errors logged, want 1", n)
	}
}

func TestFallbackMetricsRegister(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(NewFallback(nil, NewMemory(contract, nil), nil)); err != nil {
		t.Fatal(err)
	}
	n, err := testutil.GatherAndCount(reg, "mediagw_ratelimit_decisions_total",
		"mediagw_ratelimit_fallback_total", "mediagw_ratelimit_fallback_active")
	if err != nil || n != 4 { // decisions has two series, allowed and limited
		t.Fatalf("gathered %d series, %v; want 4", n, err)
	}
}

// fallbackReplicas are replicas of the gateway's limiter, each a Fallback over a Redis client of
// its own, all on one Redis and key prefix.
type fallbackReplicas struct {
	t   *testing.T
	p   Policy
	fbs []*Fallback
}

func (rs fallbackReplicas) allow(i int, key string) Decision {
	rs.t.Helper()
	d, err := rs.fbs[i].Allow(context.Background(), key)
	if err != nil {
		rs.t.Fatalf("replica %d: %v", i, err)
	}
	return d
}

// fallbacks is replica i's count of requests decided in process.
func (rs fallbackReplicas) fallbacks(i int) float64 { return testutil.ToFloat64(rs.fbs[i].fallbacks) }

// shared has visitor key ask the replicas in turn: Limit requests allowed in all, counting down
// across them, then each refuses, all decided in Redis.
func (rs fallbackReplicas) shared(key string) {
	rs.t.Helper()
	before := make([]float64, len(rs.fbs))
	for i := range rs.fbs {
		before[i] = rs.fallbacks(i)
	}
	for n := range rs.p.Limit {
		i := n % len(rs.fbs)
		if d := rs.allow(i, key); !d.Allowed || d.Remaining != rs.p.Limit-1-n {
			rs.t.Fatalf("%s, request %d on replica %d: %+v; want allowed with %d remaining", key, n+1, i, d, rs.p.Limit-1-n)
		}
	}
	for i := range rs.fbs {
		if d := rs.allow(i, key); d.Allowed {
			rs.t.Fatalf("%s: replica %d allowed request %d: %+v", key, i, rs.p.Limit+1, d)
		}
		if got := rs.fallbacks(i); got != before[i] {
			rs.t.Fatalf("%s: replica %d decided %v requests in process with Redis up", key, i, got-before[i])
		}
	}
}

// TestFallbackRedisStopsAndReturns is two replicas on one Redis that is stopped and started
// again: shared limit, then per-replica limits without errors, then shared again.
func TestFallbackRedisStopsAndReturns(t *testing.T) {
	port := freePort(t)
	srv := startRedisServer(t, port)
	clk := newClock() // drives only the retry and log intervals
	prefix := uniquePrefix(t)
	logger, logs := observed()
	rs := fallbackReplicas{t: t, p: contract}
	for range 2 {
		r := newTestRedis(t, newRedisClient(t, "redis://127.0.0.1:"+port), prefix)
		rs.fbs = append(rs.fbs, NewFallback(r, NewMemory(contract, nil), logger, WithClock(clk.Now)))
	}
	rs.shared("before")

	srv.stop()
	for i := range rs.fbs {
		for n := range 120 {
			if d := rs.allow(i, "during"); !d.Allowed || d.Remaining != 119-n {
				t.Fatalf("replica %d, Redis down, request %d: %+v, want allowed with %d remaining", i, n+1, d, 119-n)
			}
		}
		if d := rs.allow(i, "during"); d.Allowed || d.RetryAfter <= 4*time.Second || d.RetryAfter > 5*time.Second {
			t.Fatalf("replica %d, Redis down, 121st: %+v, want limited locally", i, d)
		}
		if got := rs.fallbacks(i); got != 121 {
			t.Errorf("replica %d: fallback_total %v, want 121", i, got)
		}
	}
	if n := logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 2 {
		t.Errorf("%d warnings for two replicas, want 2", n)
	}

	srv.start()
	// Once the retry interval has passed, a replica tries Redis again; the first try may still
	// meet a connection from before the restart, so allow a bounded number of intervals.
	for i, fb := range rs.fbs {
		for try := 0; fb.down.Load(); try++ {
			if try == 20 {
				t.Fatalf("replica %d still falls back after Redis returned", i)
			}
			clk.Advance(DefaultRetryInterval)
			rs.allow(i, "probe")
		}
	}
	if n := logs.FilterMessageSnippet("answers again").Len(); n != 2 {
		t.Errorf("%d recovery lines for two replicas, want 2", n)
	}
	rs.shared("after")
}

func BenchmarkFallbackAllow(b *testing.B) {
	fb := NewFallback(nil, NewMemory(contract, nil), nil)
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = strconv.Itoa(i)
	}
	var next atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := next.Add(1 << 20)
		for pb.Next() {
			i++
			fb.Allow(context.Background(), keys[i&(1<<16-1)])
		}
	})
}

// TestMain keeps go-redis's per-dial lines out of the output of tests that stop Redis on purpose.
func TestMain(m *testing.M) {
	redisconn.SetLogger(zap.NewNop())
	os.Exit(m.Run())
}

// TestRemote: the gateway speculates only on limiters whose decisions leave the process, which a
// Fallback's do exactly when it has a primary to ask, and a Shadow's always (it fronts one).
func TestRemote(t *testing.T) {
	local := NewMemory(DefaultPolicy, nil)
	for _, tc := range []struct {
		name string
		l    interface{ Remote() bool }
		want bool
	}{
		{"fallback without a primary", NewFallback(nil, local, nil), false},
		{"fallback with a primary", NewFallback(NewMemory(DefaultPolicy, nil), local, nil), true},
		{"shadow", NewShadow(NewFallback(NewMemory(DefaultPolicy, nil), local, nil)), true},
	} {
		if got := tc.l.Remote(); got != tc.want {
			t.Errorf("%s: Remote %v, want %v", tc.name, got, tc.want)
		}
	}
}
