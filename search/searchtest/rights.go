package searchtest

import (
	"slices"
	"testing"

	"mediagw/search"
	"mediagw/search/rights"
)

// derived is what the format's rules read from an item's catalogue values: the model the served
// items are held to.
type derived struct {
	license  rights.License
	format   string
	duration string
}

// underived is items without what Item.Derive reads, which a backend derives itself for every
// document it builds.
func underived(items []search.Item) []search.Item {
	out := slices.Clone(items)
	for i := range out {
		out[i].MediaLicense, out[i].Format, out[i].Duration = rights.License{}, "", ""
	}
	return out
}

func modelOf(it search.Item) derived {
	return derived{rights.Read(it.Rights), search.Format(it.MimeType), search.Duration(it.DurationSeconds)}
}

// testRights: every item, from Item and from every page of a search, carries the licence its
// rights statement reads as, its format and its duration bucket; the fixture has every licence id.
func testRights(t *testing.T, b search.Backend, items []search.Item) {
	model := map[string]derived{}
	ids := map[string]bool{}
	for _, it := range items {
		model[it.ID] = modelOf(it)
		ids[model[it.ID].license.ID] = true
	}
	for _, id := range rights.IDs {
		if !ids[id] {
			t.Errorf("no fixture item reads as licence %s: the suite would not hold it", id)
		}
	}
	check := func(how string, it search.Item) {
		got := derived{it.MediaLicense, it.Format, it.Duration}
		if want := model[it.ID]; got != want {
			t.Errorf("%s %s (rights %q, mime_type %q): %+v, want %+v", how, it.ID, it.Rights, it.MimeType, got, want)
		}
	}
	for _, it := range items {
		got, err := b.Item(ctx(t), it.ID)
		if err != nil {
			t.Fatalf("Item(%q): %v", it.ID, err)
		}
		check("Item", got)
	}
	all, _ := walk(t, b, search.Query{Sort: search.SortNewest}, 50)
	for _, it := range all {
		check("Search", it)
	}
	if len(all) != len(items) {
		t.Errorf("a search of everything walked %d items, want %d", len(all), len(items))
	}
}
