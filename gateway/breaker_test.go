package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/gateway"
	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/breaker"
	"mediagw/search/cache"
	"mediagw/search/chain"
	"mediagw/search/elastic"
	"mediagw/search/live"
	"mediagw/search/searchtest"
)

// deadline is the backend deadline of the engine-failure tests: long, so that "answered at once"
// cannot be confused with "answered at the deadline" however busy the machine.
const deadline = 10 * time.Second

// faultyEngine is a gateway with caching and a circuit breaker over the real OpenSearch, reached
// through a proxy the test can make hang or refuse.
type faultyEngine struct {
	h       *harness
	proxy   *faultyProxy
	reg     *prometheus.Registry
	logs    *observer.ObservedLogs
	now     atomic.Int64 // the cache's clock, in Unix nanoseconds
	openFor time.Duration
}

func newFaultyEngine(t *testing.T) *faultyEngine {
	t.Helper()
	e := servicetest.TestEngine(t)
	u, err := url.Parse(e.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// Loaded and dropped straight on the engine, so a hung proxy cannot leave the indices behind.
	loaded, drop, err := engineBackend(ctx, e, searchtest.Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("drop the test's indices: %v", err)
		}
	})
	alias := loaded.(*elastic.Backend).Alias()

	f := &faultyEngine{proxy: startProxy(t, u.Host), reg: prometheus.NewRegistry(), openFor: 4 * time.Second}
	engine, err := elastic.New(elastic.Config{URLs: []string{"http://" + f.proxy.addr()}, Product: elastic.Product(e.Product), Alias: alias})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	core, logs := observer.New(zapcore.InfoLevel)
	f.logs = logs
	f.now.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, f.now.Load()) }
	f.h = newHarness(t, withBackend(func(search.Backend) search.Backend { return engine }), withMetrics(f.reg),
		withChain(func(o *chain.Options) {
			o.Breaker = &breaker.Options{Failures: 3, OpenFor: f.openFor, Log: zap.New(core)}
			o.Cache = &cache.Options{StaleMax: 10 * time.Minute, CallTimeout: deadline, Now: now}
			o.Live = live.Options{Every: live.DefaultEvery, Now: now}
		}),
		withConfig(func(c *gateway.Config) { c.RequestTimeout = deadline }))
	return f
}

// cache asks for target until the answer comes from the cache (the cache learns the index version
// in the background), and returns the body.
func (f *faultyEngine) cache(t *testing.T, target string) string {
	t.Helper()
	var rec *httptest.ResponseRecorder
	for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if rec = f.h.get(target); rec.Code != http.StatusOK {
			t.Fatalf("%s: %d with the engine up", target, rec.Code)
		}
		if rec.Header().Get("Cache-Status") == "mediagw; hit" {
			return rec.Body.String()
		}
		if time.Now().After(end) {
			t.Fatalf("%s: never served from the cache", target)
		}
	}
}

// ageCache moves the cache's clock past every freshness, and past the time the index version was
// last confirmed: every answer must now come from the engine.
func (f *faultyEngine) ageCache() { f.now.Add(int64(time.Minute)) }

// state is the breaker's state as Prometheus scrapes it.
func (f *faultyEngine) state(t *testing.T) float64 {
	return metricValue(t, f.reg, "mediagw_breaker_state")
}

// timed is a request and how long it took.
func (f *faultyEngine) timed(target string) (*httptest.ResponseRecorder, time.Duration) {
	start := time.Now()
	rec := f.h.get(target)
	return rec, time.Since(start)
}

// fastFailure checks a 503 of the open breaker: Retry-After, and long before the deadline.
func fastFailure(t *testing.T, what string, rec *httptest.ResponseRecorder, took time.Duration) {
	t.Helper()
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("%s: %d, want 503", what, rec.Code)
	}
	if ra, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("%s: Retry-After %q, want whole seconds", what, rec.Header().Get("Retry-After"))
	}
	if took >= deadline/2 {
		t.Errorf("%s: took %v, want an answer long before the %v deadline", what, took, deadline)
	}
	t.Logf("%s: %d in %v", what, rec.Code, took)
}

// TestEngineHangs: OpenSearch stops answering. Requests wait the deadline until the breaker opens;
// a request whose answer the cache held gets it, stale, then and after; once the breaker is open, a
// request the cache cannot answer gets 503 with Retry-After at once, and so does /readyz; when the
// engine answers again, a probe closes the breaker.
func TestEngineHangs(t *testing.T) {
	f := newFaultyEngine(t)
	held := "/?resource=items&q=harbour&per_page=5"
	body := f.cache(t, held)

	f.proxy.set(hanging)
	f.ageCache()
	// Three searches never asked before, and the held one, all wait for the engine until the
	// deadline; their failures open the breaker.
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if rec := f.h.get(fmt.Sprintf("/?resource=items&q=harbour&page=%d", i+2)); rec.Code != http.StatusGatewayTimeout {
				t.Errorf("a new search, engine hung: %d, want 504", rec.Code)
			}
		})
	}
	checkStale := func(what string) {
		rec := f.h.get(held)
		if rec.Code != http.StatusOK || rec.Body.String() != body {
			t.Errorf("%s: %d, want 200 with the answer held", what, rec.Code)
		}
		if got := rec.Header().Get("Cache-Status"); got != "mediagw; hit; detail=stale" {
			t.Errorf("%s: Cache-Status %q, want mediagw; hit; detail=stale", what, got)
		}
		if rec.Header().Get("Age") == "" {
			t.Errorf("%s: no Age", what)
		}
	}
	wg.Go(func() { checkStale("the held search, engine hung") })
	wg.Wait()
	// The engine calls end at their own deadline, a moment after the requests' (see cache.Options.CallTimeout).
	for end := time.Now().Add(deadline); f.state(t) != 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after 3 timeouts the breaker's state is %v, want 2 (open)", f.state(t))
		}
	}

	rec, took := f.timed("/?resource=items&q=never+asked")
	fastFailure(t, "a new search, breaker open", rec, took)
	rec, took = f.timed("/readyz")
	fastFailure(t, "/readyz, breaker open", rec, took)
	start := time.Now()
	checkStale("the held search, breaker open")
	if took := time.Since(start); took >= deadline/2 {
		t.Errorf("the held search, breaker open: took %v, want its stale answer long before the deadline", took)
	}

	f.proxy.set(forwarding)
	f.waitReady(t)
	if rec := f.h.get("/?resource=items&q=never+asked"); rec.Code != http.StatusOK {
		t.Errorf("a new search, engine back: %d, want 200", rec.Code)
	}
	f.checkLog(t)
}

// TestEngineRefuses: connection failures open the breaker too.
func TestEngineRefuses(t *testing.T) {
	f := newFaultyEngine(t)
	f.proxy.set(refusing)
	for i := range 3 {
		if rec := f.h.get(fmt.Sprintf("/?resource=items&q=refused&page=%d", i+1)); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("engine refusing: %d, want 503", rec.Code)
		}
	}
	if got := f.state(t); got != 2 {
		t.Fatalf("after 3 refused connections the breaker's state is %v, want 2 (open)", got)
	}
	rec, took := f.timed("/?resource=items&q=never+asked")
	fastFailure(t, "a new search, breaker open", rec, took)
	f.proxy.set(forwarding)
	f.waitReady(t)
	f.checkLog(t)
}

// waitReady polls /readyz until a probe closes the breaker.
func (f *faultyEngine) waitReady(t *testing.T) {
	t.Helper()
	for end := time.Now().Add(time.Minute); f.h.get("/readyz").Code != http.StatusOK; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("/readyz still fails a minute after the engine came back")
		}
	}
	if got := f.state(t); got != 0 {
		t.Errorf("engine back: the breaker's state is %v, want 0 (closed)", got)
	}
}

// checkLog: the breaker logged its opening once, and its closing once.
func (f *faultyEngine) checkLog(t *testing.T) {
	t.Helper()
	opened := f.logs.FilterMessage("search engine failing: circuit breaker open, calls fail at once").Len()
	closed := f.logs.FilterMessage("search engine answers again: circuit breaker closed").Len()
	if opened != 1 || closed != 1 {
		t.Errorf("logged the opening %d times and the closing %d times, want once each", opened, closed)
	}
}
