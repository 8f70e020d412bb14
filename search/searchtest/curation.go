package searchtest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/curation"
)

// Curator is a backend that stores and serves the operators' synonyms and pins (search/curation).
type Curator interface {
	ApplyRules(ctx context.Context, r *curation.Rules) error
}

// testCuration: with `harbour, qqzv` applied, qqzv finds what harbour finds; a pinned item comes
// first for its query, the others following without duplicates and the total unchanged; a file
// with a bad line is refused with its number and the applied set stays served.
func testCuration(t *testing.T, open Open, items []search.Item) {
	b := open(t, items)
	c, ok := b.(Curator)
	if !ok {
		t.Skip("the backend stores no rules")
	}
	query := func(text string) search.Query {
		q := search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 100}
		q.Normalize()
		return q
	}
	harbour, _ := walk(t, b, query("harbour"), 100)
	if len(harbour) < 2 {
		t.Fatalf("the fixture has %d items for harbour, want 2 or more", len(harbour))
	}
	if res := search1(t, b, query("qqzv")); res.Total != 0 {
		t.Fatalf("qqzv finds %d items before any synonym", res.Total)
	}
	last := harbour[len(harbour)-1].ID
	apply := func(f curation.Files) error {
		r, err := curation.Parse(f)
		if err != nil {
			return err
		}
		return c.ApplyRules(ctx(t), r)
	}
	if err := apply(curation.Files{Synonyms: "# test\nharbour, qqzv\n", Pins: "Harbour! => " + last + "\n"}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	synonym, _ := walk(t, b, query("qqzv"), 100)
	sameIDs(t, "qqzv with harbour, qqzv", sortedIDs(synonym), sortedIDs(harbour))

	res := search1(t, b, query("harbour"))
	if res.Total != len(harbour) || len(res.Items) == 0 || res.Items[0].ID != last {
		t.Fatalf("pinned %s for harbour: total %d (want %d), first %v", last, res.Total, len(harbour), ids(res.Items))
	}
	sameIDs(t, "harbour with a pin", sortedIDs(res.Items), sortedIDs(harbour))
	walked, total := walk(t, b, query("harbour"), 3)
	if total != len(harbour) || len(walked) != len(harbour) || walked[0].ID != last {
		t.Errorf("walk of pinned harbour: %d items of %d, first %s; want %d, %s", len(walked), total, walked[0].ID, len(harbour), last)
	}
	sameIDs(t, "walk of harbour with a pin", sortedIDs(walked), sortedIDs(harbour))

	_, err := curation.Parse(curation.Files{Synonyms: "tv, television\n\nbig apple, new york\n"})
	if err == nil || !strings.Contains(err.Error(), "synonyms line 3") {
		t.Errorf("a multi-word synonym on line 3: %v", err)
	}
	if res := search1(t, b, query("harbour")); res.Items[0].ID != last {
		t.Errorf("after a refused file, harbour's first item is %s, want the pinned %s", res.Items[0].ID, last)
	}
	if err := apply(curation.Files{}); err != nil {
		t.Fatalf("apply none: %v", err)
	}
	if res := search1(t, b, query("qqzv")); res.Total != 0 {
		t.Errorf("qqzv finds %d items with no synonyms", res.Total)
	}
}

// sortedIDs are the items' ids sorted: which items, in whatever order.
func sortedIDs(items []search.Item) []string { return slices.Sorted(slices.Values(ids(items))) }
