package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
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
// carry the type's status, slug and title; the problem pages' path lists every slug. Each
// response has a schema of its own, the Problem with its type's constants and no allOf, which
// the usual client generators cannot merge.
func TestOpenAPIProblemTypes(t *testing.T) {
	var doc struct {
		Paths map[string]struct {
			Parameters []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Schemas   map[string]problemSchema `json:"schemas"`
			Responses map[string]struct {
				Description string `json:"description"`
				Content     map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
					Example json.RawMessage `json:"example"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	generic := doc.Components.Schemas["Problem"]
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
		name := pt.Response + "Problem"
		if content.Schema.Ref != "#/components/schemas/"+name {
			t.Errorf("%s: schema %q, want the schema %s", pt.Response, content.Schema.Ref, name)
			continue
		}
		if err := generic.sameBut(doc.Components.Schemas[name], pt); err != nil {
			t.Errorf("%s: %v", name, err)
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

// problemSchema is the part of a problem's schema in the OpenAPI document that TestOpenAPIProblemTypes reads.
type problemSchema struct {
	Type                 json.RawMessage            `json:"type"`
	Required             []string                   `json:"required"`
	AdditionalProperties *bool                      `json:"additionalProperties"`
	Properties           map[string]json.RawMessage `json:"properties"`
}

// sameBut reports how s, the schema of problem type pt, differs from the generic problem p other
// than in the constants of pt; errors[] belongs to invalid-parameter alone, which always has it.
func (p problemSchema) sameBut(s problemSchema, pt *problemType) error {
	var props struct {
		Status struct {
			Type  string
			Const int
		}
		Type struct {
			Type, Format, Description, Pattern string
		}
		Title struct {
			Type, Const string
		}
	}
	for key, v := range map[string]any{"status": &props.Status, "type": &props.Type, "title": &props.Title} {
		if err := json.Unmarshal(s.Properties[key], v); err != nil {
			return fmt.Errorf("property %s: %w", key, err)
		}
	}
	var generic struct{ Type, Format, Description string }
	if err := json.Unmarshal(p.Properties["type"], &generic); err != nil {
		return fmt.Errorf("Problem's property type: %w", err)
	}
	if props.Status != (struct {
		Type  string
		Const int
	}{"integer", pt.Status}) || props.Title.Type != "string" || props.Title.Const != pt.Title ||
		props.Type.Pattern != "/problems/("+pt.Slug+")$" ||
		(struct{ Type, Format, Description string }{props.Type.Type, props.Type.Format, props.Type.Description}) != generic {
		return fmt.Errorf("says %+v, want %d %s %q", props, pt.Status, pt.Slug, pt.Title)
	}
	required := slices.Clone(p.Required)
	keys := slices.Sorted(maps.Keys(p.Properties))
	if pt != problemInvalidParameter {
		keys = slices.DeleteFunc(keys, func(k string) bool { return k == "errors" })
	} else {
		required = append(required, "errors")
	}
	if !bytes.Equal(s.Type, p.Type) || s.AdditionalProperties == nil || *s.AdditionalProperties || !slices.Equal(s.Required, required) ||
		!slices.Equal(slices.Sorted(maps.Keys(s.Properties)), keys) {
		return fmt.Errorf("type %s, required %v, properties %v: want the Problem's, errors[] for invalid-parameter alone",
			s.Type, s.Required, slices.Sorted(maps.Keys(s.Properties)))
	}
	for _, k := range keys {
		if k != "status" && k != "type" && k != "title" && !bytes.Equal(s.Properties[k], p.Properties[k]) {
			return fmt.Errorf("property %s differs from the Problem's", k)
		}
	}
	return nil
}
