package gateway_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/catalogue"
	"mediagw/gateway"
	"mediagw/internal/servicetest"
	"mediagw/ratelimit"
	"mediagw/redisconn"
	"mediagw/search/bleve"
	"mediagw/search/searchtest"
)

// The tests in this file run several gateways, each with its own Redis client, in-process limiter
// and fallback, as separate HTTP servers on one Redis: the deployment the shared limit is for.

// contractPolicy is API.md's limit.
var contractPolicy = ratelimit.Policy{Limit: 120, Window: 10 * time.Minute}

// loopback trusts the test client's own address as a proxy, so X-Forwarded-For names the visitor.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// limiterTimeout replaces the production timeouts of the limiter and the Redis client: the
// machine running the tests may be loaded, and a late Redis answer is not what they are about.
const limiterTimeout = 5 * time.Second

// redisURL is REDIS_URL; without it the test skips, or fails in CI.
func redisURL(t testing.TB) string { return servicetest.RedisURL(t) }

var quietRedis sync.Once

// redisClient connects to raw and waits a bounded time for Redis to answer.
func redisClient(t testing.TB, raw string) redis.UniversalClient {
	t.Helper()
	// go-redis logs every failed dial; the tests stop Redis on purpose. Set before any client
	// exists, since go-redis's logger is a plain global.
	quietRedis.Do(func() { redisconn.SetLogger(zap.NewNop()) })
	cfg, err := redisconn.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case cfg.Single != nil:
		o := cfg.Single
		o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = limiterTimeout, limiterTimeout, limiterTimeout
	case cfg.Cluster != nil:
		o := cfg.Cluster
		o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = limiterTimeout, limiterTimeout, limiterTimeout
	default:
		o := cfg.Sentinel
		o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = limiterTimeout, limiterTimeout, limiterTimeout
	}
	c := cfg.NewClient()
	t.Cleanup(func() { c.Close() })
	servicetest.WaitForRedis(t, c)
	return c
}

// redisServer is a redis-server process of the test's own, so the test can stop it.
type redisServer struct {
	t   *testing.T
	url string
	cmd *exec.Cmd
}

// startRedisServer runs redis-server on a free loopback port until the test ends. It needs what
// the other Redis tests need (REDIS_URL set: Redis is part of this run) plus the binary.
func startRedisServer(t *testing.T) *redisServer {
	t.Helper()
	servicetest.RedisServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	s := &redisServer{t: t, url: "redis://127.0.0.1:" + port}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// start runs the server on its port, the same one after a stop, and waits until it answers.
func (s *redisServer) start() {
	s.t.Helper()
	port := strings.TrimPrefix(s.url, "redis://127.0.0.1:")
	s.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	redisClient(s.t, s.url).Close()
}

func (s *redisServer) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// replicas is a set of gateways sharing one Redis, each served by its own HTTP server.
type replicas struct {
	t      *testing.T
	policy ratelimit.Policy
	target string
	urls   []string
	fbs    []*ratelimit.Fallback
	regs   []*prometheus.Registry
	client *http.Client
	next   int
	// logs are the fallbacks' lines, from every replica.
	logs *observer.ObservedLogs
}

type replicaSetup struct {
	redisURL string
	policy   ratelimit.Policy
	trusted  []netip.Prefix
	// retry is the fallback's retry interval; zero keeps the default.
	retry time.Duration
}

// newReplicas starts three gateways over the shared test backend, wired as cmd/mediagw wires one:
// Redis behind a Fallback to a Memory of their own. Keys get a prefix of this run's own.
func newReplicas(t *testing.T, s replicaSetup) *replicas {
	t.Helper()
	backend, items := testBackend(t)
	core, logs := observer.New(zapcore.InfoLevel)
	prefix := fmt.Sprintf("mediagw-test:%s:%s:", t.Name(), rand.Text()[:10])
	rs := &replicas{
		t: t, policy: s.policy, logs: logs,
		// A cheap successful request: the tests are about counting, not searching.
		target: "/?resource=item&id=" + items[0].ID,
		client: &http.Client{Timeout: 30 * time.Second},
	}
	t.Cleanup(rs.client.CloseIdleConnections)
	for i := range 3 {
		r, err := ratelimit.NewRedis(redisClient(t, s.redisURL), s.policy,
			ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(limiterTimeout))
		if err != nil {
			t.Fatal(err)
		}
		var opts []ratelimit.FallbackOption
		if s.retry > 0 {
			opts = append(opts, ratelimit.WithRetryInterval(s.retry))
		}
		fb := ratelimit.NewFallback(r, ratelimit.NewMemory(s.policy, nil), zap.New(core).With(zap.Int("replica", i)), opts...)
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(fb)

		cfg := gateway.DefaultConfig()
		cfg.PublicURL = publicURL
		cfg.RatePolicy = s.policy
		cfg.TrustedProxies = s.trusted
		cfg.LimiterTimeout = limiterTimeout
		gw, err := gateway.New(cfg, backend, fb, zap.NewNop())
		if err != nil {
			t.Fatalf("gateway.New: %v", err)
		}
		srv := httptest.NewServer(gw)
		t.Cleanup(srv.Close)
		rs.urls = append(rs.urls, srv.URL)
		rs.fbs = append(rs.fbs, fb)
		rs.regs = append(rs.regs, reg)
	}
	return rs
}

// send makes one GET of target to replica i with the given X-Forwarded-For (none when empty)
// through client. No request may ever get a 5xx, whatever Redis does.
func (rs *replicas) send(client *http.Client, i int, target, xff string) *httptest.ResponseRecorder {
	rs.t.Helper()
	req, err := http.NewRequestWithContext(rs.t.Context(), http.MethodGet, rs.urls[i]+target, nil)
	if err != nil {
		rs.t.Fatal(err)
	}
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
		// A forged X-Real-IP must not count either.
		req.Header.Set("X-Real-IP", xff)
	}
	resp, err := client.Do(req)
	if err != nil {
		rs.t.Fatalf("replica %d: %v", i, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		rs.t.Fatalf("replica %d: read body: %v", i, err)
	}
	if resp.StatusCode >= 500 {
		rs.t.Fatalf("replica %d answered %d: %s", i, resp.StatusCode, body)
	}
	// A recorder, so the problem checks of the other HTTP tests apply as they are.
	rec := httptest.NewRecorder()
	for k, v := range resp.Header {
		rec.Header()[k] = v
	}
	rec.WriteHeader(resp.StatusCode)
	rec.Write(body)
	return rec
}

// do asks replica i as visitor xff.
func (rs *replicas) do(i int, xff string) *httptest.ResponseRecorder {
	rs.t.Helper()
	return rs.send(rs.client, i, rs.target, xff)
}

// inTurn asks the next replica, round-robin, as visitor xff; it returns the replica asked too.
func (rs *replicas) inTurn(xff string) (*httptest.ResponseRecorder, int) {
	rs.t.Helper()
	i := rs.next
	rs.next = (rs.next + 1) % len(rs.urls)
	return rs.do(i, xff), i
}

// emission is the time in which one request drains, Window/Limit.
func (rs *replicas) emission() time.Duration {
	return rs.policy.Window / time.Duration(rs.policy.Limit)
}

// expectAllowed checks a success with the number of requests the visitor has left. start is
// when the visitor's first request went out: a machine so slow that a request drained on the way
// makes every count one off, and the message says so.
func (rs *replicas) expectAllowed(rec *httptest.ResponseRecorder, replica, remaining int, start time.Time) {
	rs.t.Helper()
	got := rec.Header().Get("X-RateLimit-Remaining")
	if rec.Code == http.StatusOK && got == strconv.Itoa(remaining) {
		return
	}
	slow := ""
	if e := time.Since(start); e >= rs.emission() {
		slow = fmt.Sprintf(" (%s since the visitor's first request, more than the %s in which one request drains: counts are off by one)", e.Round(time.Millisecond), rs.emission())
	}
	rs.t.Fatalf("replica %d: status %d, X-RateLimit-Remaining %q; want 200 with %d remaining%s: %s", replica, rec.Code, got, remaining, slow, rec.Body)
}

// expectLimited checks a 429 as API.md describes it: problem body, Retry-After in whole seconds
// no longer than one request takes to drain, and the rate-limit headers at zero.
func (rs *replicas) expectLimited(rec *httptest.ResponseRecorder, replica int) {
	rs.t.Helper()
	if rec.Code != http.StatusTooManyRequests {
		rs.t.Fatalf("replica %d: status %d, want 429: %s", replica, rec.Code, rec.Body)
	}
	expectProblem(rs.t, rec, http.StatusTooManyRequests, "rate-limited")
	hd := rec.Header()
	maxRetry := int(math.Ceil(rs.emission().Seconds()))
	if ra, err := strconv.Atoi(hd.Get("Retry-After")); err != nil || ra < 1 || ra > maxRetry {
		rs.t.Errorf("replica %d: Retry-After %q, want 1 to %d seconds", replica, hd.Get("Retry-After"), maxRetry)
	}
	if want := fmt.Sprintf(`"default";r=0;t=%s`, hd.Get("Retry-After")); hd.Get("RateLimit") != want {
		rs.t.Errorf("replica %d: RateLimit %q, want %q", replica, hd.Get("RateLimit"), want)
	}
	if want := fmt.Sprintf(`"default";q=%d;w=%d`, rs.policy.Limit, int(rs.policy.Window.Seconds())); hd.Get("RateLimit-Policy") != want {
		rs.t.Errorf("replica %d: RateLimit-Policy %q, want %q", replica, hd.Get("RateLimit-Policy"), want)
	}
	if hd.Get("X-RateLimit-Limit") != strconv.Itoa(rs.policy.Limit) || hd.Get("X-RateLimit-Remaining") != "0" {
		rs.t.Errorf("replica %d: X-RateLimit-Limit %q, X-RateLimit-Remaining %q", replica, hd.Get("X-RateLimit-Limit"), hd.Get("X-RateLimit-Remaining"))
	}
}

// shareOneLimit has visitor xff ask the replicas in turn: exactly Limit requests succeed, counting
// down across replicas, then every replica refuses the next one.
func (rs *replicas) shareOneLimit(xff string) {
	rs.t.Helper()
	start := time.Now()
	for n := range rs.policy.Limit {
		rec, i := rs.inTurn(xff)
		rs.expectAllowed(rec, i, rs.policy.Limit-1-n, start)
	}
	for i := range rs.urls {
		rs.expectLimited(rs.do(i, xff), i)
	}
}

// metric is one replica's value of a rate-limit metric as Prometheus scrapes it.
func (rs *replicas) metric(replica int, name string) float64 {
	rs.t.Helper()
	mfs, err := rs.regs[replica].Gather()
	if err != nil {
		rs.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		m := mf.GetMetric()[0]
		if c := m.GetCounter(); c != nil {
			return c.GetValue()
		}
		return m.GetGauge().GetValue()
	}
	rs.t.Fatalf("replica %d has no metric %s", replica, name)
	return 0
}

func (rs *replicas) fallbacks() []float64 {
	rs.t.Helper()
	out := make([]float64, len(rs.urls))
	for i := range out {
		out[i] = rs.metric(i, "mediagw_ratelimit_fallback_total")
	}
	return out
}

// TestReplicasShareTheContractLimit is three replicas answering one visitor in turn with the
// contract's numbers: 120 in total, not 120 each, and the 121st refused by whichever replica.
func TestReplicasShareTheContractLimit(t *testing.T) {
	rs := newReplicas(t, replicaSetup{redisURL: redisURL(t), policy: contractPolicy, trusted: loopback})
	rs.shareOneLimit("198.51.100.1")

	start := time.Now()
	for i := range rs.urls {
		rs.expectAllowed(rs.do(i, "198.51.100.2"), i, contractPolicy.Limit-1-i, start)
	}
	// A proxy's own address is never the visitor: one client behind it is limited, not the proxy.
	rs.expectAllowed(rs.do(0, "198.51.100.3, 127.0.0.1"), 0, contractPolicy.Limit-1, start)

	for i, n := range rs.fallbacks() {
		if n != 0 {
			t.Errorf("replica %d decided %v requests in process with Redis up", i, n)
		}
	}
}

// TestForgedForwardedForIsIgnored has a client that is no trusted proxy send a different
// X-Forwarded-For with every request: it stays one visitor, limited at the 121st request.
func TestForgedForwardedForIsIgnored(t *testing.T) {
	rs := newReplicas(t, replicaSetup{redisURL: redisURL(t), policy: contractPolicy})
	forged := func(n int) string { return fmt.Sprintf("198.51.%d.%d", n/256, n%256) }
	start := time.Now()
	for n := range contractPolicy.Limit {
		rec, i := rs.inTurn(forged(n))
		rs.expectAllowed(rec, i, contractPolicy.Limit-1-n, start)
	}
	for i := range rs.urls {
		rs.expectLimited(rs.do(i, forged(contractPolicy.Limit+i)), i)
	}

	t.Run("another peer is another visitor", func(t *testing.T) {
		// Linux answers on all of 127.0.0.0/8; elsewhere 127.0.0.2 may not exist.
		l, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			t.Skipf("no second loopback address: %v", err)
		}
		l.Close()
		dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
		other := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext}}
		defer other.CloseIdleConnections()
		rs.expectAllowed(rs.send(other, 0, rs.target, ""), 0, contractPolicy.Limit-1, time.Now())
	})
}

// TestReplicasWhenRedisStops stops the replicas' Redis mid-run and starts it again: no 5xx at
// any point; while it is down each replica keeps the limit on its own; once it is back and the
// retry interval has passed, the replicas share one limit again.
func TestReplicasWhenRedisStops(t *testing.T) {
	srv := startRedisServer(t)
	// A small limit with a long window: a request drains only every minute, so the counts are
	// exact however slow the machine.
	policy := ratelimit.Policy{Limit: 10, Window: 10 * time.Minute}
	const retry = 250 * time.Millisecond
	rs := newReplicas(t, replicaSetup{redisURL: srv.url, policy: policy, trusted: loopback, retry: retry})

	rs.shareOneLimit("198.51.100.10")

	srv.stop()
	// Each replica lets the visitor make Limit requests of its own, then refuses.
	const during = "198.51.100.11"
	start := time.Now()
	for n := range len(rs.urls) * policy.Limit {
		rec, i := rs.inTurn(during)
		rs.expectAllowed(rec, i, policy.Limit-1-n/len(rs.urls), start)
	}
	for i := range rs.urls {
		rs.expectLimited(rs.do(i, during), i)
	}
	for i := range rs.urls {
		if got := rs.metric(i, "mediagw_ratelimit_fallback_active"); got != 1 {
			t.Errorf("replica %d: fallback_active %v with Redis down, want 1", i, got)
		}
		if got := rs.metric(i, "mediagw_ratelimit_fallback_total"); got != float64(policy.Limit+1) {
			t.Errorf("replica %d: fallback_total %v, want %d", i, got, policy.Limit+1)
		}
	}
	if n := rs.logs.FilterMessageSnippet("Redis failed").Len(); n != len(rs.urls) {
		t.Errorf("%d warnings about Redis, want one per replica (%d)", n, len(rs.urls))
	}

	srv.start()
	// A replica asks Redis again once its retry interval has passed; the first try may still
	// meet a connection from before the restart, so allow a bounded number of tries.
	for i := range rs.urls {
		for try := 0; rs.metric(i, "mediagw_ratelimit_fallback_active") != 0; try++ {
			if try == 40 {
				t.Fatalf("replica %d still decides in process after Redis returned", i)
			}
			time.Sleep(retry)
			rs.do(i, "198.51.100.12")
		}
	}
	if n := rs.logs.FilterMessageSnippet("answers again").Len(); n != len(rs.urls) {
		t.Errorf("%d lines about Redis answering again, want one per replica (%d)", n, len(rs.urls))
	}

	before := rs.fallbacks()
	rs.shareOneLimit("198.51.100.13")
	for i, n := range rs.fallbacks() {
		if n != before[i] {
			t.Errorf("replica %d decided %v requests in process after Redis returned", i, n-before[i])
		}
	}
}

// BenchmarkRateLimitedRequest is one successful API request through the whole gateway, by
// limiter: the difference between the two is what the shared limit costs a request.
func BenchmarkRateLimitedRequest(b *testing.B) {
	items, err := catalogue.ReadFile(searchtest.FixturePath())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	backend, err := bleve.NewFromItems(ctx, b.TempDir(), items)
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Close()
	// Limit high enough that no visitor is ever refused: the benchmark measures allowed requests.
	policy := ratelimit.Policy{Limit: 1 << 30, Window: 10 * time.Minute}
	target := "/?resource=item&id=" + items[0].ID

	run := func(b *testing.B, limiter ratelimit.Decider) {
		cfg := gateway.DefaultConfig()
		cfg.PublicURL = publicURL
		cfg.RatePolicy = policy
		cfg.TrustedProxies = loopback
		gw, err := gateway.New(cfg, backend, limiter, zap.NewNop())
		if err != nil {
			b.Fatal(err)
		}
		visitors := make([]string, 1<<12)
		for i := range visitors {
			visitors[i] = fmt.Sprintf("198.51.%d.%d", i>>8, i&255)
		}
		var next atomic.Uint64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := next.Add(1 << 20)
			for pb.Next() {
				i++
				req := httptest.NewRequest(http.MethodGet, target, nil)
				req.RemoteAddr = "127.0.0.1:40000"
				req.Header.Set("X-Forwarded-For", visitors[i&(1<<12-1)])
				rec := httptest.NewRecorder()
				gw.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Errorf("status %d: %s", rec.Code, rec.Body)
					return
				}
			}
		})
	}
	b.Run("memory", func(b *testing.B) {
		run(b, ratelimit.NewFallback(nil, ratelimit.NewMemory(policy, nil), nil))
	})
	b.Run("redis", func(b *testing.B) {
		r, err := ratelimit.NewRedis(redisClient(b, redisURL(b)), policy,
			ratelimit.WithPrefix(fmt.Sprintf("mediagw-bench:%s:", rand.Text()[:10])), ratelimit.WithTimeout(limiterTimeout))
		if err != nil {
			b.Fatal(err)
		}
		run(b, ratelimit.NewFallback(r, ratelimit.NewMemory(policy, nil), nil))
	})
}
