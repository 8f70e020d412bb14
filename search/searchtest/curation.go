package searchtest

import (
	"slices"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/curation"
	"mediagw/search/live"
)

// testCuration: every backend stores the operators' synonyms and pins (curation.Store), and
// applies the set the owner of its version reads beside it (search/live), as the chain hands it
// to each query: with `harbour, qqzv` applied, qqzv finds what harbour finds; a pinned item comes
// first for its query, the others following without duplicates and the total unchanged; with
// `zzqwood => harbour`, each harbour zzqwood finds has its match marked (search.Matched); the
// stored set read beside the one held is that one, not decoded again; a file
// with a bad line is refused with its number and the applied set stays served.
func testCuration(t *testing.T, open Open, items []search.Item) {
	b := open(t, items)
	c, ok := b.(curation.Store)
	if !ok {
		t.Fatalf("the backend %T stores no rules: every backend is a curation.Store", b)
	}
	owner := live.New(b.Version, live.Options{Rules: c.Rules})
	query := func(text string) search.Query {
		q := search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 100}
		q.Normalize()
		return q
	}
	rules := func() search.Curation { return owner.Snapshot().Curation() }
	harbour, _ := walkUnder(t, b, query("harbour"), 100, rules())
	if len(harbour) < 2 {
		t.Fatalf("the fixture has %d items for harbour, want 2 or more", len(harbour))
	}
	if res := searchUnder(t, b, query("qqzv"), rules()); res.Total != 0 {
		t.Fatalf("qqzv finds %d items before any synonym", res.Total)
	}
	last := harbour[len(harbour)-1].ID
	apply := func(f curation.Files) error {
		r, err := curation.Parse(f)
		if err != nil {
			return err
		}
		if err := c.ApplyRules(ctx(t), r); err != nil {
			return err
		}
		// The owner reads the set beside the version now, rather than on its next tick.
		_, err = owner.Ask(ctx(t))
		return err
	}
	if err := apply(curation.Files{Synonyms: "# test\nharbour, qqzv\nzzqwood => harbour\n", Pins: "Harbour! => " + last + "\n"}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	stored, err := c.Rules(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := c.Rules(ctx(t), stored); err != nil || again != stored {
		t.Errorf("the stored set read again beside the one held: %v; want the held set itself, not decoded again", err)
	}
	synonym, _ := walkUnder(t, b, query("qqzv"), 100, rules())
	sameIDs(t, "qqzv with harbour, qqzv", sortedIDs(synonym), sortedIDs(harbour))

	res := searchUnder(t, b, query("harbour"), rules())
	if res.Total != len(harbour) || len(res.Items) == 0 || res.Items[0].ID != last {
		t.Fatalf("pinned %s for harbour: total %d (want %d), first %v", last, res.Total, len(harbour), ids(res.Items))
	}
	sameIDs(t, "harbour with a pin", sortedIDs(res.Items), sortedIDs(harbour))
	walked, total := walkUnder(t, b, query("harbour"), 3, rules())
	if total != len(harbour) || len(walked) != len(harbour) || walked[0].ID != last {
		t.Errorf("walk of pinned harbour: %d items of %d, first %s; want %d, %s", len(walked), total, walked[0].ID, len(harbour), last)
	}
	sameIDs(t, "walk of harbour with a pin", sortedIDs(walked), sortedIDs(harbour))

	zq := query("zzqwood")
	zq.Highlight = true
	res = searchUnder(t, b, zq, rules())
	if res.Total != len(harbour) {
		t.Fatalf("zzqwood with zzqwood => harbour: total %d, want %d", res.Total, len(harbour))
	}
	for _, it := range res.Items {
		marked := false
		for _, s := range search.Matched(it, under(zq, rules())) {
			marked = marked || strings.Contains(s, "<mark>")
		}
		if !marked {
			t.Errorf("zzqwood found %s (%q) but marks nothing of it", it.ID, it.Title)
		}
	}

	_, err = curation.Parse(curation.Files{Synonyms: "tv, television\n\nbig apple, new york\n"})
	if err == nil || !strings.Contains(err.Error(), "synonyms line 3") {
		t.Errorf("a multi-word synonym on line 3: %v", err)
	}
	if res := searchUnder(t, b, query("harbour"), rules()); res.Items[0].ID != last {
		t.Errorf("after a refused file, harbour's first item is %s, want the pinned %s", res.Items[0].ID, last)
	}
	if err := apply(curation.Files{}); err != nil {
		t.Fatalf("apply none: %v", err)
	}
	if res := searchUnder(t, b, query("qqzv"), rules()); res.Total != 0 {
		t.Errorf("qqzv finds %d items with no synonyms", res.Total)
	}
}

// sortedIDs are the items' ids sorted: which items, in whatever order.
func sortedIDs(items []search.Item) []string { return slices.Sorted(slices.Values(ids(items))) }
