package opensearch

import (
	"encoding/json"
	"testing"

	"mediagw/search"
)

func TestRequestsAreTheBackendsBodies(t *testing.T) {
	q := search.Query{Text: "harbour", Type: "photo", Sort: search.SortRelevance, Page: 2, PerPage: 20}
	got, err := SearchRequest(q)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(searchBody(q))
	if string(got) != string(want) {
		t.Errorf("SearchRequest = %s, want %s", got, want)
	}
	for name, f := range map[string]func(map[string]any) ([]byte, error){"categories": CategoriesRequest, "authors": AuthorsRequest} {
		first, err := f(nil)
		if err != nil {
			t.Fatal(err)
		}
		next, err := f(map[string]any{"key": "m"})
		if err != nil {
			t.Fatal(err)
		}
		var a, b struct {
			Aggs struct {
				Groups struct {
					Composite struct {
						Size  int            `json:"size"`
						After map[string]any `json:"after"`
					} `json:"composite"`
				} `json:"groups"`
			} `json:"aggs"`
		}
		if err := json.Unmarshal(first, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(next, &b); err != nil {
			t.Fatal(err)
		}
		if a.Aggs.Groups.Composite.Size != CompositePageSize || a.Aggs.Groups.Composite.After != nil || b.Aggs.Groups.Composite.After["key"] != "m" {
			t.Errorf("%s pages: %s then %s", name, first, next)
		}
	}
}

// BenchmarkSearchRequest is the cost of building and encoding one search's request body.
func BenchmarkSearchRequest(b *testing.B) {
	qs := []search.Query{
		{Text: "harbour", Sort: search.SortRelevance, Page: 1, PerPage: 20},
		{Text: "street market night", Type: "photo", Sort: search.SortRelevance, Page: 2, PerPage: 20},
		{Category: "places", Language: "en", Sort: search.SortDownloads, Page: 1, PerPage: 50},
		{Text: "lisbon", From: "1990-01-01", To: "2005-12-31", Sort: search.SortNewest, Page: 7, PerPage: 20},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := SearchRequest(qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
	}
}
