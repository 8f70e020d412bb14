package gateway_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"mediagw/gateway"
	"mediagw/openapi"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/cache"
	"mediagw/search/searchtest"
)

const exposed = "ETag, Link, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id"

// expectProblem checks what every error response shares and returns its body.
func expectProblem(t *testing.T, rec *httptest.ResponseRecorder, status int, slug string) problemBody {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	hd := rec.Header()
	if ct := hd.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	if cc := hd.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if hd.Get("Access-Control-Allow-Origin") != "*" || hd.Get("ETag") != "" {
		t.Errorf("CORS %q, ETag %q", hd.Get("Access-Control-Allow-Origin"), hd.Get("ETag"))
	}
	p := decode[problemBody](t, rec)
	if p.Status != status || !strings.HasPrefix(p.Type, publicURL+"/") || !strings.HasSuffix(p.Type, "/problems/"+slug) || p.Title == "" || p.Detail == "" {
		t.Errorf("problem %+v, want status %d type %s", p, status, slug)
	}
	if p.RequestID == "" || p.RequestID != hd.Get("X-Request-Id") {
		t.Errorf("request_id %q, header %q", p.RequestID, hd.Get("X-Request-Id"))
	}
	return p
}

func TestMethods(t *testing.T) {
	h := newHarness(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "PROPFIND"} {
		for _, path := range []string{"/?resource=items", "/qr/ph-full.png", "/healthz"} {
			rec := h.do(m, path)
			expectProblem(t, rec, http.StatusMethodNotAllowed, "method-not-allowed")
			if got := rec.Header().Get("Allow"); got != "GET, HEAD, OPTIONS" {
				t.Errorf("%s %s: Allow %q", m, path, got)
			}
		}
	}
	expectProblem(t, h.get("/no/such/path"), http.StatusNotFound, "not-found")
	expectProblem(t, h.get("/index.html?resource=items"), http.StatusNotFound, "not-found")
}

// TestExposedHeaders: every response lets scripts of any origin read the contract's headers and
// the older rate-limit ones, and never Cache-Status or Age, which would tell a page that someone
// else searched the same query lately; the headers themselves are still sent.
func TestExposedHeaders(t *testing.T) {
	h := newHarness(t, withCache(cache.Options{TTL: time.Minute}))
	want := append(strings.Split(exposed, ", "), "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
	slices.Sort(want)
	tests := []struct {
		name, method, target, cacheStatus string
	}{
		{"a search the engine answered", http.MethodGet, "/?resource=items&q=harbour&per_page=3", "mediagw; fwd=miss"},
		{"the same search from the cache", http.MethodGet, "/?resource=items&q=harbour&per_page=3", "mediagw; hit"},
		{"an item not found", http.MethodGet, "/?resource=item&id=no-such-id", "mediagw; fwd=miss"},
		{"a bad parameter", http.MethodGet, "/?resource=items&page=0", ""},
		{"a preflight", http.MethodOptions, "/?resource=items", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := h.do(tt.method, tt.target, "Origin", "https://app.example.com", "Access-Control-Request-Method", "GET")
			var got []string
			for _, name := range strings.Split(rec.Header().Get("Access-Control-Expose-Headers"), ",") {
				got = append(got, strings.TrimSpace(name))
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("Access-Control-Expose-Headers %q, want %q", got, want)
			}
			if cs := rec.Header().Get("Cache-Status"); cs != tt.cacheStatus {
				t.Errorf("Cache-Status %q, want %q (sent, if not exposed)", cs, tt.cacheStatus)
			}
		})
	}
}

func TestCORS(t *testing.T) {
	h := newHarness(t, withConfig(func(c *gateway.Config) { c.RatePolicy.Limit = 1 }),
		withLimiter(ratelimit.NewMemory(ratelimit.Policy{Limit: 1, Window: time.Minute}, fixedNow)))
	for i := range 3 {
		rec := h.do(http.MethodOptions, "/?resource=items",
			"Origin", "https://app.example.com", "Access-Control-Request-Method", "GET",
			"Access-Control-Request-Headers", "If-None-Match, X-Request-Id")
		hd := rec.Header()
		if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
			t.Fatalf("preflight %d: status %d, body %q", i, rec.Code, rec.Body)
		}
		if hd.Get("Access-Control-Allow-Origin") != "*" || hd.Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" ||
			hd.Get("Access-Control-Allow-Headers") != "If-None-Match, X-Request-Id" || hd.Get("Access-Control-Max-Age") == "" {
			t.Errorf("preflight headers %v", hd)
		}
		// Not counted, but it says where the visitor stands: the one request is still there.
		if hd.Get("RateLimit") != `"default";r=1;t=0` {
			t.Errorf("preflight %d: RateLimit %q, want the visitor's one request left", i, hd.Get("RateLimit"))
		}
	}
	// The preflights above did not use the visitor's one request.
	ok := h.get("/?resource=categories")
	limited := h.get("/?resource=categories")
	bad := h.do(http.MethodPost, "/")
	for name, rec := range map[string]*httptest.ResponseRecorder{"success": ok, "429": limited, "405": bad} {
		if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no Access-Control-Allow-Origin", name)
		}
		got := rec.Header().Get("Access-Control-Expose-Headers")
		for _, want := range strings.Split(exposed, ", ") {
			if !strings.Contains(got, want) {
				t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", name, got, want)
			}
		}
	}
	if ok.Code != http.StatusOK || limited.Code != http.StatusTooManyRequests {
		t.Errorf("statuses %d, %d; want 200, 429", ok.Code, limited.Code)
	}
}

func TestCaching(t *testing.T) {
	h := newHarness(t)
	for target, maxAge := range map[string]string{
		"/?resource=items":           "60",
		"/?resource=item&id=ph-full": "300",
		"/?resource=categories":      "300",
		"/?resource=authors":         "300",
		"/qr/ph-full.png":            "86400",
	} {
		first := h.get(target, "Accept-Encoding", "gzip")
		etag := first.Header().Get("ETag")
		if first.Code != http.StatusOK || !strings.HasPrefix(etag, `W/"`) {
			t.Fatalf("%s: status %d, ETag %q", target, first.Code, etag)
		}
		if cc := first.Header().Get("Cache-Control"); cc != "private, max-age="+maxAge {
			t.Errorf("%s: Cache-Control %q", target, cc)
		}
		for _, inm := range []string{etag, strings.TrimPrefix(etag, "W/"), `"other", ` + etag, "*"} {
			again := h.get(target, "Accept-Encoding", "gzip", "If-None-Match", inm)
			if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
				t.Errorf("%s If-None-Match %s: status %d, %d bytes", target, inm, again.Code, again.Body.Len())
			}
			for _, k := range []string{"ETag", "Cache-Control", "Vary"} {
				if again.Header().Get(k) != first.Header().Get(k) {
					t.Errorf("%s: 304 %s %q, 200 had %q", target, k, again.Header().Get(k), first.Header().Get(k))
				}
			}
		}
		if other := h.get(target, "If-None-Match", `W/"stale"`); other.Code != http.StatusOK {
			t.Errorf("%s: stale If-None-Match got %d", target, other.Code)
		}
	}
	t.Run("ETag follows the content", func(t *testing.T) {
		a := h.get("/?resource=items&page=1").Header().Get("ETag")
		b := h.get("/?resource=items&page=2").Header().Get("ETag")
		c := h.get("/?resource=items&page=1").Header().Get("ETag")
		if a == b || a != c {
			t.Errorf("ETags %s %s %s", a, b, c)
		}
	})
}

func TestGzip(t *testing.T) {
	h := newHarness(t)
	plain := h.get("/?resource=items&per_page=50")
	// A coding the gateway does not send, preferred, leaves gzip.
	zipped := h.get("/?resource=items&per_page=50", "Accept-Encoding", "deflate;q=1, gzip;q=0.8")
	if plain.Header().Get("Content-Encoding") != "" || zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding plain %q, zipped %q", plain.Header().Get("Content-Encoding"), zipped.Header().Get("Content-Encoding"))
	}
	for _, rec := range []*httptest.ResponseRecorder{plain, zipped} {
		if !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
			t.Errorf("Vary %q lacks Accept-Encoding", rec.Header().Get("Vary"))
		}
	}
	if got := zipped.Header().Get("Content-Length"); got != itoa(zipped.Body.Len()) {
		t.Errorf("Content-Length %s for %d bytes", got, zipped.Body.Len())
	}
	if !bytes.Equal(gunzip(t, zipped), plain.Body.Bytes()) || plain.Header().Get("ETag") != zipped.Header().Get("ETag") {
		t.Errorf("gzip changed the content or the ETag")
	}
	if r := h.get("/?resource=items&per_page=50", "Accept-Encoding", "gzip;q=0"); r.Header().Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 still compressed")
	}
	small := h.get("/healthz", "Accept-Encoding", "gzip")
	if small.Header().Get("Content-Encoding") != "" {
		t.Errorf("a body under the minimum size was compressed")
	}
}

// TestCompression: the coding is the client's preference by q-value, zstd before br before gzip
// among equals; each decodes to the plain body and carries its ETag, Vary and Content-Length.
func TestCompression(t *testing.T) {
	// A page of results is compressed per response; the OpenAPI document once (and the problem
	// pages, under the 1 KiB minimum, never).
	h := newHarness(t, withConfig(func(c *gateway.Config) { c.OpenAPI = openapi.Document }))
	for _, target := range []string{"/?resource=items&per_page=50", "/openapi.json"} {
		checkCompression(t, h, target)
	}
}

func checkCompression(t *testing.T, h *harness, target string) {
	t.Helper()
	plain := h.get(target)
	for accept, want := range map[string]string{
		"zstd":                             "zstd",
		"br":                               "br",
		"gzip":                             "gzip",
		"x-gzip":                           "gzip",
		"gzip, deflate, br, zstd":          "zstd",
		"gzip, deflate, br":                "br",
		"br;q=0.9, gzip":                   "gzip",
		"zstd;q=0.5, br;q=0.6, gzip;q=0.4": "br",
		"zstd;q=0.5, br;q=0.5, gzip;q=0.5": "zstd",
		"gzip;q=0.8, br;q=0.8":             "br",
		"*":                                "zstd",
		"*, zstd;q=0":                      "br",
		"*;q=0.5, gzip":                    "gzip",
		"identity":                         "",
		"deflate":                          "",
		"zstd;q=0, br;q=0, gzip;q=0, *":    "",
		"ZSTD;Q=0.001, gzip;q=0":           "zstd",
	} {
		rec := h.get(target, "Accept-Encoding", accept)
		if got := rec.Header().Get("Content-Encoding"); got != want {
			t.Errorf("%s, Accept-Encoding %q: Content-Encoding %q, want %q", target, accept, got, want)
			continue
		}
		if !bytes.Equal(decompress(t, rec), plain.Body.Bytes()) || rec.Header().Get("ETag") != plain.Header().Get("ETag") ||
			!strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") || rec.Header().Get("Content-Length") != itoa(rec.Body.Len()) {
			t.Errorf("%s, Accept-Encoding %q: %s changed the content, ETag, Vary or Content-Length: %v", target, accept, want, rec.Header())
		}
		if want != "" && rec.Body.Len() >= plain.Body.Len() {
			t.Errorf("%s in %s: %d bytes, plain %d", target, want, rec.Body.Len(), plain.Body.Len())
		}
	}
}

func TestHEAD(t *testing.T) {
	h := newHarness(t)
	for _, target := range []string{"/?resource=items&q=harbour", "/?resource=item&id=ph-full", "/qr/ph-full.png", "/?resource=item&id=nope"} {
		get := h.get(target)
		head := h.do(http.MethodHead, target)
		if head.Code != get.Code || head.Body.Len() != 0 {
			t.Errorf("%s: HEAD status %d with %d bytes, GET %d", target, head.Code, head.Body.Len(), get.Code)
		}
		for _, k := range []string{"Content-Type", "Content-Length", "ETag", "Cache-Control", "Link"} {
			if head.Header().Get(k) != get.Header().Get(k) {
				t.Errorf("%s: HEAD %s %q, GET %q", target, k, head.Header().Get(k), get.Header().Get(k))
			}
		}
	}
}

// TestOverTheWire runs a few requests through a real server and client, where net/http itself
// handles HEAD and transfer details.
func TestOverTheWire(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	do := func(method, path string, hdr ...string) (*http.Response, []byte) {
		req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	resp, body := do(http.MethodGet, "/?resource=items", "Accept-Encoding", "gzip")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || int64(len(body)) != resp.ContentLength {
		t.Errorf("GET: %d %q, %d bytes of %d", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body), resp.ContentLength)
	}
	resp, body = do(http.MethodHead, "/?resource=items")
	if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("ETag") == "" {
		t.Errorf("HEAD: %d, %d bytes, ETag %q", resp.StatusCode, len(body), resp.Header.Get("ETag"))
	}
	resp, _ = do(http.MethodGet, "/?resource=items", "If-None-Match", resp.Header.Get("ETag"))
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET: %d", resp.StatusCode)
	}
}

func TestRequestID(t *testing.T) {
	h := newHarness(t)
	sane := h.get("/?resource=categories", "X-Request-Id", "abc-123_DEF.4")
	if got := sane.Header().Get("X-Request-Id"); got != "abc-123_DEF.4" {
		t.Errorf("sane id not echoed: %q", got)
	}
	for _, bad := range []string{"", "has space", strings.Repeat("a", 129), "<script>", "é"} {
		rec := h.get("/?resource=nope", "X-Request-Id", bad)
		got := rec.Header().Get("X-Request-Id")
		if got == "" || got == bad || len(got) > 128 {
			t.Errorf("id %q: got %q, want a fresh one", bad, got)
		}
		if p := decode[problemBody](t, rec); p.RequestID != got {
			t.Errorf("body request_id %q, header %q", p.RequestID, got)
		}
	}
	a := h.get("/healthz").Header().Get("X-Request-Id")
	b := h.get("/healthz").Header().Get("X-Request-Id")
	if a == b {
		t.Errorf("two requests got the same made-up id %q", a)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	h := newHarness(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		rec := h.get(path)
		if rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d %q", path, rec.Code, rec.Header().Get("Cache-Control"))
		}
		// Like every JSON response, though the body is too small to be gzipped.
		if vary := rec.Header().Get("Vary"); !strings.Contains(vary, "Accept-Encoding") {
			t.Errorf("%s: Vary %q lacks Accept-Encoding", path, vary)
		}
	}
	h.h.Drain()
	expectProblem(t, h.get("/readyz"), http.StatusServiceUnavailable, "unavailable")
	if rec := h.get("/?resource=categories"); rec.Code != http.StatusOK {
		t.Errorf("a draining gateway answered %d, want requests served until shutdown", rec.Code)
	}
	down := newHarness(t, withBackend(func(b search.Backend) search.Backend {
		return searchtest.Failing{Backend: b, Err: fmt.Errorf("dial: %w", search.ErrUnavailable)}
	}))
	if rec := down.get("/healthz"); rec.Code != http.StatusOK {
		t.Errorf("healthz with the engine down: %d, want 200 (the process lives)", rec.Code)
	}
	rec := down.get("/readyz")
	if p := expectProblem(t, rec, http.StatusServiceUnavailable, "unavailable"); !strings.Contains(p.Detail, "cannot be reached") {
		t.Errorf("readyz with the engine down: detail %q, want it to say the engine cannot be reached", p.Detail)
	}
	if rec.Header().Get("Retry-After") == "" {
		t.Errorf("no Retry-After")
	}
	// An engine that answers without the index: readyz says which is missing and how to load it.
	none := newHarness(t, withBackend(func(b search.Backend) search.Backend {
		return searchtest.Failing{Backend: b, Err: search.NoIndex("items", nil)}
	}))
	if p := expectProblem(t, none.get("/readyz"), http.StatusServiceUnavailable, "unavailable"); !strings.Contains(p.Detail, `index "items" does not exist`) ||
		!strings.Contains(p.Detail, "mediactl load") {
		t.Errorf("readyz without the index: detail %q, want it to name the index and mediactl load", p.Detail)
	}
}

func TestBackendFailures(t *testing.T) {
	targets := []string{"/?resource=items&q=harbour", "/?resource=item&id=ph-full", "/?resource=categories", "/?resource=authors", "/qr/ph-full.png"}
	tests := []struct {
		name   string
		f      searchtest.Failing
		status int
		slug   string
		// detail is what the problem's detail says, when the case holds it to something.
		detail string
	}{
		{"unavailable", searchtest.Failing{Err: fmt.Errorf("connect 10.0.0.5:9200: %w", search.ErrUnavailable)}, http.StatusServiceUnavailable, "unavailable", "cannot be reached"},
		{"no index", searchtest.Failing{Err: search.NoIndex("items", errors.New("secret 404"))}, http.StatusServiceUnavailable, "unavailable",
			`the search index "items" does not exist: no catalogue is loaded (an operator loads one with mediactl load FILE)`},
		{"too slow", searchtest.Failing{}, http.StatusGatewayTimeout, "timeout", ""},
		{"deadline error", searchtest.Failing{Err: fmt.Errorf("query: %w", context.DeadlineExceeded)}, http.StatusGatewayTimeout, "timeout", ""},
		{"query refused", searchtest.Failing{Err: fmt.Errorf("%w: secret too_many_nested_clauses", search.ErrRefused)}, http.StatusUnprocessableEntity, "query-refused", "refused"},
		{"other failure", searchtest.Failing{Err: errors.New("secret internals: index corrupt at /var/lib/x")}, http.StatusInternalServerError, "internal-error", ""},
		{"panic", searchtest.Failing{Panic: true}, http.StatusInternalServerError, "internal-error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t,
				withConfig(func(c *gateway.Config) { c.RequestTimeout = 20 * time.Millisecond }),
				withBackend(func(b search.Backend) search.Backend { tt.f.Backend = b; return tt.f }))
			for _, target := range targets {
				rec := h.get(target)
				if p := expectProblem(t, rec, tt.status, tt.slug); !strings.Contains(p.Detail, tt.detail) {
					t.Errorf("%s: detail %q, want it to say %q", target, p.Detail, tt.detail)
				}
				if (tt.status == http.StatusServiceUnavailable) != (rec.Header().Get("Retry-After") != "") {
					t.Errorf("%s: Retry-After %q", target, rec.Header().Get("Retry-After"))
				}
				if b := rec.Body.String(); strings.Contains(b, "secret") || strings.Contains(b, "10.0.0.5") {
					t.Errorf("%s: internals leak: %s", target, b)
				}
			}
			if tt.status >= 500 {
				for _, e := range h.logs.All() {
					if e.ContextMap()["status"] == int64(tt.status) && e.Level.String() != "error" {
						t.Errorf("%d logged at %s", tt.status, e.Level)
					}
				}
			}
		})
	}
}

func TestRateLimit(t *testing.T) {
	policy := ratelimit.Policy{Limit: 3, Window: time.Minute}
	h := newHarness(t, withConfig(func(c *gateway.Config) { c.RatePolicy = policy }),
		withLimiter(ratelimit.NewMemory(policy, fixedNow)))

	for _, free := range []string{"/healthz", "/readyz", "/healthz"} {
		if rec := h.get(free); rec.Header().Get("RateLimit") != `"default";r=3;t=0` {
			t.Errorf("%s: RateLimit %q, want the full limit: not counted", free, rec.Header().Get("RateLimit"))
		}
	}
	targets := []string{"/?resource=items", "/?resource=nope", "/no/such/path"}
	for i, target := range targets {
		rec := h.get(target)
		hd := rec.Header()
		if rec.Code == http.StatusTooManyRequests {
			t.Fatalf("request %d limited early", i+1)
		}
		want := fmt.Sprintf(`"default";r=%d;t=`, policy.Limit-1-i)
		if hd.Get("RateLimit-Policy") != `"default";q=3;w=60` || !strings.HasPrefix(hd.Get("RateLimit"), want) {
			t.Errorf("request %d: RateLimit-Policy %q, RateLimit %q (want prefix %s)", i+1, hd.Get("RateLimit-Policy"), hd.Get("RateLimit"), want)
		}
		if hd.Get("X-RateLimit-Limit") != "3" || hd.Get("X-RateLimit-Remaining") != itoa(policy.Limit-1-i) || hd.Get("X-RateLimit-Reset") == "" {
			t.Errorf("request %d: X-RateLimit-* %q %q %q", i+1, hd.Get("X-RateLimit-Limit"), hd.Get("X-RateLimit-Remaining"), hd.Get("X-RateLimit-Reset"))
		}
	}
	rec := h.get("/?resource=items")
	expectProblem(t, rec, http.StatusTooManyRequests, "rate-limited")
	hd := rec.Header()
	// One request drains every Window/Limit = 20s; time stands still in this test.
	if hd.Get("Retry-After") != "20" || hd.Get("RateLimit") != `"default";r=0;t=20` || hd.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("429 headers: Retry-After %q, RateLimit %q, Remaining %q", hd.Get("Retry-After"), hd.Get("RateLimit"), hd.Get("X-RateLimit-Remaining"))
	}
	if h.get("/?resource=item&id=ph-full").Code != http.StatusTooManyRequests || h.get("/qr/ph-full.png").Code != http.StatusTooManyRequests {
		t.Errorf("the limit is not shared by every resource")
	}
	if h.get("/healthz").Code != http.StatusOK {
		t.Errorf("health check limited")
	}

	t.Run("visitors are separate", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "/?resource=categories", nil)
		req.RemoteAddr = "198.51.100.77:1"
		rec := httptest.NewRecorder()
		h.h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Errorf("another visitor got %d", rec.Code)
		}
	})
}

func TestVisitorBehindProxy(t *testing.T) {
	policy := ratelimit.Policy{Limit: 1, Window: time.Minute}
	h := newHarness(t, withConfig(func(c *gateway.Config) {
		c.RatePolicy = policy
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	}), withLimiter(ratelimit.NewMemory(policy, fixedNow)))
	send := func(remote, xff string) int {
		req := httptest.NewRequest(http.MethodGet, "/?resource=categories", nil)
		req.RemoteAddr = remote
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		rec := httptest.NewRecorder()
		h.h.ServeHTTP(rec, req)
		return rec.Code
	}
	if send("10.0.0.1:1", "198.51.100.1") != 200 || send("10.0.0.2:1", "198.51.100.2") != 200 {
		t.Fatalf("two clients behind the proxy share one limit")
	}
	if send("10.0.0.3:1", "6.6.6.6, 198.51.100.1") != 429 {
		t.Errorf("a spoofed left-most X-Forwarded-For escaped the limit")
	}
	if send("203.0.113.99:1", "198.51.100.3") != 200 || send("203.0.113.99:1", "198.51.100.4") != 429 {
		t.Errorf("X-Forwarded-For from an untrusted peer was believed")
	}
	if send("[2001:db8::1]:1", "") != 200 || send("[2001:db8::2]:1", "") != 429 {
		t.Errorf("one IPv6 /64 is not one visitor")
	}
}

// brokenLimiter fails every decision, as a limiter whose store is gone would.
type brokenLimiter struct{}

func (brokenLimiter) Allow(context.Context, string) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("redis: connection refused")
}

func TestLimiterFailureLetsRequestsThrough(t *testing.T) {
	h := newHarness(t, withLimiter(brokenLimiter{}))
	for range 3 {
		if rec := h.get("/?resource=categories"); rec.Code != http.StatusOK {
			t.Fatalf("status %d, want 200 with the limiter down", rec.Code)
		}
	}
	warned := false
	for _, e := range h.logs.All() {
		warned = warned || e.Message == "rate limiter failed; request let through"
	}
	if !warned {
		t.Errorf("limiter failure not logged")
	}
}

func TestLogLine(t *testing.T) {
	h := newHarness(t)
	h.get("/?resource=items&q=harbour", "X-Request-Id", "log-test-1")
	h.get("/?resource=items&per_page=99", "X-Request-Id", "log-test-2")
	entries := h.logs.FilterMessage("request").All()
	if len(entries) != 2 {
		t.Fatalf("%d request log lines, want 2", len(entries))
	}
	for i, e := range entries {
		m := e.ContextMap()
		wantStatus := []int64{200, 400}[i]
		if m["status"] != wantStatus || m["request_id"] != fmt.Sprintf("log-test-%d", i+1) || m["resource"] != "items" || m["method"] != "GET" {
			t.Errorf("line %d: %v", i, m)
		}
		for _, k := range []string{"latency", "bytes", "visitor"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %s", i, k)
			}
		}
		for k, v := range m {
			if strings.Contains(fmt.Sprint(v), "203.0.113.10") {
				t.Errorf("line %d: %s holds the visitor's address", i, k)
			}
		}
	}
}

func TestBasePath(t *testing.T) {
	h := newHarness(t, withConfig(func(c *gateway.Config) { c.BasePath = "/media/" }))
	for _, target := range []string{"/media/?resource=items", "/media?resource=items"} {
		rec := h.get(target)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", target, rec.Code)
		}
		if b := decode[itemsBody](t, rec); !strings.HasPrefix(b.Links.Self, publicURL+"/media/?resource=items&") {
			t.Errorf("self %q", b.Links.Self)
		}
	}
	b := decode[itemBody](t, h.get("/media/?resource=item&id=do-bare"))
	if b.Data.QRCodeURL != publicURL+"/media/qr/do-bare.png" || b.Data.Permalink != publicURL+"/media/?resource=item&id=do-bare" {
		t.Errorf("qr %q permalink %q", b.Data.QRCodeURL, b.Data.Permalink)
	}
	if rec := h.get("/media/qr/do-bare.png"); rec.Code != http.StatusOK {
		t.Errorf("qr under the base path: %d", rec.Code)
	}
	p := expectProblem(t, h.get("/?resource=items"), http.StatusNotFound, "not-found")
	if !strings.HasPrefix(p.Type, publicURL+"/media/problems/") {
		t.Errorf("problem type %q", p.Type)
	}
	if h.get("/healthz").Code != http.StatusOK {
		t.Errorf("healthz is not at the root")
	}
}

func TestOpenAPIDocument(t *testing.T) {
	doc := []byte(`{"openapi":"3.1.0"}`)
	policy := ratelimit.Policy{Limit: 1, Window: time.Minute}
	h := newHarness(t, withConfig(func(c *gateway.Config) { c.OpenAPI = doc; c.RatePolicy = policy }),
		withLimiter(ratelimit.NewMemory(policy, fixedNow)))
	// The committed document, with the servers and contact of this configuration.
	want := `{
  "openapi": "3.1.0",
  "servers": [
    {
      "description": "The API: MEDIA_PUBLIC_URL with MEDIA_BASE_PATH.",
      "url": "` + publicURL + `"
    }
  ],
  "info": {
    "contact": {
      "url": "` + publicURL + `/"
    }
  }
}
`
	for range 3 {
		rec := h.get("/openapi.json")
		if rec.Code != http.StatusOK || rec.Body.String() != want || rec.Header().Get("RateLimit") != `"default";r=1;t=0` {
			t.Fatalf("openapi.json: %d %q, RateLimit %q", rec.Code, rec.Body, rec.Header().Get("RateLimit"))
		}
	}
	if newHarness(t).get("/openapi.json").Code != http.StatusNotFound {
		t.Errorf("openapi.json served without a document")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	b, _ := testBackend(t)
	cfg := gateway.DefaultConfig()
	if _, err := gateway.New(cfg, b, brokenLimiter{}, nil); err == nil || !strings.Contains(err.Error(), "public URL") {
		t.Errorf("config without a public URL: %v", err)
	}
}

// TestMaxAgeOfDocuments: the OpenAPI document and the problem pages have max-ages of their own,
// not a resource's.
func TestMaxAgeOfDocuments(t *testing.T) {
	h := newHarness(t, withConfig(func(c *gateway.Config) {
		c.OpenAPI = openapi.Document
		c.MaxAge.OpenAPI = 7 * time.Second
		c.MaxAge.ProblemPages = 11 * time.Second
	}))
	for target, want := range map[string]string{
		"/openapi.json":       "private, max-age=7",
		"/problems/not-found": "private, max-age=11",
		"/?resource=authors":  "private, max-age=300",
	} {
		if got := h.get(target).Header().Get("Cache-Control"); got != want {
			t.Errorf("%s: Cache-Control %q, want %q", target, got, want)
		}
	}
}

// TestNoSharedCaching: every answer a cache may keep carries its visitor's RateLimit headers and
// its own X-Request-Id, so only the visitor's browser may keep it (private): a CDN or proxy would
// replay those headers to other visitors. 304s and the search page's redirect included.
func TestNoSharedCaching(t *testing.T) {
	h := newHarness(t, withConfig(func(c *gateway.Config) {
		c.OpenAPI = openapi.Document
		c.Demo = fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}
	}))
	targets := []string{"/?resource=items&q=forest", "/?resource=item&id=ph-full", "/?resource=categories", "/?resource=authors",
		"/qr/ph-full.png", "/openapi.json", "/problems/not-found", "/demo/", "/demo?q=forest"}
	for _, target := range targets {
		first := h.get(target)
		responses := map[string]*httptest.ResponseRecorder{"": first}
		if etag := first.Header().Get("ETag"); etag != "" {
			responses["304 "] = h.get(target, "If-None-Match", etag)
		}
		for kind, rec := range responses {
			hd := rec.Header()
			if hd.Get("RateLimit") == "" || hd.Get("X-Request-Id") == "" {
				t.Errorf("%s%s: RateLimit %q, X-Request-Id %q; want both", kind, target, hd.Get("RateLimit"), hd.Get("X-Request-Id"))
			}
			if cc := hd.Get("Cache-Control"); !strings.HasPrefix(cc, "private, max-age=") || strings.Contains(cc, "public") {
				t.Errorf("%s%s: %d Cache-Control %q, want private, max-age=N", kind, target, rec.Code, cc)
			}
		}
	}
}
