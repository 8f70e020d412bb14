package gateway

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestProblemTypesResolve: the type URI of every problem the gateway answers with names a page
// that documents it (RFC 9457, 3.1.1), served like the other documents; an unknown slug is 404.
func TestProblemTypesResolve(t *testing.T) {
	slugs := []string{"invalid-parameter", "uri-too-long", "not-found", "method-not-allowed", "rate-limited",
		"internal-error", "unavailable", "timeout", "client-closed-request"}
	if got := problemSlugs(); len(got) != len(slugs) {
		t.Errorf("pages for %v, want one for each of %v", got, slugs)
	}
	cfg := DefaultConfig()
	cfg.PublicURL = "https://media.example.org"
	cfg.BasePath = "/api/"
	g, err := New(cfg, listBackend{}, fixedLimiter{true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, slug := range slugs {
		if !slices.Contains(problemSlugs(), slug) {
			t.Errorf("no page for problem type %s", slug)
			continue
		}
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/problems/"+slug, nil))
		h := rec.Header()
		if rec.Code != http.StatusOK || h.Get("Content-Type") != contentTypeHTML || h.Get("ETag") == "" ||
			!strings.HasPrefix(h.Get("Cache-Control"), "public, max-age=") || !strings.Contains(rec.Body.String(), "<code>"+slug+"</code>") {
			t.Errorf("problems/%s: %d %v\n%s", slug, rec.Code, h, rec.Body)
		}
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/problems/no-such-thing", nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "/problems/not-found") {
		t.Errorf("unknown problem type: %d %s", rec.Code, rec.Body)
	}
}
