package searchtest

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/text"
)

// listFilters are the items filters the lists' counts are checked under.
var listFilters = []search.Query{
	{Type: "photo"},
	{Type: "document,video", Language: "en"},
	{Language: "es,fr"},
	{Category: "language-and-literature"},
	{Category: "nature,places", Type: "photo"},
	{From: "2015-01-01", To: "2021-12-31"},
	{Reuse: "commercial"},
	{Has: "thumbnail"},
	{License: "cc0,pdm", Format: "jpeg"},
	{Duration: "short,long"},
	{Type: "video", Language: "zz"}, // finds nothing: empty lists
}

// modelCategories is what Categories must return under f: the counts of the items f finds, each
// category named over all its items.
func modelCategories(items []search.Item, f search.Query) []search.Category {
	names := map[string]string{}
	for _, c := range categories(items) {
		names[c.Slug] = c.Name
	}
	out := categories(filtered(items, f))
	for i := range out {
		out[i].Name = names[out[i].Slug]
	}
	return out
}

func filtered(items []search.Item, f search.Query) []search.Item {
	var out []search.Item
	for _, it := range items {
		if matches(it, f) {
			out = append(out, it)
		}
	}
	return out
}

// testListFilters: under each filter, every count equals the total of a search with that author
// or category and the same filters, and entries with none are left out.
func testListFilters(t *testing.T, b search.Backend, items []search.Item) {
	for _, f := range listFilters {
		as, err := b.Authors(ctx(t), f)
		if err != nil {
			t.Fatalf("Authors(%+v): %v", f, err)
		}
		if want := authors(filtered(items, f)); !slices.Equal(as, want) || as == nil {
			t.Errorf("Authors(%+v) =\n%+v\nwant\n%+v (never nil)", f, as, want)
		}
		for _, a := range as {
			q := f
			q.Author, q.Sort, q.Page, q.PerPage = a.Name, search.SortNewest, 1, 1
			if res := search1(t, b, q); res.Total != a.Count {
				t.Errorf("under %+v author %q counts %d, but a search for it finds %d", f, a.Name, a.Count, res.Total)
			}
		}
		cf := f
		cf.Category = "" // the categories list takes no category filter
		cs, err := b.Categories(ctx(t), cf)
		if err != nil {
			t.Fatalf("Categories(%+v): %v", cf, err)
		}
		if want := modelCategories(items, cf); !slices.Equal(cs, want) || cs == nil {
			t.Errorf("Categories(%+v) =\n%+v\nwant\n%+v (never nil)", cf, cs, want)
		}
		for _, c := range cs {
			q := cf
			q.Category, q.Sort, q.Page, q.PerPage = search.ListOf(c.Slug), search.SortNewest, 1, 1
			if res := search1(t, b, q); res.Total != c.Count {
				t.Errorf("under %+v category %s counts %d, but a search for it finds %d", cf, c.Slug, c.Count, res.Total)
			}
		}
	}
}

// modelNameMatch is the lists' name rule: every word of q, folded, is a word of the name, the
// last a prefix of one.
func modelNameMatch(q, name string) bool {
	words, have := text.Words(q), text.Words(name)
	if len(words) == 0 {
		return false
	}
	for i := range have {
		have[i] = text.Fold(have[i])
	}
	for i, w := range words {
		w = text.Fold(w)
		if i < len(words)-1 && !slices.Contains(have, w) {
			return false
		}
		if i == len(words)-1 && !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, w) }) {
			return false
		}
	}
	return true
}

// modelList is what a list query selects from list, in its name order: the entries q finds, by
// name or by count then name.
func modelList[T search.Entry](list []T, lq search.ListQuery, count func(T) int) []T {
	var out []T
	for _, e := range list {
		if lq.Text == "" || modelNameMatch(lq.Text, search.EntryName(e)) {
			out = append(out, e)
		}
	}
	if lq.Sort == search.ListByCount {
		slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(count(b), count(a)) })
	}
	return out
}

// testListQueries: a list query over a backend's list finds what the name rule finds, in its
// order, and its pages reach every entry once.
func testListQueries(t *testing.T, b search.Backend) {
	as, err := b.Authors(ctx(t), search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := b.Categories(ctx(t), search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "austen", "AUST", "jane aus", "jan aus", "emile", "GARCÍA", "lee", "мари", "толстой лев", "nature", "lit", "zzz", "..."} {
		for _, sort := range search.ListSorts {
			checkListQuery(t, "authors", as, search.ListQuery{Text: text, Sort: sort}, func(a search.Author) int { return a.Count })
			checkListQuery(t, "categories", cs, search.ListQuery{Text: text, Sort: sort}, func(c search.Category) int { return c.Count })
		}
	}
}

func checkListQuery[T search.Entry](t *testing.T, what string, list []T, lq search.ListQuery, count func(T) int) {
	t.Helper()
	want := modelList(list, lq, count)
	idx := search.NewListIndex(list)
	whole, total := idx.Select(lq)
	if !slices.Equal(whole, want) || total != len(want) {
		t.Errorf("%s %+v = %v (%d), want %v", what, lq, whole, total, want)
	}
	var paged []T
	lq.PerPage = 3
	for lq.Page = 1; lq.Page <= (len(want)+2)/3+1; lq.Page++ {
		page, n := idx.Select(lq)
		if n != len(want) {
			t.Errorf("%s %+v: total %d, want %d", what, lq, n, len(want))
		}
		paged = append(paged, page...)
	}
	if !slices.Equal(paged, want) {
		t.Errorf("%s %+v: the pages hold %v, want %v once each", what, lq, paged, want)
	}
}

// RunLists checks a backend's lists against the model under the items filters: for a backend
// set up otherwise than Run's (an index of several shards).
func RunLists(t *testing.T, open Open) {
	items := Fixture(t)
	b := open(t, items)
	t.Run("Categories", func(t *testing.T) { testCategories(t, b, items) })
	t.Run("Authors", func(t *testing.T) { testAuthors(t, b, items) })
	t.Run("ListFilters", func(t *testing.T) { testListFilters(t, b, items) })
}
