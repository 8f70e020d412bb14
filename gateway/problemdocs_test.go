package gateway

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"mediagw/openapi"
)

// TestProblemTypesResolve: the type URI of every problem the gateway answers with names a page
// that documents it (RFC 9457, 3.1.1), served like the other documents; an unknown slug is 404.
func TestProblemTypesResolve(t *testing.T) {
	slugs := []string{"bad-request", "headers-too-large", "invalid-parameter", "uri-too-long", "not-found", "method-not-allowed", "cursor-expired", "query-refused", "rate-limited",
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
			!strings.HasPrefix(h.Get("Cache-Control"), "private, max-age=") || !strings.Contains(rec.Body.String(), "<code>"+slug+"</code>") {
			t.Errorf("problems/%s: %d %v\n%s", slug, rec.Code, h, rec.Body)
		}
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/problems/no-such-thing", nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "/problems/not-found") {
		t.Errorf("unknown problem type: %d %s", rec.Code, rec.Body)
	}
}

// TestOpenAPIProblemTypes holds the committed OpenAPI document to problemTypes: each problem
// response says when it happens and what to do as the table does, and its schema and example
// carry the type's status, slug and title; the problem pages' path lists every slug.
func TestOpenAPIProblemTypes(t *testing.T) {
	var doc struct {
		Paths map[string]struct {
			Parameters []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Responses map[string]struct {
				Description string `json:"description"`
				Content     map[string]struct {
					Schema struct {
						AllOf []struct {
							Properties struct {
								Status struct{ Const int }      `json:"status"`
								Type   struct{ Pattern string } `json:"type"`
								Title  struct{ Const string }   `json:"title"`
							} `json:"properties"`
						} `json:"allOf"`
					} `json:"schema"`
					Example json.RawMessage `json:"example"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, pt := range problemTypes {
		slugs = append(slugs, "`"+pt.Slug+"`")
		if pt.Response == "" {
			continue
		}
		resp, ok := doc.Components.Responses[pt.Response]
		if !ok {
			t.Errorf("%s: no response %s", pt.Slug, pt.Response)
			continue
		}
		if want := pt.When + " " + pt.Do; resp.Description != want {
			t.Errorf("%s: description\n%q, want\n%q", pt.Response, resp.Description, want)
		}
		if head, ok := doc.Components.Responses[pt.Response+"Head"]; ok && head.Description != pt.When+" "+pt.Do+" Headers only: HEAD has no body." {
			t.Errorf("%sHead: description %q", pt.Response, head.Description)
		}
		content := resp.Content["application/problem+json"]
		if len(content.Schema.AllOf) != 2 {
			t.Errorf("%s: schema is not the Problem and its constants", pt.Response)
			continue
		}
		props := content.Schema.AllOf[1].Properties
		if props.Status.Const != pt.Status || props.Type.Pattern != "/problems/("+pt.Slug+")$" || props.Title.Const != pt.Title {
			t.Errorf("%s: schema says %d %q %q, want %d %s %q", pt.Response, props.Status.Const, props.Type.Pattern, props.Title.Const, pt.Status, pt.Slug, pt.Title)
		}
		var ex problem
		if err := json.Unmarshal(content.Example, &ex); err != nil {
			t.Errorf("%s: example: %v", pt.Response, err)
		}
		if ex.Status != pt.Status || ex.Title != pt.Title || !strings.HasSuffix(ex.Type, "/problems/"+pt.Slug) {
			t.Errorf("%s: example %d %q %q", pt.Response, ex.Status, ex.Title, ex.Type)
		}
	}
	params := doc.Paths["/problems/{slug}"].Parameters
	if len(params) != 1 || !strings.Contains(params[0].Description, strings.Join(slugs, ", ")+".") {
		t.Errorf("/problems/{slug} does not list the problem types %v: %+v", slugs, params)
	}
}
