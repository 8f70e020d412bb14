package engine

import (
	"bytes"
	"testing"

	"mediagw/mappings"
	"mediagw/search"
	"mediagw/search/searchtest"
)

// TestFacetNamesFollowTheLoad: the category names facets give are remembered per index, so a
// load that renames a category is seen at once, with or without hits on the page.
func TestFacetNamesFollowTheLoad(t *testing.T) {
	b := newBackend(t, Config{})
	for _, name := range []string{"Harbours", "Ports and Harbours"} {
		load(t, b, []search.Item{
			{ID: "a", Title: "Harbour at dawn", Type: search.TypePhoto, Category: "harbours", CategoryName: name},
			{ID: "b", Title: "Harbour at dusk", Type: search.TypePhoto, Category: "harbours", CategoryName: name},
		})
		for _, page := range []int{1, 9} {
			q := search.Query{Text: "harbour", Page: page, PerPage: 20, Facets: search.FacetSet(search.FacetCategory)}
			res, err := b.Search(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			want := []search.FacetValue{{Value: "harbours", Name: name, Count: 2}}
			if got := res.Facets[search.FacetCategory]; len(got) != 1 || got[0] != want[0] {
				t.Errorf("after loading %q, page %d: category facet %+v, want %+v", name, page, got, want)
			}
		}
	}
}

// TestExtrasSeveralShards: facet counts stay exact, and neighbours complete, when the items are
// spread over several shards, each of which counts and suggests on its own.
func TestExtrasSeveralShards(t *testing.T) {
	mapping := bytes.Replace(mappings.Items, []byte(`"number_of_shards": 1`), []byte(`"number_of_shards": 3`), 1)
	if bytes.Equal(mapping, mappings.Items) {
		t.Fatal("mappings/items.json no longer sets number_of_shards to 1: update the test")
	}
	searchtest.RunExtras(t, func(t *testing.T, items []search.Item) search.Backend {
		b := newBackend(t, Config{Mapping: mapping})
		load(t, b, items)
		return b
	})
}
