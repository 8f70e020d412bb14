package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"mediagw/openapi"
)

// load parses and validates an OpenAPI document with kin-openapi, which reads 3.1 (JSON Schema
// 2020-12) documents; validation also checks every example against its schema.
func load(t *testing.T, data []byte) (*openapi3.T, error) {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	return doc, doc.Validate(context.Background(), openapi3.EnableExamplesValidation(), openapi3.EnableSchemaDefaultsValidation())
}

func document(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := load(t, openapi.Document)
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc
}

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	doc := document(t)
	if !doc.IsOpenAPI31OrLater() || doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	if !json.Valid(openapi.Document) {
		t.Fatal("not valid JSON")
	}
	if err := unknownKeys(openapi.Document, doc); err != nil {
		t.Error(err)
	}
}

// unknownKeys reports the keys of data that did not survive kin-openapi's decoding: a key it
// drops is no OpenAPI 3.1 or JSON Schema keyword, most likely a typo that would otherwise be
// silently ignored.
func unknownKeys(data []byte, doc *openapi3.T) error {
	var raw, round any
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	again, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(again, &round); err != nil {
		return err
	}
	missing := missingKeys(raw, round, "")
	if doc.Security != nil {
		// kin-openapi decodes "security": [] but leaves an empty list out when it encodes.
		missing = slices.DeleteFunc(missing, func(k string) bool { return k == "/security" })
	}
	if len(missing) > 0 {
		return fmt.Errorf("keys kin-openapi does not know (typos?): %s", strings.Join(missing, ", "))
	}
	return nil
}

// missingKeys lists the object keys of a that b lacks, by JSON path.
func missingKeys(a, b any, path string) []string {
	var out []string
	switch av := a.(type) {
	case map[string]any:
		bv, _ := b.(map[string]any)
		for k, v := range av {
			if _, ok := bv[k]; !ok {
				out = append(out, path+"/"+k)
				continue
			}
			out = append(out, missingKeys(v, bv[k], path+"/"+k)...)
		}
	case []any:
		bv, _ := b.([]any)
		for i, v := range av {
			if i < len(bv) {
				out = append(out, missingKeys(v, bv[i], path+"/"+strconv.Itoa(i))...)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestValidationCatchesMistakes proves the checks above would notice a broken document.
func TestValidationCatchesMistakes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(doc map[string]any)
	}{
		{"undefined reference", func(doc map[string]any) {
			at(doc, "components", "schemas", "ItemsPage", "properties", "data", "items")["$ref"] = "#/components/schemas/ItemSumary"
		}},
		{"example breaking its schema", func(doc map[string]any) {
			at(doc, "components", "parameters", "per_page")["example"] = 5000
		}},
		{"unknown type", func(doc map[string]any) {
			at(doc, "components", "schemas", "ItemId")["type"] = "str"
		}},
		{"misspelt keyword", func(doc map[string]any) {
			s := at(doc, "components", "schemas", "ItemId")
			s["patern"] = s["pattern"]
			delete(s, "pattern")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(openapi.Document, &doc); err != nil {
				t.Fatal(err)
			}
			tc.mutate(doc)
			bad, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			d, err := load(t, bad)
			if err == nil {
				err = unknownKeys(bad, d)
			}
			if err == nil {
				t.Error("accepted")
			}
		})
	}
}

// at walks doc along keys to an object.
func at(doc map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		doc = doc[k].(map[string]any)
	}
	return doc
}

// TestContractCoverage: every resource, parameter, status and header the contract names is in
// the document.
func TestContractCoverage(t *testing.T) {
	doc := document(t)
	base := doc.Paths.Value("/")
	if base == nil || base.Get == nil || base.Head == nil || base.Options == nil {
		t.Fatal("the base path lacks GET, HEAD or OPTIONS")
	}
	params := map[string]*openapi3.Parameter{}
	for _, p := range base.Get.Parameters {
		params[p.Value.Name] = p.Value
	}
	for _, name := range []string{"resource", "id", "q", "type", "category", "author", "language", "from", "to", "sort", "page", "per_page", "facets", "highlight"} {
		if params[name] == nil {
			t.Errorf("GET / has no parameter %s", name)
		}
	}
	if r := params["resource"]; r != nil {
		var enum []string
		for _, v := range r.Schema.Value.Enum {
			enum = append(enum, v.(string))
		}
		if !slices.Equal(enum, []string{"items", "item", "categories", "authors", "suggest", "related"}) || !r.Required {
			t.Errorf("resource: required %v, enum %v", r.Required, enum)
		}
	}
	if pp := params["per_page"]; pp != nil && (*pp.Schema.Value.Min != 1 || *pp.Schema.Value.Max != 1000) {
		t.Errorf("per_page bounds %v..%v, want 1..1000 (the lists')", *pp.Schema.Value.Min, *pp.Schema.Value.Max)
	}
	for _, code := range []string{"200", "304", "400", "404", "429", "500", "503", "504"} {
		if base.Get.Responses.Value(code) == nil {
			t.Errorf("GET / does not document %s", code)
		}
	}
	if doc.Components.Responses["MethodNotAllowed"] == nil {
		t.Error("no MethodNotAllowed response")
	}
	for _, path := range []string{"/qr/{id}.png", "/openapi.json", "/healthz", "/readyz"} {
		if p := doc.Paths.Value(path); p == nil || p.Get == nil || p.Head == nil || p.Options == nil {
			t.Errorf("%s lacks GET, HEAD or OPTIONS", path)
		}
	}
	ok := base.Get.Responses.Value("200").Value
	for _, h := range []string{"ETag", "Cache-Control", "Link", "RateLimit", "RateLimit-Policy", "X-RateLimit-Limit",
		"X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Id", "Access-Control-Allow-Origin"} {
		if ok.Headers[h] == nil {
			t.Errorf("200 of GET / does not document header %s", h)
		}
	}
	for _, code := range []string{"429", "503"} {
		if base.Get.Responses.Value(code).Value.Headers["Retry-After"] == nil {
			t.Errorf("%s does not document Retry-After", code)
		}
	}
}
