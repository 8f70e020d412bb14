package elastic

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opensearch-project/opensearch-go/v4"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
	"mediagw/search/searchtest"
)

// TestFacetNamesFollowTheLoad: the category names facets give are remembered per index, so a
// load that renames a category is seen at once, with or without hits on the page, and an index's
// categories are named by one search over their items, not once more for every page without hits.
func TestFacetNamesFollowTheLoad(t *testing.T) {
	var namings atomic.Int32
	b := watchedBackend(t, func(_ *http.Request, body []byte) {
		if bytes.Contains(body, []byte(`"slugs"`)) {
			namings.Add(1)
		}
	})
	for _, name := range []string{"Harbours", "Ports and Harbours"} {
		load(t, b, []search.Item{
			{ID: "a", Title: "Harbour at dawn", Type: search.TypePhoto, Category: "harbours", CategoryName: name},
			{ID: "b", Title: "Harbour at dusk", Type: search.TypePhoto, Category: "harbours", CategoryName: name},
		})
		namings.Store(0)
		for _, page := range []int{1, 9, 9} {
			q := search.Query{Text: "harbour", Page: page, PerPage: 20, Facets: search.FacetSet(search.FacetCategory)}
			res, err := b.Search(t.Context(), search.NewRequest(q))
			if err != nil {
				t.Fatal(err)
			}
			want := []search.FacetValue{{Value: "harbours", Name: name, Count: 2}}
			if got := res.Facets[search.FacetCategory]; len(got) != 1 || got[0] != want[0] {
				t.Errorf("after loading %q, page %d: category facet %+v, want %+v", name, page, got, want)
			}
		}
		if n := namings.Load(); n != 1 {
			t.Errorf("after loading %q: %d searches named the categories, want 1", name, n)
		}
	}
}

// TestExtrasSeveralShards: facet counts stay exact, and neighbours complete, when the items are
// spread over several shards, each of which counts and suggests on its own.
func TestExtrasSeveralShards(t *testing.T) {
	mapping := threeShards(t)
	searchtest.RunExtras(t, func(t *testing.T, items []search.Item) search.Backend {
		b := newBackend(t, Config{Mapping: mapping})
		load(t, b, items)
		return b
	})
}

// threeShards is the index definition with three shards instead of one.
func threeShards(t *testing.T) []byte {
	t.Helper()
	mapping := bytes.Replace(mappings.Items, []byte(`"number_of_shards": 1`), []byte(`"number_of_shards": 3`), 1)
	if bytes.Equal(mapping, mappings.Items) {
		t.Fatal("mappings/items.json no longer sets number_of_shards to 1: update the test")
	}
	return mapping
}

// TestListsSeveralShards: the lists' counts, filtered or not, stay exact when the items are spread
// over several shards and each partition of the counting holds a few values only, so that a
// shard's own top values would not be the index's.
func TestListsSeveralShards(t *testing.T) {
	mapping := threeShards(t)
	searchtest.RunLists(t, func(t *testing.T, items []search.Item) search.Backend {
		b := newBackend(t, Config{Mapping: mapping})
		b.limits[ListCategories], b.limits[ListAuthors] = listLimits{size: 8, target: 4}, listLimits{size: 8, target: 4}
		load(t, b, items)
		return b
	})
}

// TestFacetAnswer: facets are read by their names wherever facetAggs put them, at the top level
// or inside a filter aggregation (as decodeBody decodes an answer); other aggregations are ignored.
func TestFacetAnswer(t *testing.T) {
	body := `{"aggregations": {
		"facet_type": {"doc_count_error_upper_bound": 0, "buckets": [{"key": "photo", "doc_count": 3}]},
		"filtered_category": {"doc_count": 2,
			"facet_category": {"buckets": [{"key": "harbours", "doc_count": 2}]},
			"facet_year": {"buckets": [{"key": "2020", "doc_count": 1}]}},
		"totals": {"buckets": {}}}}`
	var a pageAnswer
	if err := decodeBody(&opensearch.Response{Body: io.NopCloser(strings.NewReader(body))}, &a); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, key string
		count     int
	}{
		{"facet_type", "photo", 3},
		{"facet_category", "harbours", 2},
		{"facet_year", "2020", 1},
	} {
		bs := a.Aggregations[tc.name].Buckets
		if len(bs) != 1 || bs[0].Key != tc.key || bs[0].Count != tc.count {
			t.Errorf("%s: buckets %+v, want %s: %d", tc.name, bs, tc.key, tc.count)
		}
	}
	if len(a.Aggregations) != 3 {
		t.Errorf("facets %v, want the three of the answer", a.Aggregations)
	}
}

// TestDecodedAnswersOwnTheirStrings: what decodeBody decodes stays as it was when its pooled
// buffer holds the next answer, so the decoder copies strings rather than pointing into the buffer.
func TestDecodedAnswersOwnTheirStrings(t *testing.T) {
	page, err := os.ReadFile("testdata/page-answer.json")
	if err != nil {
		t.Fatal(err)
	}
	var first pageAnswer
	if err := decodeBody(&opensearch.Response{Body: io.NopCloser(bytes.NewReader(page))}, &first); err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprint(first.Hits.Hits)
	for range 4 {
		other := bytes.Repeat([]byte("x"), len(page))
		copy(other, `{"hits":{"hits":[]}}`)
		var next pageAnswer
		_ = decodeBody(&opensearch.Response{Body: io.NopCloser(bytes.NewReader(other))}, &next)
	}
	if after := fmt.Sprint(first.Hits.Hits); after != before {
		t.Errorf("decoded hits changed when the buffer was reused:\n%.300s\nwant\n%.300s", after, before)
	}
}
