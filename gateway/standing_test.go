package gateway_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/ratelimit"
)

// uncounted are the responses the limit does not count: each must still say where the visitor
// stands, and none may take anything from the visitor's quota.
var uncounted = []struct {
	name    string
	method  string
	target  string
	headers []string
	status  int
}{
	{"405 on the API", http.MethodPost, "/?resource=items", nil, http.StatusMethodNotAllowed},
	{"405 on a QR code", http.MethodDelete, "/qr/ph-full.png", nil, http.StatusMethodNotAllowed},
	{"405 on healthz", http.MethodPut, "/healthz", nil, http.StatusMethodNotAllowed},
	{"405 on openapi.json", http.MethodPatch, "/openapi.json", nil, http.StatusMethodNotAllowed},
	{"unknown path, not GET", http.MethodPost, "/no/such/path", nil, http.StatusNotFound},
	{"preflight", http.MethodOptions, "/?resource=items",
		[]string{"Origin", "https://app.example.com", "Access-Control-Request-Method", "GET"}, http.StatusNoContent},
	{"OPTIONS on a QR code", http.MethodOptions, "/qr/ph-full.png", nil, http.StatusNoContent},
	{"OPTIONS on healthz", http.MethodOptions, "/healthz", nil, http.StatusNoContent},
	{"healthz", http.MethodGet, "/healthz", nil, http.StatusOK},
	{"healthz HEAD", http.MethodHead, "/healthz", nil, http.StatusOK},
	{"readyz", http.MethodGet, "/readyz", nil, http.StatusOK},
	{"readyz HEAD", http.MethodHead, "/readyz", nil, http.StatusOK},
	{"openapi.json", http.MethodGet, "/openapi.json", nil, http.StatusOK},
	{"openapi.json HEAD", http.MethodHead, "/openapi.json", nil, http.StatusOK},
	{"openapi.json 304", http.MethodGet, "/openapi.json", []string{"If-None-Match", "*"}, http.StatusNotModified},
}

// countedTarget is a cheap request the limit counts.
const countedTarget = "/?resource=categories"

// standingPolicy drains one request every 20s: the tests against Redis, in real time, finish
// long before a request drains, so every count is exact.
var standingPolicy = ratelimit.Policy{Limit: 3, Window: time.Minute}

// standing is what the rate-limit headers of a response must say.
type standing struct {
	remaining int
	// retry is t; reset is X-RateLimit-Reset: both in whole seconds, each at most its value and,
	// when exact is false, more than its value minus 2 (real time passes between Redis calls).
	retry, reset int
	exact        bool
}

func checkStanding(t *testing.T, what string, rec *httptest.ResponseRecorder, want standing) {
	t.Helper()
	hd := rec.Header()
	if got, wantPolicy := hd.Get("RateLimit-Policy"), fmt.Sprintf(`"default";q=%d;w=%d`, standingPolicy.Limit, int(standingPolicy.Window.Seconds())); got != wantPolicy {
		t.Errorf("%s: RateLimit-Policy %q, want %q", what, got, wantPolicy)
	}
	var r, retry int
	if _, err := fmt.Sscanf(hd.Get("RateLimit"), `"default";r=%d;t=%d`, &r, &retry); err != nil {
		t.Errorf("%s: RateLimit %q: %v", what, hd.Get("RateLimit"), err)
		return
	}
	reset, err := strconv.Atoi(hd.Get("X-RateLimit-Reset"))
	if err != nil {
		t.Errorf("%s: X-RateLimit-Reset %q", what, hd.Get("X-RateLimit-Reset"))
		return
	}
	ok := r == want.remaining && secondsMatch(retry, want.retry, want.exact) && secondsMatch(reset, want.reset, want.exact) &&
		hd.Get("X-RateLimit-Limit") == strconv.Itoa(standingPolicy.Limit) && hd.Get("X-RateLimit-Remaining") == strconv.Itoa(r)
	if !ok {
		t.Errorf("%s: RateLimit %q, X-RateLimit-Limit %q, -Remaining %q, -Reset %q; want r=%d, t=%d, reset %d (exact %v)",
			what, hd.Get("RateLimit"), hd.Get("X-RateLimit-Limit"), hd.Get("X-RateLimit-Remaining"), hd.Get("X-RateLimit-Reset"),
			want.remaining, want.retry, want.reset, want.exact)
	}
}

// secondsMatch compares whole seconds rounded up: exactly, or allowing for the real time that
// passed (up to 2s; a zero stays zero).
func secondsMatch(got, want int, exact bool) bool {
	if exact || want == 0 {
		return got == want
	}
	return got <= want && got > want-2
}

// runStanding plays one visitor's history: uncounted responses before any request, after one,
// after the limit is used up; then a visitor never seen. hasState says whether the limiter
// keeps anything for a visitor (called with the harness's default visitor).
func runStanding(t *testing.T, h *harness, exact bool, hasState func(visitor string) bool) {
	const visitor = "203.0.113.10" // the harness's default
	emission := int(math.Ceil((standingPolicy.Window / time.Duration(standingPolicy.Limit)).Seconds()))
	allUncounted := func(step string, want standing) {
		t.Helper()
		for _, tc := range uncounted {
			for i := range 3 {
				rec := h.do(tc.method, tc.target, tc.headers...)
				what := fmt.Sprintf("%s: %s %s #%d", step, tc.method, tc.target, i+1)
				if rec.Code != tc.status {
					t.Fatalf("%s: status %d, want %d: %s", what, rec.Code, tc.status, rec.Body)
				}
				checkStanding(t, what, rec, want)
			}
		}
	}

	allUncounted("before any request", standing{remaining: 3, exact: exact})
	if hasState(visitor) {
		t.Fatalf("uncounted responses created state for a visitor who had none")
	}

	for i := range standingPolicy.Limit {
		rec := h.get(countedTarget)
		if rec.Code != http.StatusOK {
			t.Fatalf("counted request %d: status %d", i+1, rec.Code)
		}
		left := standingPolicy.Limit - 1 - i
		retry := 0
		if left == 0 {
			retry = emission
		}
		want := standing{remaining: left, retry: retry, reset: (i + 1) * emission, exact: exact}
		checkStanding(t, fmt.Sprintf("counted request %d", i+1), rec, want)
		allUncounted(fmt.Sprintf("after %d counted", i+1), want)
	}
	if !hasState(visitor) {
		t.Fatalf("counted requests kept no state")
	}

	rec := h.get(countedTarget)
	expectProblem(t, rec, http.StatusTooManyRequests, "rate-limited")
	limited := standing{retry: emission, reset: standingPolicy.Limit * emission, exact: exact}
	checkStanding(t, "429", rec, limited)
	allUncounted("limited", limited)

	// Someone else is untouched, and stays without state.
	for _, tc := range uncounted {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		for i := 0; i+1 < len(tc.headers); i += 2 {
			req.Header.Set(tc.headers[i], tc.headers[i+1])
		}
		req.RemoteAddr = "198.51.100.200:1"
		rec := httptest.NewRecorder()
		h.h.ServeHTTP(rec, req)
		checkStanding(t, "another visitor: "+tc.name, rec, standing{remaining: 3, exact: exact})
	}
	if hasState("198.51.100.200") {
		t.Fatalf("uncounted responses created state for another visitor")
	}
}

var openAPIDoc = []byte(`{"openapi":"3.1.0"}`)

func TestUncountedResponsesCarryStanding(t *testing.T) {
	mem := ratelimit.NewMemory(standingPolicy, fixedNow)
	h := newHarness(t, withConfig(func(c *gateway.Config) { c.RatePolicy = standingPolicy; c.OpenAPI = openAPIDoc }),
		withLimiter(mem))
	runStanding(t, h, true, func(visitor string) bool {
		// The default visitor is the only one ever counted.
		if visitor == "203.0.113.10" {
			return mem.Len() > 0
		}
		return mem.Len() > 1
	})
}

func TestUncountedResponsesCarryStandingFromRedis(t *testing.T) {
	c := redisClient(t, redisURL(t))
	prefix := fmt.Sprintf("mediagw-test:%s:%s:", t.Name(), rand.Text()[:10])
	r, err := ratelimit.NewRedis(c, standingPolicy, ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(limiterTimeout))
	if err != nil {
		t.Fatal(err)
	}
	fb := ratelimit.NewFallback(r, ratelimit.NewMemory(standingPolicy, nil), zap.NewNop())
	fbReg := prometheus.NewPedanticRegistry()
	fbReg.MustRegister(fb)
	h := newHarness(t, withConfig(func(c *gateway.Config) {
		c.RatePolicy = standingPolicy
		c.OpenAPI = openAPIDoc
		c.LimiterTimeout = limiterTimeout
	}), withLimiter(fb))
	runStanding(t, h, false, func(visitor string) bool {
		n, err := c.Exists(t.Context(), "rate:"+prefix+visitor).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	if n := metricValue(t, fbReg, "mediagw_ratelimit_fallback_total"); n != 0 {
		t.Errorf("%v requests decided in process: Redis was not the one answering", n)
	}
}

// failingInspect counts like Memory but cannot inspect, as a limiter whose store is gone.
type failingInspect struct{ *ratelimit.Memory }

func (failingInspect) Inspect(context.Context, string) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("redis: connection refused")
}

// panickingInspect is a limiter whose inspection panics.
type panickingInspect struct{ *ratelimit.Memory }

func (panickingInspect) Inspect(context.Context, string) (ratelimit.Decision, error) {
	panic("inspect boom")
}

// allowOnly is a Limiter that is no Inspector.
type allowOnly struct{ m *ratelimit.Memory }

func (a allowOnly) Allow(ctx context.Context, key string) (ratelimit.Decision, error) {
	return a.m.Allow(ctx, key)
}

func TestUncountedResponsesWithoutStanding(t *testing.T) {
	for _, tc := range []struct {
		name    string
		limiter ratelimit.Decider
		// policy: the response still names the policy, as a counted one whose limiter failed.
		policy bool
		warned bool
	}{
		{"inspection fails", failingInspect{ratelimit.NewMemory(standingPolicy, fixedNow)}, true, true},
		{"inspection panics", panickingInspect{ratelimit.NewMemory(standingPolicy, fixedNow)}, true, true},
		{"no Inspector", allowOnly{ratelimit.NewMemory(standingPolicy, fixedNow)}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withConfig(func(c *gateway.Config) { c.RatePolicy = standingPolicy; c.OpenAPI = openAPIDoc }), withLimiter(tc.limiter))
			for _, u := range uncounted {
				rec := h.do(u.method, u.target, u.headers...)
				if rec.Code != u.status {
					t.Fatalf("%s: status %d, want %d", u.name, rec.Code, u.status)
				}
				for _, k := range []string{"RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
					if v := rec.Header().Get(k); v != "" {
						t.Errorf("%s: %s %q without a standing", u.name, k, v)
					}
				}
				if got := rec.Header().Get("RateLimit-Policy") != ""; got != tc.policy {
					t.Errorf("%s: RateLimit-Policy %q, want it present: %v", u.name, rec.Header().Get("RateLimit-Policy"), tc.policy)
				}
			}
			warned := h.logs.FilterMessage("rate limiter failed; response sent without the visitor's standing").Len()
			if (warned > 0) != tc.warned {
				t.Errorf("%d warnings, want some: %v", warned, tc.warned)
			}
			// Counting still works.
			checkStanding(t, "counted", h.get(countedTarget), standing{remaining: 2, reset: 20, exact: true})
		})
	}
}
