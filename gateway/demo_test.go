package gateway_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"mediagw/gateway"
)

// TestDemoAPIs: the search page learns the API origins it may call (?api=) from apis.json, and
// its Content-Security-Policy lets it connect to those and its own origin only.
func TestDemoAPIs(t *testing.T) {
	page := fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}
	for _, tt := range []struct {
		name string
		apis []string
	}{
		{"none", nil},
		{"two", []string{"https://api.example.org", "http://127.0.0.1:18181"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, withConfig(func(c *gateway.Config) { c.Demo, c.DemoAPIs = page, tt.apis }))
			rec := h.get("/demo/apis.json")
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("apis.json: %d %s", rec.Code, rec.Header().Get("Content-Type"))
			}
			var got struct{ APIs []string }
			if err := json.Unmarshal(decompress(t, rec), &got); err != nil || got.APIs == nil || !slices.Equal(got.APIs, append([]string{}, tt.apis...)) {
				t.Errorf("apis.json = %s (%v), want %q", rec.Body.Bytes(), err, tt.apis)
			}
			for _, name := range []string{"/demo/", "/demo/apis.json"} {
				csp := h.get(name).Header().Get("Content-Security-Policy")
				var connect []string
				for d := range strings.SplitSeq(csp, ";") {
					if f := strings.Fields(d); len(f) > 0 && f[0] == "connect-src" {
						connect = f[1:]
					}
				}
				if want := append([]string{"'self'"}, tt.apis...); !slices.Equal(connect, want) {
					t.Errorf("%s: CSP connect-src %q, want %q (%s)", name, connect, want, csp)
				}
			}
		})
	}
}

// TestDemoRedirect: {base}demo sends the visitor to {base}demo/ with the query's parameters
// encoded again, never the request's raw bytes, and says how long it may be kept.
func TestDemoRedirect(t *testing.T) {
	h := newHarness(t, withConfig(func(c *gateway.Config) { c.Demo = fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}} }))
	for _, tt := range []struct{ query, want string }{
		{"", "/demo/"},
		{"?q=thames&type=photo", "/demo/?q=thames&type=photo"},
		{`?q=<script>"x"</script>`, "/demo/?q=%3Cscript%3E%22x%22%3C%2Fscript%3E"},
		{"?q=%E2%80%AEevil", "/demo/?q=%E2%80%AEevil"},
		{"?q=%zz&type=photo", "/demo/?type=photo"},
		{"?%zz", "/demo/"},
	} {
		req := httptest.NewRequest(http.MethodGet, "/demo", nil)
		req.URL.RawQuery = strings.TrimPrefix(tt.query, "?")
		rec := httptest.NewRecorder()
		h.h.ServeHTTP(rec, req)
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != tt.want {
			t.Errorf("/demo%s: %d Location %q, want %q", tt.query, rec.Code, rec.Header().Get("Location"), tt.want)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "private, max-age=300" {
			t.Errorf("/demo%s: Cache-Control %q", tt.query, cc)
		}
	}
}
