package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/cache"
	"mediagw/search/searchtest"
)

// metricValue is the value of the one series of name with exactly the given label pairs: a
// counter's or gauge's value, a histogram's sample count; -1 when there is no such series.
func metricValue(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m, labels) {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return -1
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	if len(m.GetLabel())*2 != len(pairs) {
		return false
	}
	want := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		want[pairs[i]] = pairs[i+1]
	}
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
			return false
		}
	}
	return true
}

// labelValues lists every value label takes in name's series.
func labelValues(t *testing.T, reg prometheus.Gatherer, name, label string) []string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var out []string
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out = append(out, l.GetValue())
				}
			}
		}
	}
	return out
}

// withMetrics registers the gateway's metrics and those of every layer of the chain in reg.
func withMetrics(reg prometheus.Registerer) option {
	return func(s *setup) { s.cfg.Metrics, s.chain.Metrics = reg, reg }
}

// withCache puts a cache in the chain.
func withCache(opts cache.Options) option { return func(s *setup) { s.chain.Cache = &opts } }

func TestMetricsRequests(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := newHarness(t, withMetrics(reg), withChain(keepLists))

	first := h.get("/?resource=items&q=harbour")
	if first.Code != http.StatusOK {
		t.Fatalf("items: %d", first.Code)
	}
	if rec := h.get("/?resource=items&q=harbour", "If-None-Match", first.Header().Get("ETag")); rec.Code != http.StatusNotModified {
		t.Fatalf("revalidation: %d, want 304", rec.Code)
	}
	h.get("/?resource=categories")
	h.get("/?resource=item&id=no-such-item")
	h.get("/qr/ph-full.png")
	h.get("/healthz")
	h.get("/readyz")
	// What clients can vary must not become a label value.
	for i := range 5 {
		h.get(fmt.Sprintf("/?resource=made-up-%d", i))
		h.get(fmt.Sprintf("/no/such/path/%d", i))
	}

	want := `
# HELP mediagw_http_requests_total HTTP requests answered, by resource and status code (499: the client went away).
# TYPE mediagw_http_requests_total counter
mediagw_http_requests_total{resource="categories",status="200"} 1
mediagw_http_requests_total{resource="healthz",status="200"} 1
mediagw_http_requests_total{resource="item",status="404"} 1
mediagw_http_requests_total{resource="items",status="200"} 1
mediagw_http_requests_total{resource="items",status="304"} 1
mediagw_http_requests_total{resource="other",status="400"} 5
mediagw_http_requests_total{resource="other",status="404"} 5
mediagw_http_requests_total{resource="qr",status="200"} 1
mediagw_http_requests_total{resource="readyz",status="200"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "mediagw_http_requests_total"); err != nil {
		t.Error(err)
	}
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mediagw_http_not_modified_total", []string{"resource", "items"}, 1},
		{"mediagw_http_not_modified_total", []string{"resource", "categories"}, 0},
		{"mediagw_http_request_duration_seconds", []string{"resource", "items"}, 2},
		{"mediagw_http_request_duration_seconds", []string{"resource", "other"}, 10},
		{"mediagw_http_requests_in_flight", nil, 0},
		// The 304 is worked out from the same search, so the engine was asked twice.
		{"mediagw_backend_duration_seconds", []string{"op", "search"}, 2},
		// The whole lists are counted once, as the harness starts; a request for them asks nothing.
		{"mediagw_backend_duration_seconds", []string{"op", "categories"}, 1},
		// The item lookup for the QR code and the missing item; a missing item is no engine failure.
		{"mediagw_backend_duration_seconds", []string{"op", "item"}, 2},
		{"mediagw_backend_errors_total", []string{"op", "item", "kind", "other"}, 0},
		{"mediagw_backend_duration_seconds", []string{"op", "ping"}, 1},
		{"mediagw_backend_duration_seconds", []string{"op", "authors"}, 1},
	}
	for _, c := range checks {
		if got := metricValue(t, reg, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, r := range labelValues(t, reg, "mediagw_http_request_duration_seconds", "resource") {
		if strings.Contains(r, "made-up") || strings.Contains(r, "/") {
			t.Errorf("client-chosen resource label %q", r)
		}
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestMetricsBackendErrors(t *testing.T) {
	tests := []struct {
		name string
		f    searchtest.Failing
		kind string
	}{
		{"unavailable", searchtest.Failing{Err: fmt.Errorf("dial: %w", search.ErrUnavailable)}, "unavailable"},
		{"no index", searchtest.Failing{Err: search.NoIndex("items", nil)}, "no_index"},
		{"too slow", searchtest.Failing{}, "timeout"},
		{"deadline error", searchtest.Failing{Err: fmt.Errorf("query: %w", context.DeadlineExceeded)}, "timeout"},
		{"other failure", searchtest.Failing{Err: errors.New("index corrupt")}, "other"},
	}
	targets := map[string]string{
		"search":     "/?resource=items",
		"item":       "/?resource=item&id=ph-full",
		"categories": "/?resource=categories",
		"authors":    "/?resource=authors",
		"ping":       "/readyz",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			h := newHarness(t, withMetrics(reg), withChain(noLists),
				withConfig(func(c *gateway.Config) { c.RequestTimeout = 20 * time.Millisecond }),
				withBackend(func(b search.Backend) search.Backend { tt.f.Backend = b; return tt.f }))
			for op, target := range targets {
				if rec := h.get(target); rec.Code < 500 {
					t.Fatalf("%s: %d, want a 5xx", target, rec.Code)
				}
				for _, kind := range []string{"unavailable", "no_index", "timeout", "other"} {
					want := 0.0
					if kind == tt.kind {
						want = 1
					}
					if got := metricValue(t, reg, "mediagw_backend_errors_total", "op", op, "kind", kind); got != want {
						t.Errorf("backend_errors_total{op=%s,kind=%s} = %v, want %v", op, kind, got, want)
					}
				}
				if got := metricValue(t, reg, "mediagw_backend_duration_seconds", "op", op); got != 1 {
					t.Errorf("backend_duration_seconds{op=%s} count %v, want 1", op, got)
				}
			}
		})
	}
}

// TestMetricsRateLimit shows the 429 under the resource asked for, and the decision counted once:
// by the limiter, not again by the gateway.
func TestMetricsRateLimit(t *testing.T) {
	reg := prometheus.NewRegistry()
	policy := ratelimit.Policy{Limit: 1, Window: time.Minute}
	limiter := ratelimit.NewFallback(nil, ratelimit.NewMemory(policy, fixedNow), zap.NewNop())
	reg.MustRegister(limiter)
	h := newHarness(t, withMetrics(reg), withLimiter(limiter), withConfig(func(c *gateway.Config) { c.RatePolicy = policy }))
	h.get("/?resource=categories")
	if rec := h.get("/?resource=categories"); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("second request: %d, want 429", rec.Code)
	}
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mediagw_http_requests_total", []string{"resource", "categories", "status", "200"}, 1},
		{"mediagw_http_requests_total", []string{"resource", "categories", "status", "429"}, 1},
		{"mediagw_ratelimit_decisions_total", []string{"result", "limited"}, 1},
		{"mediagw_ratelimit_decisions_total", []string{"result", "allowed"}, 1},
		{"mediagw_backend_duration_seconds", []string{"op", "categories"}, 1},
	}
	for _, c := range checks {
		if got := metricValue(t, reg, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// blocking holds every Categories call until release is closed, telling entered about each.
type blocking struct {
	search.Backend
	entered chan struct{}
	release chan struct{}
}

func (b blocking) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	b.entered <- struct{}{}
	<-b.release
	return b.Backend.Categories(ctx, f)
}

func TestMetricsInFlight(t *testing.T) {
	reg := prometheus.NewRegistry()
	b := blocking{entered: make(chan struct{}), release: make(chan struct{})}
	h := newHarness(t, withMetrics(reg), withChain(noLists), withBackend(func(sb search.Backend) search.Backend { b.Backend = sb; return b }))
	const n = 3
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { h.get("/?resource=categories") })
	}
	for range n {
		<-b.entered
	}
	if got := metricValue(t, reg, "mediagw_http_requests_in_flight"); got != n {
		t.Errorf("in flight while %d requests wait on the engine: %v", n, got)
	}
	close(b.release)
	wg.Wait()
	if got := metricValue(t, reg, "mediagw_http_requests_in_flight"); got != 0 {
		t.Errorf("in flight after they finished: %v", got)
	}
	if got := metricValue(t, reg, "mediagw_http_requests_total", "resource", "categories", "status", "200"); got != n {
		t.Errorf("requests_total: %v, want %d", got, n)
	}
}

func TestMetricsRegisteredOnce(t *testing.T) {
	reg := prometheus.NewRegistry()
	newHarness(t, withMetrics(reg))
	b, _ := testBackend(t)
	cfg := gateway.DefaultConfig()
	cfg.PublicURL = publicURL
	cfg.Metrics = reg
	if _, err := gateway.New(cfg, b, ratelimit.NewMemory(cfg.RatePolicy, nil), nil); err == nil {
		t.Errorf("a second gateway registered the same metrics without error")
	}
}

// slowSearch makes every search take at least d, so the engine's share of a request is plain.
type slowSearch struct {
	search.Backend
	d time.Duration
}

func (b slowSearch) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	time.Sleep(b.d)
	return b.Backend.Search(ctx, search.NewRequest(q))
}

// histogramSum is the sum of name's histogram series with the given labels.
func histogramSum(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == name && hasLabels(m, labels) && m.Histogram != nil {
				return m.Histogram.GetSampleSum()
			}
		}
	}
	t.Fatalf("no histogram %s%v", name, labels)
	return 0
}

// TestMetricsGatewayOwnTime checks that the gateway's own time is each request's time less what it
// waited on calls that reached the engine, a search that asks the engine again for a correction
// included: without a cache, exactly the engine calls' time; behind a cache, an answer from memory
// is no engine call and the gateway's own time. It checks too that the limiter's wait is timed
// once per counted request.
func TestMetricsGatewayOwnTime(t *testing.T) {
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("cached=%v", cached), func(t *testing.T) {
			reg := prometheus.NewRegistry()
			opts := []option{withMetrics(reg), withBackend(func(b search.Backend) search.Backend {
				return slowSearch{b, 20 * time.Millisecond}
			})}
			if cached {
				opts = append(opts, withCache(cache.Options{TTL: time.Hour}))
			}
			h := newHarness(t, opts...)
			targets := []string{"/?resource=items&q=harbour", "/?resource=items&q=harbour", "/?resource=items&q=harbuor", "/?resource=item&id=ph-full", "/healthz"}
			for _, target := range targets {
				if rec := h.get(target); rec.Code != http.StatusOK {
					t.Fatalf("%s: %d", target, rec.Code)
				}
			}
			for _, r := range []string{"items", "item", "healthz"} {
				if got := metricValue(t, reg, "mediagw_gateway_own_seconds", "resource", r); got != metricValue(t, reg, "mediagw_http_request_duration_seconds", "resource", r) {
					t.Errorf("own time of %s: %v requests", r, got)
				}
			}
			total := histogramSum(t, reg, "mediagw_http_request_duration_seconds", "resource", "items") +
				histogramSum(t, reg, "mediagw_http_request_duration_seconds", "resource", "item")
			own := histogramSum(t, reg, "mediagw_gateway_own_seconds", "resource", "items") +
				histogramSum(t, reg, "mediagw_gateway_own_seconds", "resource", "item")
			var engine float64
			for _, op := range []string{"search", "item", "totals"} {
				engine += histogramSum(t, reg, "mediagw_backend_duration_seconds", "op", op)
			}
			if totals := metricValue(t, reg, "mediagw_backend_duration_seconds", "op", "totals"); totals != 1 {
				t.Errorf("%v engine calls for totals, want the typo's correction to ask the engine again", totals)
			}
			searches := 3.0
			if cached {
				searches = 2 // the repeated search is answered from memory
			}
			if got := metricValue(t, reg, "mediagw_backend_duration_seconds", "op", "search"); got != searches {
				t.Errorf("%v engine calls for search, want %v", got, searches)
			}
			waited := total - own
			if cached {
				// Each request waited on its calls on another goroutine (search/cache), a moment longer
				// than they took.
				if waited < engine-1e-6 || waited > engine+0.5 {
					t.Errorf("waited on the engine %.6f s, its calls took %.6f s", waited, engine)
				}
			} else if diff := waited - engine; diff > 1e-6 || diff < -1e-6 {
				t.Errorf("own %.6f s + engine %.6f s != total %.6f s", own, engine, total)
			}
			if got := metricValue(t, reg, "mediagw_ratelimit_duration_seconds"); got != 4 {
				t.Errorf("limiter timed %v times, want 4 (health is not counted)", got)
			}
		})
	}
}
