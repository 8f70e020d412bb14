package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/catalogue/gen"
	blevebackend "mediagw/search/bleve"
)

// makeRunCatalogue is what `make run` generates: the Makefile's ITEMS and SEED, which its recipe
// hands to `mediactl gen`.
func makeRunCatalogue(t *testing.T) (n int, seed int64) {
	t.Helper()
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	mk := string(b)
	if !strings.Contains(mk, "mediactl gen -n $(ITEMS) -seed $(SEED)") {
		t.Fatal("make run no longer generates with -n $(ITEMS) -seed $(SEED): follow it here")
	}
	value := func(name string) int64 {
		m := regexp.MustCompile(`(?m)^` + name + ` \?= ([0-9]+)$`).FindStringSubmatch(mk)
		if m == nil {
			t.Fatalf("no %s ?= in the Makefile", name)
		}
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return int(value("ITEMS")), value("SEED")
}

// readmeCurl is a curl example of README.md against the server `make run` starts.
var readmeCurl = regexp.MustCompile(`curl (?:-s )?'http://127\.0\.0\.1:8080/(\?[^']*)'`)

// readmeExample is one: its query string and the line above it (its comment, in a code block).
type readmeExample struct{ query, above string }

func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeExample
	above := ""
	for line := range strings.Lines(string(b)) {
		if m := readmeCurl.FindStringSubmatch(line); m != nil {
			out = append(out, readmeExample{m[1], above})
		}
		above = strings.TrimSpace(line)
	}
	if len(out) == 0 {
		t.Fatal("no curl example in README.md")
	}
	return out
}

// TestReadmeExamples: README.md's curl examples, sent to mediagw serving the catalogue `make run`
// generates, answer 200 and show what they say: each list (items, categories, completions,
// related items) holds some, the did-you-mean example carries a suggestion, a search with facets
// counts some and one with highlight marks what matched.
func TestReadmeExamples(t *testing.T) {
	examples := readmeExamples(t)
	n, seed := makeRunCatalogue(t)
	dir := t.TempDir()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(gen.Generate(pw, n, seed)) }()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	_, err := blevebackend.NewLoader(dir, 1).Load(ctx, catalogue.Items(catalogue.NewReader(pr), nil))
	pr.Close()
	if err != nil {
		t.Fatalf("load the catalogue of make run (%d items, seed %d): %v", n, seed, err)
	}
	s := start(t, envOf(dir))
	for _, ex := range examples {
		t.Run(ex.query, func(t *testing.T) {
			resp, err := http.Get(s.public + "/" + ex.query)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Data []struct {
					Matched map[string]string `json:"matched"`
				} `json:"data"`
				Facets     map[string][]json.RawMessage `json:"facets"`
				Suggestion *string                      `json:"suggestion"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%d, %v; want 200 with a JSON body", resp.StatusCode, err)
			}
			if len(body.Data) == 0 {
				t.Fatal("data is empty")
			}
			q, err := url.ParseQuery(strings.TrimPrefix(ex.query, "?"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(ex.above, "did-you-mean") && (body.Suggestion == nil || *body.Suggestion == "") {
				t.Errorf("no suggestion, which the README's comment %q promises", ex.above)
			}
			for f := range strings.SplitSeq(q.Get("facets"), ",") {
				if f != "" && len(body.Facets[f]) == 0 {
					t.Errorf("facet %s counts nothing", f)
				}
			}
			if q.Get("highlight") == "true" && len(body.Data[0].Matched) == 0 {
				t.Error("the first item has nothing marked as matched")
			}
		})
	}
}
