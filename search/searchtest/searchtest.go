// Package searchtest is the conformance suite every search backend runs: the contract's filters,
// orders, paging, text matching and counts, checked against a reference model on a shared fixture.
package searchtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/catalogue/gen"
	"mediagw/search"
)

// Open builds a backend holding items, for one test. It should register its cleanup with t.
type Open func(t *testing.T, items []search.Item) search.Backend

// callTimeout bounds each backend call, so a hung engine fails the test instead of stalling it.
const callTimeout = 30 * time.Second

// FixturePath is the absolute path of the shared fixture catalogue.
func FixturePath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", "fixture.ndjson")
}

// Fixture reads the shared fixture catalogue.
func Fixture(t testing.TB) []search.Item {
	t.Helper()
	items, err := catalogue.ReadFile(FixturePath())
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return items
}

// Generated is the catalogue gen.Generate makes of n items (at least 10) from seed, read
// back: for tests and benchmarks that need more items than the fixture.
func Generated(t testing.TB, n int, seed int64) []search.Item {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Generate(&buf, n, seed); err != nil {
		t.Fatalf("generate %d items: %v", n, err)
	}
	items := make([]search.Item, 0, n)
	for it, err := range catalogue.Items(catalogue.NewReader(&buf), nil) {
		if err != nil {
			t.Fatalf("read generated items: %v", err)
		}
		items = append(items, it)
	}
	return items
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), callTimeout)
	t.Cleanup(cancel)
	return c
}

// Run checks a backend against the whole contract on the fixture, the operators' rules included:
// every backend stores them (curation.Store).
func Run(t *testing.T, open Open) { run(t, open, true) }

// RunLayer checks a layer of the chain in front of a backend (search/cache) against the contract,
// but for the operators' rules, which the chain hands to each query and tags the version with
// (search/chain), so that no layer learns of them but through the query and the version.
func RunLayer(t *testing.T, open Open) { run(t, open, false) }

func run(t *testing.T, open Open, backend bool) {
	items := Fixture(t)
	b := open(t, underived(items))
	t.Run("Filters", func(t *testing.T) { testFilters(t, b, items) })
	t.Run("ReuseFilters", func(t *testing.T) { testReuseFilters(t, b, items) })
	t.Run("Paging", func(t *testing.T) { testPaging(t, b, items) })
	t.Run("Cursors", func(t *testing.T) { testCursors(t, b, items) })
	t.Run("Text", func(t *testing.T) { testText(t, b, items) })
	t.Run("TextWithFilters", func(t *testing.T) { testTextWithFilters(t, b, items) })
	t.Run("Operators", func(t *testing.T) { testOperators(t, b, items) })
	t.Run("RelevanceOrder", func(t *testing.T) { testRelevance(t, b) })
	t.Run("QuerySyntaxIsText", func(t *testing.T) { testSyntax(t, b) })
	t.Run("Item", func(t *testing.T) { testItem(t, b, items) })
	t.Run("IDsAsGiven", func(t *testing.T) { testIDsAsGiven(t, open) })
	if backend {
		t.Run("Curation", func(t *testing.T) { testCuration(t, open, items) })
	}
	t.Run("SearchReturnsFullItems", func(t *testing.T) { testFullItems(t, b, items) })
	t.Run("Rights", func(t *testing.T) { testRights(t, b, items) })
	t.Run("Categories", func(t *testing.T) { testCategories(t, b, items) })
	t.Run("Authors", func(t *testing.T) { testAuthors(t, b, items) })
	t.Run("ListFilters", func(t *testing.T) { testListFilters(t, b, items) })
	t.Run("ListQueries", func(t *testing.T) { testListQueries(t, b) })
	t.Run("Ping", func(t *testing.T) {
		if err := b.Ping(ctx(t)); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	})
	t.Run("CancelledContext", func(t *testing.T) {
		c, cancel := context.WithCancel(t.Context())
		cancel()
		res, err := b.Search(c, search.NewRequest(search.Query{Text: "harbour", Page: 1, PerPage: 10}))
		if err == nil {
			t.Fatalf("Search with a cancelled context returned %d items and no error", len(res.Items))
		}
	})
}

func search1(t *testing.T, b search.Backend, q search.Query) search.Result {
	t.Helper()
	return searchUnder(t, b, q, nil)
}

// under is the request of q under the rules c.
func under(q search.Query, c search.Curation) *search.Request {
	r := search.NewRequest(q)
	r.Curation = c
	return r
}

// searchUnder is search1 of q under the rules c.
func searchUnder(t *testing.T, b search.Backend, q search.Query, c search.Curation) search.Result {
	t.Helper()
	res, err := b.Search(ctx(t), under(q, c))
	if err != nil {
		t.Fatalf("Search(%s): %v", describe(q), err)
	}
	if res.Items == nil {
		t.Errorf("Search(%s): Items is nil, want a non-nil slice", describe(q))
	}
	if len(res.Items) > q.PerPage {
		t.Errorf("Search(%s): %d items on a page of %d", describe(q), len(res.Items), q.PerPage)
	}
	return res
}

// walk reads every page of q and returns the items in order with the total each page reported.
func walk(t *testing.T, b search.Backend, q search.Query, perPage int) ([]search.Item, int) {
	t.Helper()
	return walkUnder(t, b, q, perPage, nil)
}

// walkUnder is walk of q under the rules c.
func walkUnder(t *testing.T, b search.Backend, q search.Query, perPage int, c search.Curation) ([]search.Item, int) {
	t.Helper()
	q.PerPage = perPage
	var all []search.Item
	total := -1
	for q.Page = 1; ; q.Page++ {
		res := searchUnder(t, b, q, c)
		if total >= 0 && res.Total != total {
			t.Fatalf("Search(%s): total %d, but page 1 said %d", describe(q), res.Total, total)
		}
		total = res.Total
		all = append(all, res.Items...)
		if len(res.Items) < perPage || len(all) >= total {
			break
		}
		if q.Page*perPage >= 10000 {
			t.Fatalf("Search(%s): still more pages at the 10,000 limit", describe(q))
		}
	}
	return all, total
}

func describe(q search.Query) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("q", fmt.Sprintf("%q", q.Text))
	if q.Text == "" {
		parts = parts[:0]
	}
	for i, name := range []string{"type", "category", "language", "license", "reuse", "format", "duration", "has"} {
		add(name, q.Filters()[i])
	}
	add("author", q.Author)
	add("from", q.From)
	add("to", q.To)
	add("sort", string(q.Sort))
	parts = append(parts, fmt.Sprintf("page=%d per_page=%d", q.Page, q.PerPage))
	return strings.Join(parts, " ")
}

// sameIDs reports the first difference between two id sequences.
func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: first difference at %d: got %q, want %q\n got: %v\nwant: %v", what, i, got[i], want[i], got, want)
			return
		}
	}
	t.Errorf("%s: got %d ids, want %d\n got: %v\nwant: %v", what, len(got), len(want), got, want)
}

func testFilters(t *testing.T, b search.Backend, items []search.Item) {
	tests := []struct {
		name string
		q    search.Query
		// min is the fewest items the case must match, so a broken fixture cannot pass vacuously.
		min int
	}{
		{"all", search.Query{}, len(items)},
		{"type photo", search.Query{Type: search.TypePhoto}, 10},
		{"type video", search.Query{Type: search.TypeVideo}, 10},
		{"type document", search.Query{Type: search.TypeDocument}, 10},
		{"category", search.Query{Category: "nature"}, 5},
		{"category with mixed types", search.Query{Category: "people"}, 5},
		{"unknown category", search.Query{Category: "no-such-category"}, 0},
		{"author exact", search.Query{Author: "Émile Durand"}, 2},
		{"author other case", search.Query{Author: "emile durand"}, 1},
		{"author without accent", search.Query{Author: "Emile Durand"}, 1},
		{"author upper case", search.Query{Author: "JOSÉ GARCÍA"}, 1},
		{"author part of the value", search.Query{Author: "Durand"}, 0},
		{"author of a list", search.Query{Author: "Jane Doe"}, 3},
		{"author non-Latin", search.Query{Author: "芥川龍之介"}, 1},
		{"language", search.Query{Language: "fr"}, 4},
		{"language ja", search.Query{Language: "ja"}, 2},
		{"from", search.Query{From: "2000-01-01"}, 10},
		{"to", search.Query{To: "1999-12-31"}, 10},
		{"from to one day", search.Query{From: "2000-01-01", To: "2000-01-01"}, 2},
		{"from to inclusive", search.Query{From: "1999-12-31", To: "2000-01-02"}, 4},
		{"leap day", search.Query{From: "2020-02-29", To: "2020-02-29"}, 1},
		{"earliest", search.Query{To: "1819-01-01"}, 1},
		{"latest", search.Query{From: "2026-01-29"}, 1},
		{"empty range", search.Query{From: "2030-01-01"}, 0},
		{"type and language", search.Query{Type: search.TypeVideo, Language: "en"}, 5},
		{"category and dates", search.Query{Category: "general-works", From: "1999-12-31", To: "2020-02-29"}, 4},
		{"author and type", search.Query{Author: "Peter Hall", Type: search.TypePhoto}, 4},
		{"all filters", search.Query{Type: search.TypePhoto, Category: "places", Author: "Jane Doe", Language: "en", From: "2021-01-01", To: "2021-12-31"}, 1},
		{"contradiction", search.Query{Type: search.TypeVideo, Category: "objects"}, 0},
	}
	for _, tt := range tests {
		for _, s := range search.Sorts {
			q := tt.q
			q.Sort = s
			t.Run(tt.name+"/"+string(s), func(t *testing.T) {
				want := expected(items, q)
				if len(want) < tt.min {
					t.Fatalf("fixture: %s matches %d items, the case needs %d", describe(q), len(want), tt.min)
				}
				got, total := walk(t, b, q, 50)
				if total != len(want) {
					t.Errorf("Search(%s): total %d, want %d", describe(q), total, len(want))
				}
				sameIDs(t, describe(q), ids(got), want)
			})
		}
	}
}

func testPaging(t *testing.T, b search.Backend, items []search.Item) {
	const perPage = 7
	for _, s := range search.Sorts {
		t.Run(string(s), func(t *testing.T) {
			q := search.Query{Sort: s}
			want := expected(items, q)
			got, total := walk(t, b, q, perPage)
			if total != len(items) {
				t.Errorf("total %d, want %d", total, len(items))
			}
			seen := map[string]bool{}
			for _, id := range ids(got) {
				if seen[id] {
					t.Errorf("%s appears on two pages", id)
				}
				seen[id] = true
			}
			if len(seen) != len(items) {
				t.Errorf("pages hold %d distinct items, want %d", len(seen), len(items))
			}
			sameIDs(t, "pages of "+string(s), ids(got), want)

			last := (len(items) + perPage - 1) / perPage
			q.PerPage = perPage
			q.Page = last
			if res := search1(t, b, q); len(res.Items) != len(items)-(last-1)*perPage {
				t.Errorf("last page %d holds %d items, want %d", last, len(res.Items), len(items)-(last-1)*perPage)
			}
			q.Page = last + 1
			res := search1(t, b, q)
			if len(res.Items) != 0 || res.Total != len(items) {
				t.Errorf("page past the end: %d items, total %d; want 0 items, total %d", len(res.Items), res.Total, len(items))
			}
		})
	}
}

func testText(t *testing.T, b search.Backend, items []search.Item) {
	tests := []struct {
		name, text string
		want       []string
		// exact: the results are exactly want, so matching is not so loose that everything matches.
		exact bool
	}{
		{"title", "harbour", []string{"ph-full", "ph-nodate-1", "ph-nodate-2"}, false},
		{"title words", "Sunset over the harbour", []string{"ph-full"}, false},
		{"summary only", "lighthouse", []string{"ph-summary"}, true},
		{"description only", "marmalade", []string{"pg-descr"}, true},
		{"tags only", "zeppelin", []string{"vi-tags"}, true},
		{"keywords only", "quasar", []string{"ph-keywords"}, true},
		{"author", "Quintero", []string{"ph-author"}, true},
		{"author in a list", "guido", []string{"vi-full"}, false},
		{"author inverted", "Austen", []string{"pg-pride", "pg-pride-b"}, false},
		{"accent folded in query", "elan", []string{"ph-elan-1", "ph-elan-2", "ph-elan-3", "ph-elan-4"}, false},
		{"accent in query", "Élan", []string{"ph-elan-1", "ph-elan-2", "ph-elan-3", "ph-elan-4"}, false},
		{"upper case", "ÉLAN", []string{"ph-elan-1", "ph-elan-2", "ph-elan-3", "ph-elan-4"}, false},
		{"accent in data", "jons", []string{"pg-nova"}, false},
		{"accents in author", "jose garcia", []string{"ph-jose-1", "ph-jose-2", "ph-jose-3"}, false},
		{"stroke letter folded", "lukasz", []string{"vi-asyncio"}, false},
		{"stroke letter in query", "ŁUKASZ", []string{"vi-asyncio"}, false},
		{"sharp s folded", "strasse", []string{"pg-strasse", "ph-strasse"}, false},
		{"sharp s in query", "Straße", []string{"pg-strasse", "ph-strasse"}, false},
		{"CJK title", "羅生門", []string{"pg-rashomon"}, false},
		{"CJK inside text", "機械学習", []string{"vi-pyconjp"}, false},
		{"Korean", "서울의", []string{"ph-seoul"}, false},
		{"Korean word with a typo", "서울이", []string{"ph-seoul"}, false},
		{"kana without its voicing mark", "て始める", []string{"vi-pyconjp"}, false},
		{"words joined by a full-width colon", "dataframe", []string{"vi-pyconjp"}, false},
		{"Cyrillic lower case", "война", []string{"pg-voyna"}, false},
		{"Greek without accent", "ηλεκτρα", []string{"pg-elektra"}, false},
		{"Greek upper case", "ΗΛΈΚΤΡΑ", []string{"pg-elektra"}, false},
		{"Hebrew", "השירים", []string{"pg-shir"}, false},
		{"Arabic", "ليلة", []string{"pg-alf"}, false},
		{"typo substitution", "chrysanthenum", []string{"ph-chrys"}, false},
		{"typo in second word", "Pride and Prejudise", []string{"pg-pride", "pg-pride-b"}, false},
		{"typo c for k", "kaleidoskope", []string{"ph-kaleido"}, false},
		{"typo missing letter", "generatrs", []string{"vi-generators"}, false},
		{"typo extra letter", "marmalaade", []string{"pg-descr"}, false},
		{"typo in a 6-letter word", "quaser", []string{"ph-keywords"}, false},
		{"typo in a 5-letter word", "cuora", []string{"pg-cuore"}, false},
		{"typo two letters in a long word", "chrysantenum", []string{"ph-chrys"}, false},
		// Two adjacent letters swapped are one typo, as the engines' fuzzy queries count them.
		{"typo two letters swapped", "bilss", []string{"ph-bliss"}, false},
		{"typo two last letters swapped", "cuoer", []string{"pg-cuore"}, false},
		{"typo swapped and one missing in a long word", "chrysnthemmu", []string{"ph-chrys"}, false},
		{"every word must match", "quintero zeppelin", []string{}, true},
		{"words in different fields", "quasar desert", []string{"ph-keywords"}, true},
		{"a typo among the words", "quintero markett", []string{"ph-author"}, true},
		{"punctuation between words", "zeppelin & history", []string{"vi-tags"}, true},
		{"words joined by a hyphen", "quasar-desert", []string{"ph-keywords"}, true},
		{"words joined by a slash", "desert/quasar", []string{"ph-keywords"}, true},
		{"words joined by a comma", "quasar,desert", []string{"ph-keywords"}, true},
		{"only punctuation", "& -- !", []string{}, true},
	}
	byID := map[string]search.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, id := range tt.want {
				if _, ok := byID[id]; !ok {
					t.Fatalf("fixture has no item %q", id)
				}
			}
			q := search.Query{Text: tt.text, Sort: search.SortRelevance}
			got, total := walk(t, b, q, 50)
			if total != len(got) {
				t.Errorf("Search(%s): total %d, but the pages hold %d", describe(q), total, len(got))
			}
			gotIDs := ids(got)
			for _, id := range tt.want {
				if !slices.Contains(gotIDs, id) {
					t.Errorf("Search(%s) misses %s (%q); got %v", describe(q), id, byID[id].Title, gotIDs)
				}
			}
			if tt.exact && len(gotIDs) != len(tt.want) {
				t.Errorf("Search(%s) = %v, want only %v", describe(q), gotIDs, tt.want)
			}
		})
	}
}

// testTextWithFilters: text and filters together return what the text finds that passes the filters.
func testTextWithFilters(t *testing.T, b search.Backend, items []search.Item) {
	texts := []string{"untitled", "walking the dog", "harbour", "elan", "python", "marsh birds", "millennium"}
	filters := []search.Query{
		{Type: search.TypePhoto},
		{Type: search.TypeVideo, Language: "en"},
		{Category: "people"},
		{Author: "Peter Hall"},
		{Author: "Jane Doe"},
		{From: "1990-01-01", To: "2014-12-31"},
		{Language: "fr"},
		{Category: "nature", Type: search.TypeDocument},
	}
	byID := map[string]search.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	nonEmpty := 0
	for _, text := range texts {
		all, _ := walk(t, b, search.Query{Text: text, Sort: search.SortNewest}, 50)
		for _, f := range filters {
			q := f
			q.Text = text
			q.Sort = search.SortNewest
			var want []string
			for _, it := range all {
				if matches(byID[it.ID], f) {
					want = append(want, it.ID)
				}
			}
			got, total := walk(t, b, q, 50)
			if total != len(want) {
				t.Errorf("Search(%s): total %d, want %d", describe(q), total, len(want))
			}
			sameIDs(t, describe(q), ids(got), want)
			if len(want) > 0 {
				nonEmpty++
			}
		}
	}
	if nonEmpty < 10 {
		t.Errorf("only %d text and filter combinations match anything; the fixture should give more", nonEmpty)
	}
}

func testRelevance(t *testing.T, b search.Backend) {
	// The four "Lightning Talks" items have the same text, so the same score: newest, then id.
	q := search.Query{Text: "lightning talks", Sort: search.SortRelevance}
	got, _ := walk(t, b, q, 50)
	var tied []string
	for _, id := range ids(got) {
		if strings.HasPrefix(id, "lt-") {
			tied = append(tied, id)
		}
	}
	sameIDs(t, "items with equal scores", tied, []string{"lt-3", "lt-1", "lt-2", "lt-0"})

	for _, text := range []string{"python", "walking the dog", "untitled", "harbour", "elan"} {
		q := search.Query{Text: text, Sort: search.SortRelevance}
		whole, total := walk(t, b, q, 50)
		if total < 3 {
			t.Errorf("Search(%s): %d items; the fixture should give at least 3", describe(q), total)
		}
		for _, perPage := range []int{1, 2, 3} {
			paged, _ := walk(t, b, q, perPage)
			sameIDs(t, fmt.Sprintf("%s in pages of %d", describe(q), perPage), ids(paged), ids(whole))
		}
	}
}

func testSyntax(t *testing.T, b search.Backend) {
	for _, text := range []string{
		`"`, `"harbour`, `(`, `harbour)`, `*`, `harb*`, `:`, `title:harbour`, `\`, `harbour\`,
		`OR`, `harbour OR sunset`, `harbour AND NOT sunset`, `+harbour -sunset`, `harbour~`, `harbour^5`,
		`~`, `^`, `-`, `+`, `[a TO z]`, `{a TO z}`, `/regex.*/`, `?`, `!`, `&&`, `||`, `<>`, `'`, `%`,
		`_id:ph-full`, `*:*`, `a:b:c`, "\x00", "tab\tseparated", `{"json": true}`, `<script>`, `1984`,
	} {
		q := search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 20}
		res, err := b.Search(ctx(t), search.NewRequest(q))
		if err != nil {
			t.Errorf("Search(%s): %v", describe(q), err)
			continue
		}
		if res.Items == nil {
			t.Errorf("Search(%s): Items is nil", describe(q))
		}
	}
	// Syntax characters around words are only separators: the words still match.
	for _, text := range []string{`"harbour"`, `(harbour)`, `sunset:harbour`, `harbour*`, `harbour\`, `+harbour`} {
		q := search.Query{Text: text, Sort: search.SortRelevance}
		got, _ := walk(t, b, q, 50)
		if !slices.Contains(ids(got), "ph-full") {
			t.Errorf("Search(%s) misses ph-full; got %v", describe(q), ids(got))
		}
	}
}

func testItem(t *testing.T, b search.Backend, items []search.Item) {
	for _, want := range items {
		got, err := b.Item(ctx(t), want.ID)
		if err != nil {
			t.Errorf("Item(%q): %v", want.ID, err)
			continue
		}
		if !reflect.DeepEqual(normalize(got), normalize(want)) {
			t.Errorf("Item(%q) =\n%+v\nwant\n%+v", want.ID, got, want)
		}
	}
	for _, id := range []string{"no-such-item", "PH-FULL", "ph-ful", "ph-full.", "x"} {
		_, err := b.Item(ctx(t), id)
		if !errors.Is(err, search.ErrNotFound) {
			t.Errorf("Item(%q): error %v, want one wrapping search.ErrNotFound", id, err)
		}
	}
}

// OddIDs are ids as real catalogues name items: punctuation, a '/', percent signs, 512 bytes, and
// "café" in NFC and in NFD, which are two ids.
var OddIDs = []string{
	"pyvideo-pycon-fr-2023-Nua,-un-PaaS-open-source-en-Python-pour-l'auto-hebergement-de-vos-applications",
	"a+b(c)!d",
	"x/y%2Fz?w#v&u=t",
	"z" + strings.Repeat("é", (search.MaxIDBytes-2)/2) + "z",
	"caf\u00e9",
	"cafe\u0301",
	"羅生門",
	"-",
	"~",
}

// testIDsAsGiven: a backend stores and returns every id byte for byte, finds each, and orders
// by id in byte order.
func testIDsAsGiven(t *testing.T, open Open) {
	items := make([]search.Item, len(OddIDs))
	for i, id := range OddIDs {
		if err := search.CheckID(id); err != nil {
			t.Fatalf("fixture id %q: %v", id, err)
		}
		items[i] = search.Item{ID: id, Type: search.TypeDocument, Title: fmt.Sprintf("Odd id %d", i), Date: "2020-01-01"}
	}
	b := open(t, items)
	for _, want := range items {
		got, err := b.Item(ctx(t), want.ID)
		if err != nil || got.ID != want.ID || got.Title != want.Title {
			t.Errorf("Item(%q) = %q %q, %v; want %q", want.ID, got.ID, got.Title, err, want.Title)
		}
	}
	for _, id := range []string{"../etc/passwd", "cafe", "caf", "x", "x/y/z?w#v&u=t", "a+b(c)!", "%2F"} {
		if _, err := b.Item(ctx(t), id); !errors.Is(err, search.ErrNotFound) {
			t.Errorf("Item(%q): error %v, want one wrapping search.ErrNotFound", id, err)
		}
	}
	got, total := walk(t, b, search.Query{Sort: search.SortNewest}, 4)
	if want := slices.Sorted(slices.Values(OddIDs)); total != len(want) || !slices.Equal(ids(got), want) {
		t.Errorf("equal dates order by id in byte order: got %q (total %d), want %q", ids(got), total, want)
	}
}

func testFullItems(t *testing.T, b search.Backend, items []search.Item) {
	byID := map[string]search.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	got, _ := walk(t, b, search.Query{Sort: search.SortAZ}, 50)
	text, _ := walk(t, b, search.Query{Text: "harbour sunset", Sort: search.SortRelevance}, 50)
	for _, it := range append(got, text...) {
		if want := byID[it.ID]; !reflect.DeepEqual(normalize(it), normalize(want)) {
			t.Errorf("Search returned\n%+v\nwant\n%+v", it, want)
		}
	}
}

func testCategories(t *testing.T, b search.Backend, items []search.Item) {
	want := categories(items)
	got, err := b.Categories(ctx(t), search.Query{})
	if err != nil {
		t.Fatalf("Categories: %v", err)
	}
	if len(got) != len(want) {
		t.Errorf("Categories: %d, want %d: %+v", len(got), len(want), got)
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g != w {
			t.Errorf("Categories[%d] = %+v, want %+v", i, g, w)
			continue
		}
		if res := search1(t, b, search.Query{Category: search.ListOf(g.Slug), Sort: search.SortNewest, Page: 1, PerPage: 1}); res.Total != g.Count {
			t.Errorf("category %s counts %d, but a search for it finds %d", g.Slug, g.Count, res.Total)
		}
	}
}

// checkAuthorOrder checks authors against the definition of their order, search.AuthorLess, since
// the expected list is itself sorted with search.SortAuthors.
func checkAuthorOrder(t *testing.T, authors []search.Author) {
	t.Helper()
	for i := 1; i < len(authors); i++ {
		if !search.AuthorLess(authors[i-1].Name, authors[i].Name) {
			t.Errorf("Authors: %q comes before %q", authors[i-1].Name, authors[i].Name)
			return
		}
	}
}

func testAuthors(t *testing.T, b search.Backend, items []search.Item) {
	want := authors(items)
	got, err := b.Authors(ctx(t), search.Query{})
	if err != nil {
		t.Fatalf("Authors: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Authors =\n%+v\nwant\n%+v", got, want)
	}
	checkAuthorOrder(t, got)
	for _, a := range got {
		if res := search1(t, b, search.Query{Author: a.Name, Sort: search.SortNewest, Page: 1, PerPage: 1}); res.Total != a.Count {
			t.Errorf("author %q counts %d, but a search for it finds %d", a.Name, a.Count, res.Total)
		}
	}
}

// ThenFail yields items, then err: a catalogue that breaks part way through a load.
func ThenFail(items []search.Item, err error) iter.Seq2[search.Item, error] {
	return func(yield func(search.Item, error) bool) {
		for it := range search.Values(items) {
			if !yield(it, nil) {
				return
			}
		}
		yield(search.Item{}, err)
	}
}

// AnswersOnly skips t under the race detector: t checks what a backend answers over a whole
// catalogue, which the detector makes several times slower without looking at more of its
// concurrency than the other tests do. make test runs such tests again without it (ANSWER_TESTS).
func AnswersOnly(t testing.TB) {
	t.Helper()
	if raceDetector {
		t.Skip("answers over a whole catalogue: make test runs this without the race detector (ANSWER_TESTS)")
	}
}
