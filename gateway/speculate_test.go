package gateway_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/ratelimit"
	"mediagw/search"
)

// The limiters cmd/mediagw gives the gateway with Redis are Speculators: their requests are speculated.
var (
	_ ratelimit.Speculator = (*ratelimit.Shadow)(nil)
	_ ratelimit.Speculator = (*ratelimit.Fallback)(nil)
)

// speculatePolicy leaves a margin of 2 (a tenth of 20) for speculation.
var speculatePolicy = ratelimit.Policy{Limit: 20, Window: 10 * time.Minute}

// serialOnly hides that its limiter is a Speculator: the gateway decides every request before its
// handler runs, as without speculation.
type serialOnly struct{ ratelimit.Limiter }

// remembered is a fake shared limiter with the replica's visitor memory, which learns its answers
// as ratelimit.Fallback's does Redis's; its own answers, failures included, reach the gateway as
// they are.
type remembered struct {
	ratelimit.Decider
	mem *ratelimit.Memory
}

func remember(l ratelimit.Decider) *remembered {
	return &remembered{l, ratelimit.NewMemory(speculatePolicy, nil)}
}

func (r *remembered) Remote() bool { return true }

func (r *remembered) Allow(ctx context.Context, key string) (ratelimit.Decision, error) {
	asked := time.Now()
	d, err := r.Decider.Allow(ctx, key)
	if err == nil {
		r.mem.Learn(key, asked, d.ResetAfter)
	}
	return d, err
}

func (r *remembered) Reserve(ctx context.Context, key string) bool { return r.mem.Reserve(ctx, key) }

func (r *remembered) Release(key string) { r.mem.Release(key) }

// redisFallback is the limiter cmd/mediagw builds on Redis, keys under a prefix of its own.
func redisFallback(t *testing.T, policy ratelimit.Policy) (*ratelimit.Fallback, string) {
	t.Helper()
	prefix := fmt.Sprintf("mediagw-test:%s:%s:", t.Name(), rand.Text()[:10])
	r, err := ratelimit.NewRedis(redisClient(t, redisURL(t)), policy, ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(limiterTimeout))
	if err != nil {
		t.Fatal(err)
	}
	return ratelimit.NewFallback(r, ratelimit.NewMemory(policy, nil), zap.NewNop()), prefix
}

func speculateConfig(c *gateway.Config) {
	c.RatePolicy = speculatePolicy
	c.LimiterTimeout = limiterTimeout
}

// TestSpeculatedAnswersAsSerial: a visitor with plenty left gets, through a gateway that
// speculates, exactly the answers (status, headers, body) a gateway deciding first gives the same
// visitor with the same history, whatever the resource, error, method or encoding.
func TestSpeculatedAnswersAsSerial(t *testing.T) {
	specLimiter, _ := redisFallback(t, speculatePolicy)
	serialLimiter, _ := redisFallback(t, speculatePolicy)
	specReg := prometheus.NewPedanticRegistry()
	spec := newHarness(t, withConfig(speculateConfig), withLimiter(specLimiter), withMetrics(specReg))
	serial := newHarness(t, withConfig(speculateConfig), withLimiter(serialOnly{serialLimiter}), withMetrics(prometheus.NewPedanticRegistry()))
	item := spec.all[0].ID
	etag := spec.get("/?resource=item&id=" + item).Header().Get("ETag")
	serial.get("/?resource=item&id=" + item)

	gzip := []string{"Accept-Encoding", "gzip", "X-Request-Id", "speculate-test-0001"}
	for _, tc := range []struct {
		name, method, target string
		headers              []string
	}{
		{"search, gzip", http.MethodGet, "/?resource=items&q=river&per_page=20", gzip},
		{"search, HEAD", http.MethodHead, "/?resource=items&q=river&per_page=20", gzip},
		{"item", http.MethodGet, "/?resource=item&id=" + item, gzip},
		{"item not modified", http.MethodGet, "/?resource=item&id=" + item, append([]string{"If-None-Match", etag}, gzip...)},
		{"categories", http.MethodGet, "/?resource=categories", gzip},
		{"QR code", http.MethodGet, "/qr/" + item + ".png", gzip},
		{"bad parameter", http.MethodGet, "/?resource=items&per_page=0", gzip},
		{"unknown item", http.MethodGet, "/?resource=item&id=no-such-item", gzip},
		{"unknown path", http.MethodGet, "/nowhere", gzip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := metricValue(t, specReg, "mediagw_ratelimit_speculated_total", "result", "allowed")
			got := spec.do(tc.method, tc.target, tc.headers...)
			want := serial.do(tc.method, tc.target, tc.headers...)
			if n := metricValue(t, specReg, "mediagw_ratelimit_speculated_total", "result", "allowed"); n != before+1 {
				t.Fatalf("speculated allowed %v times, want 1: the request was not speculated", n-before)
			}
			sameResponse(t, got, want)
		})
	}
}

// sameResponse compares two responses whole. X-RateLimit-Reset counts down the visitor's time in
// whole seconds from its first request, which the two gateways saw a moment apart: it may be one off.
func sameResponse(t *testing.T, got, want *httptest.ResponseRecorder) {
	t.Helper()
	if got.Code != want.Code {
		t.Errorf("status %d, want %d", got.Code, want.Code)
	}
	if got.Body.String() != want.Body.String() {
		t.Errorf("body\n%s\nwant\n%s", got.Body, want.Body)
	}
	g, w := got.Header().Clone(), want.Header().Clone()
	gr, _ := strconv.Atoi(g.Get("X-RateLimit-Reset"))
	wr, _ := strconv.Atoi(w.Get("X-RateLimit-Reset"))
	if gr < wr-1 || gr > wr+1 {
		t.Errorf("X-RateLimit-Reset %d, want %d", gr, wr)
	}
	g.Del("X-RateLimit-Reset")
	w.Del("X-RateLimit-Reset")
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range g {
			yield(k)
		}
		for k := range w {
			if _, ok := g[k]; !ok {
				yield(k)
			}
		}
	})
	for _, k := range keys {
		if !slices.Equal(g[k], w[k]) {
			t.Errorf("header %s: %q, want %q", k, g[k], w[k])
		}
	}
}

// recordingBackend notes every search of words that reaches it, and holds each until its context
// ends: such a search answers only when the request is cancelled.
type recordingBackend struct {
	search.Backend
	searches atomic.Int64
	// ended receives why each search's context ended.
	ended chan error
}

func (b *recordingBackend) Search(ctx context.Context, r *search.Request) (search.Result, error) {
	if r.Query.Text == "" {
		// The live owner's question of the languages held, asked in the background.
		return b.Backend.Search(ctx, r)
	}
	b.searches.Add(1)
	<-ctx.Done()
	b.ended <- context.Cause(ctx)
	return search.Result{}, ctx.Err()
}

// TestSpeculatedRequestRefused: a visitor this replica last saw with plenty left spent it on other
// replicas meanwhile. Its request is speculated, refused by Redis, and gets the 429 the serial path
// gives, with nothing of the handler's answer; the handler's engine call is cancelled at once.
func TestSpeculatedRequestRefused(t *testing.T) {
	limiter, prefix := redisFallback(t, speculatePolicy)
	backend := &recordingBackend{ended: make(chan error, 1)}
	spec := newHarness(t, withConfig(speculateConfig), withLimiter(limiter),
		withBackend(func(b search.Backend) search.Backend { backend.Backend = b; return backend }))
	serialLimiter, _ := redisFallback(t, speculatePolicy)
	serial := newHarness(t, withConfig(speculateConfig), withLimiter(serialOnly{serialLimiter}))
	item := spec.all[0].ID

	// The visitor's first request leaves it 19: the gateway remembers that.
	if rec := spec.get("/?resource=item&id=" + item); rec.Code != http.StatusOK {
		t.Fatalf("first request: status %d: %s", rec.Code, rec.Body)
	}
	// Another replica counts the other 19 in Redis.
	other, err := ratelimit.NewRedis(redisClient(t, redisURL(t)), speculatePolicy, ratelimit.WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	for range speculatePolicy.Limit - 1 {
		if _, err := other.Allow(t.Context(), "203.0.113.10"); err != nil {
			t.Fatal(err)
		}
	}
	// The serial gateway's visitor in the same state.
	for range speculatePolicy.Limit {
		serial.get("/?resource=item&id=" + item)
	}

	target := "/?resource=items&q=river"
	headers := []string{"Accept-Encoding", "gzip", "X-Request-Id", "speculate-test-0002"}
	got := spec.get(target, headers...)
	if n := backend.searches.Load(); n != 1 {
		t.Fatalf("the backend was asked %d times, want 1: the request was not speculated", n)
	}
	if cause := <-backend.ended; !errors.Is(cause, context.Canceled) {
		t.Errorf("the speculated search ended with %v, want it cancelled by the refusal", cause)
	}
	expectProblem(t, got, http.StatusTooManyRequests, "rate-limited")
	// Nothing the handler would have sent: its links, validators, caching and encoding.
	for _, k := range []string{"Link", "ETag", "Cache-Status", "Content-Encoding"} {
		if v := got.Header().Values(k); v != nil {
			t.Errorf("the 429 carries the handler's %s %q", k, v)
		}
	}
	want := serial.get(target, headers...)
	// Retry-After counts down the time one request drains, from requests made a moment apart.
	for _, rec := range []*httptest.ResponseRecorder{got, want} {
		rec.Header().Del("Retry-After")
		rec.Header().Del("RateLimit")
	}
	got.Body, want.Body = nil, nil
	sameResponse(t, got, want)
}

// gatedLimiter answers with remaining, or fails with err; while blocking is set, each Allow waits
// for the backend to be asked, up to patience, and then notes whether it was.
type gatedLimiter struct {
	remaining int
	err       error
	blocking  bool
	asked     chan struct{}
	patience  time.Duration
	// askedFirst notes, per call, whether the backend was asked before the decision.
	mu         sync.Mutex
	askedFirst []bool
}

func (l *gatedLimiter) Allow(ctx context.Context, _ string) (ratelimit.Decision, error) {
	if l.blocking {
		first := false
		select {
		case <-l.asked:
			first = true
		case <-time.After(l.patience):
		}
		l.mu.Lock()
		l.askedFirst = append(l.askedFirst, first)
		l.mu.Unlock()
	}
	if l.err != nil {
		return ratelimit.Decision{}, l.err
	}
	return ratelimit.Decision{Allowed: true, Limit: speculatePolicy.Limit, Remaining: l.remaining,
		ResetAfter: time.Duration(speculatePolicy.Limit-l.remaining) * time.Minute / 2}, nil
}

// askingBackend signals each item lookup.
type askingBackend struct {
	search.Backend
	asked chan struct{}
}

func (b askingBackend) Item(ctx context.Context, id string) (search.Item, error) {
	select {
	case b.asked <- struct{}{}:
	default:
	}
	return b.Backend.Item(ctx, id)
}

// TestSpeculationNeedsEvidence: only a visitor whose last decision here left it at least the
// margin is speculated; an unknown one, or one below the margin, is decided before the handler
// runs. The limiter waits (up to a generous bound) for the backend: a speculated handler asks it
// meanwhile, a serial one cannot.
func TestSpeculationNeedsEvidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		// known is what the visitor's previous request left it; -1 for no previous request.
		known      int
		speculated bool
	}{
		{"unknown visitor", -1, false},
		{"below the margin", 1, false},
		{"out of requests", 0, false},
		{"at the margin", 2, true},
		{"plenty left", 15, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			asked := make(chan struct{}, 1)
			lim := &gatedLimiter{asked: asked, patience: 2 * time.Second}
			h := newHarness(t, withConfig(speculateConfig), withLimiter(remember(lim)),
				withBackend(func(b search.Backend) search.Backend { return askingBackend{b, asked} }))
			target := "/?resource=item&id=" + h.all[0].ID
			if tc.known >= 0 {
				lim.remaining = tc.known
				h.get(target)
				<-asked
			}
			lim.remaining, lim.blocking = 10, true
			if rec := h.get(target); rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if got := lim.askedFirst; len(got) != 1 || got[0] != tc.speculated {
				t.Errorf("backend asked before the decision: %v, want %v", got, tc.speculated)
			}
		})
	}
}

// stuckLimiter ignores its context and answers only when released.
type stuckLimiter struct{ release chan struct{} }

func (l stuckLimiter) Allow(context.Context, string) (ratelimit.Decision, error) {
	<-l.release
	return ratelimit.Decision{}, errors.New("too late")
}

// switchLimiter answers as known until failing is set, then as failing does.
type switchLimiter struct {
	known   ratelimit.Decider
	failing ratelimit.Decider
	failed  atomic.Bool
}

func (l *switchLimiter) Allow(ctx context.Context, key string) (ratelimit.Decision, error) {
	if l.failed.Load() {
		return l.failing.Allow(ctx, key)
	}
	return l.known.Allow(ctx, key)
}

type limiterFunc func(context.Context, string) (ratelimit.Decision, error)

func (f limiterFunc) Allow(ctx context.Context, key string) (ratelimit.Decision, error) {
	return f(ctx, key)
}

// TestSpeculatedLimiterFailureLetsThrough: when the decision of a speculated request fails, is
// late past the limiter timeout (even from a limiter that ignores it) or panics, the handler's
// answer goes out as it would have, without the visitor's standing, and the failure is logged.
func TestSpeculatedLimiterFailureLetsThrough(t *testing.T) {
	stuck := stuckLimiter{release: make(chan struct{})}
	t.Cleanup(func() { close(stuck.release) })
	for _, tc := range []struct {
		name    string
		failing ratelimit.Decider
	}{
		{"error", limiterFunc(func(context.Context, string) (ratelimit.Decision, error) {
			return ratelimit.Decision{}, errors.New("redis: connection refused")
		})},
		{"past the timeout", stuck},
		{"panic", limiterFunc(func(context.Context, string) (ratelimit.Decision, error) { panic("limiter boom") })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim := &switchLimiter{known: ratelimit.NewMemory(speculatePolicy, fixedNow), failing: tc.failing}
			reg := prometheus.NewPedanticRegistry()
			h := newHarness(t, withConfig(func(c *gateway.Config) {
				c.RatePolicy = speculatePolicy
				c.LimiterTimeout = 50 * time.Millisecond
			}), withLimiter(remember(lim)), withMetrics(reg))
			target := "/?resource=item&id=" + h.all[0].ID
			want := h.get(target)
			lim.failed.Store(true)
			got := h.get(target)
			if metricValue(t, reg, "mediagw_ratelimit_speculated_total", "result", "failed") != 1 {
				t.Fatal("the request was not speculated")
			}
			if got.Code != http.StatusOK || got.Body.String() != want.Body.String() {
				t.Fatalf("status %d, body %s; want 200 and the item", got.Code, got.Body)
			}
			if p := got.Header().Get("RateLimit-Policy"); p == "" {
				t.Error("no RateLimit-Policy")
			}
			for _, k := range []string{"RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				if v := got.Header().Values(k); v != nil {
					t.Errorf("%s %q without a decision", k, v)
				}
			}
			if n := h.logs.FilterMessage("rate limiter failed; request let through").Len(); n != 1 {
				t.Errorf("%d warnings logged, want 1", n)
			}
		})
	}
}

// manyAuthors lists n authors: an authors list many times the bytes a held answer may grow to.
type manyAuthors struct {
	search.Backend
	n int
}

func (b manyAuthors) Authors(context.Context, search.Query) ([]search.Author, error) {
	out := make([]search.Author, b.n)
	for i := range out {
		out[i] = search.Author{Name: fmt.Sprintf("Author number %06d of a long list", i), Count: 1}
	}
	return out, nil
}

// refusingLimiter allows, with plenty left, until refuse is set; then it refuses.
type refusingLimiter struct{ refuse atomic.Bool }

func (l *refusingLimiter) Allow(context.Context, string) (ratelimit.Decision, error) {
	if l.refuse.Load() {
		return ratelimit.Decision{Limit: speculatePolicy.Limit, RetryAfter: time.Minute, ResetAfter: 10 * time.Minute}, nil
	}
	return ratelimit.Decision{Allowed: true, Limit: speculatePolicy.Limit, Remaining: speculatePolicy.Limit - 1, ResetAfter: 30 * time.Second}, nil
}

// TestSpeculatedLargeAnswer: an answer past the bytes a speculated request may hold goes out as
// the serial gateway sends it (it waits for the decision at its first write past them); refused,
// none of it does and the visitor gets the 429.
func TestSpeculatedLargeAnswer(t *testing.T) {
	authors := func(b search.Backend) search.Backend { return manyAuthors{b, 10000} }
	specLimiter := &refusingLimiter{}
	specReg := prometheus.NewPedanticRegistry()
	spec := newHarness(t, withConfig(speculateConfig), withLimiter(remember(specLimiter)), withMetrics(specReg), withBackend(authors))
	serial := newHarness(t, withConfig(speculateConfig), withLimiter(limiterFunc((&refusingLimiter{}).Allow)), withBackend(authors))
	// The first request makes the visitor known; the next ones are speculated.
	spec.get("/?resource=categories")
	serial.get("/?resource=categories")
	for _, enc := range []string{"identity", "gzip"} {
		t.Run(enc, func(t *testing.T) {
			before := metricValue(t, specReg, "mediagw_ratelimit_speculated_total", "result", "allowed")
			headers := []string{"Accept-Encoding", enc, "X-Request-Id", "speculate-test-large"}
			got := spec.get("/?resource=authors", headers...)
			if n := metricValue(t, specReg, "mediagw_ratelimit_speculated_total", "result", "allowed"); n != before+1 {
				t.Fatalf("speculated allowed %v times, want 1", n-before)
			}
			if enc == "identity" && got.Body.Len() <= 64<<10 {
				t.Fatalf("the authors list is %d bytes: too small to pass what a request may hold", got.Body.Len())
			}
			sameResponse(t, got, serial.get("/?resource=authors", headers...))
		})
	}
	t.Run("refused", func(t *testing.T) {
		specLimiter.refuse.Store(true)
		before := metricValue(t, specReg, "mediagw_ratelimit_speculated_total", "result", "limited")
		got := spec.get("/?resource=authors", "Accept-Encoding", "identity")
		if n := metricValue(t, specReg, "mediagw_ratelimit_speculated_total", "result", "limited"); n != before+1 {
			t.Fatalf("speculated limited %v times, want 1", n-before)
		}
		expectProblem(t, got, http.StatusTooManyRequests, "rate-limited")
		if strings.Contains(got.Body.String(), "Author number") {
			t.Error("the 429 carries part of the refused answer")
		}
	})
}
