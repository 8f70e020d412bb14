package openapi_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"mediagw/openapi"
)

// TestServedDocument: the document the gateway serves is a valid OpenAPI 3.1 document whose
// servers are the configured public URL and base path (the probes': the public URL alone) and
// whose contact is the public URL; everything else is the committed document.
func TestServedDocument(t *testing.T) {
	backend, _ := fixtureBackend(t)
	s := newServer(t, backend, func(s *setup) {
		s.cfg.PublicURL = "https://media.example.org/prefix/"
		s.cfg.BasePath = "/media/"
	})
	ex := s.do(http.MethodGet, "/media/openapi.json")
	if ex.status != http.StatusOK {
		t.Fatalf("openapi.json: %d %s", ex.status, ex.body)
	}
	doc, err := load(t, ex.body)
	if err != nil {
		t.Fatalf("served document: %v", err)
	}
	if err := unknownKeys(ex.body, doc); err != nil {
		t.Error(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "https://media.example.org/prefix/media" {
		t.Errorf("servers %+v, want https://media.example.org/prefix/media", doc.Servers)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if ss := doc.Paths.Value(p).Servers; len(ss) != 1 || ss[0].URL != "https://media.example.org/prefix" {
			t.Errorf("%s: servers %+v, want https://media.example.org/prefix", p, ss)
		}
	}
	if c := doc.Info.Contact; c == nil || c.URL != "https://media.example.org/prefix/" {
		t.Errorf("contact %+v", c)
	}

	var served, committed map[string]any
	if err := json.Unmarshal(ex.body, &served); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(openapi.Document, &committed); err != nil {
		t.Fatal(err)
	}
	for _, d := range []map[string]any{served, committed} {
		delete(d, "servers")
		delete(at(d, "info", "contact"), "url")
		for _, p := range []string{"/healthz", "/readyz"} {
			delete(at(d, "paths", p), "servers")
		}
	}
	if !reflect.DeepEqual(served, committed) {
		t.Error("the served document differs from the committed one beyond servers and contact")
	}
}

// TestDocumentMeta: what generated clients and API catalogues read first.
func TestDocumentMeta(t *testing.T) {
	doc := document(t)
	if c := doc.Info.Contact; c == nil || c.Name == "" || c.URL == "" {
		t.Errorf("contact %+v", c)
	}
	if l := doc.Info.License; l == nil || l.Name == "" || l.Identifier != "CC0-1.0" {
		t.Errorf("license %+v", l)
	}
	// The API takes no credentials: an empty list says so to clients and linters.
	if doc.Security == nil || len(doc.Security) != 0 {
		t.Errorf("security %+v, want []", doc.Security)
	}
	enc := doc.Components.Headers["Content-Encoding"].Value.Schema.Value
	var codings []string
	for _, v := range enc.Enum {
		codings = append(codings, v.(string))
	}
	if !reflect.DeepEqual(codings, []string{"zstd", "br", "gzip"}) {
		t.Errorf("Content-Encoding %v", codings)
	}
}
