package searchtest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mediagw/catalogue"
	"mediagw/search"
)

// RealDataPath finds ../shared/data/catalogue.ndjson beside the module root, and reports whether it exists.
func RealDataPath() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
	path := filepath.Join(dir, "..", "shared", "data", "catalogue.ndjson")
	_, err = os.Stat(path)
	return path, err == nil
}

// realStats is the part of the real catalogue's stats.json the checks use.
type realStats struct {
	Total  int            `json:"total"`
	ByType map[string]int `json:"by_type"`
}

// RunRealData loads the real catalogue (8,222 items) into a backend and checks that it answers
// sensibly: counts, known titles, every order. It skips when the file is not there.
func RunRealData(t *testing.T, open Open) {
	AnswersOnly(t)
	path, items, rejected := realCatalogue(t)
	want := readRealStats(t, path)
	t.Run("NoRejects", func(t *testing.T) {
		if len(rejected) != 0 || len(items) != want.Total {
			t.Errorf("accepted %d, rejected %d (first: %v); stats.json says %d lines, every one loadable",
				len(items), len(rejected), firstOf(rejected), want.Total)
		}
	})
	b := open(t, items)

	t.Run("Totals", func(t *testing.T) { testRealTotals(t, b, items, want) })
	t.Run("Reuse", func(t *testing.T) { testRealReuse(t, b, items) })
	t.Run("Categories", func(t *testing.T) { testCategories(t, b, items) })
	t.Run("Authors", func(t *testing.T) { testRealAuthors(t, b, items) })
	t.Run("KnownItems", func(t *testing.T) { testKnownItems(t, b, items) })
	t.Run("Items", func(t *testing.T) { testRealItems(t, b, items) })
	t.Run("Extras", func(t *testing.T) { runRealExtras(t, b, items) })
	t.Run("Walks", func(t *testing.T) { testWalks(t, b, items, "history") })
	// Every page of 8,000 items in every order is slow under the race detector: walk a subset
	// whole and sample pages of the whole set at the start, middle and end.
	t.Run("Orders", func(t *testing.T) {
		for _, s := range search.Sorts {
			t.Run(string(s), func(t *testing.T) { testRealOrder(t, b, items, s) })
		}
		testTextPages(t, b)
	})
}

// readRealStats reads the stats.json beside the real catalogue at path.
func readRealStats(t *testing.T, path string) realStats {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), "stats.json"))
	if err != nil {
		t.Fatalf("read stats.json: %v", err)
	}
	var want realStats
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("decode stats.json: %v", err)
	}
	return want
}

// testRealTotals: the total of everything and of each type is what the items and stats.json say.
func testRealTotals(t *testing.T, b search.Backend, items []search.Item, want realStats) {
	res := search1(t, b, search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1})
	if res.Total != len(items) {
		t.Errorf("total %d, want %d", res.Total, len(items))
	}
	for typ, n := range want.ByType {
		q := search.Query{Type: search.ListOf(typ), Sort: search.SortNewest, Page: 1, PerPage: 1}
		got := search1(t, b, q).Total
		if model := len(expected(items, q)); got != model {
			t.Errorf("type %s: total %d, but %d items read have it", typ, got, model)
		}
		if got != n {
			t.Errorf("type %s: total %d; stats.json says %d", typ, got, n)
		}
	}
}

// testRealAuthors: the authors list is the model's, in its order, and each count is what a search
// for the author finds.
func testRealAuthors(t *testing.T, b search.Backend, items []search.Item) {
	want := authors(items)
	got, err := b.Authors(ctx(t), search.Query{})
	if err != nil {
		t.Fatalf("Authors: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Authors: %d authors, want %d (or the order or counts differ)", len(got), len(want))
	}
	checkAuthorOrder(t, got)
	for _, a := range sampleAuthors(got, 50) {
		if res := search1(t, b, search.Query{Author: a.Name, Sort: search.SortNewest, Page: 1, PerPage: 1}); res.Total != a.Count {
			t.Errorf("author %q counts %d, but a search for it finds %d", a.Name, a.Count, res.Total)
		}
	}
}

// testKnownItems: searches a reader would type (misspelt, unaccented, in other scripts) find the
// book they mean on the first page.
func testKnownItems(t *testing.T, b search.Backend, items []search.Item) {
	tests := []struct{ text, title, author string }{
		{"Pride and Prejudice", "Pride and Prejudice", "Austen, Jane"},
		{"pride prejudice austen", "Pride and Prejudice", "Austen, Jane"},
		{"羅生門", "羅生門", "Akutagawa, Ryunosuke"},
		{"jons jakob berzelius", "Nova analysis aquarum Medeviensium", "Berzelius, Jöns Jakob, friherre"},
		{"ηλεκτρα", "Ηλέκτρα", "Euripides"},
		{"Pride and Prejudise", "Pride and Prejudice", "Austen, Jane"},
		// A possessive and an elided article are no part of the word they are joined to.
		{"winter tale shakespeare", "The Winter's Tale", "Shakespeare, William"},
		{"alice adventures", "Alice's Adventures in Wonderland", "Carroll, Lewis"},
		{"amerique septentrionale", "Biographie des Sagamos illustres  de l'Amérique Septentrionale (1848)", "Bibaud, Maximilien (François Marie Uncas Maximilien)"},
		{"poesies orleans", "Poésies de Charles d'Orléans", "Charles, d'Orléans"},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(items, func(it search.Item) bool { return it.Title == tt.title && it.Author == tt.author })
		if i < 0 {
			t.Errorf("the real catalogue has no %q by %q", tt.title, tt.author)
			continue
		}
		q := search.Query{Text: tt.text, Sort: search.SortRelevance, Page: 1, PerPage: 20}
		if res := search1(t, b, q); !slices.Contains(ids(res.Items), items[i].ID) {
			t.Errorf("Search(%s): %s (%q) not on the first page; got %v", describe(q), items[i].ID, tt.title, ids(res.Items))
		}
	}
}

// testRealItems: items come back as they were read, those with unusual ids included.
func testRealItems(t *testing.T, b search.Backend, items []search.Item) {
	// Every item whose id is outside the old rule (punctuation, over 128 bytes), and a sample.
	for i := range items {
		if i%97 != 0 && len(items[i].ID) <= 128 && !strings.ContainsAny(items[i].ID, ",+'()!") {
			continue
		}
		got, err := b.Item(ctx(t), items[i].ID)
		if err != nil {
			t.Errorf("Item(%q): %v", items[i].ID, err)
		} else if !reflect.DeepEqual(normalize(got), normalize(items[i])) {
			t.Errorf("Item(%q) =\n%+v\nwant\n%+v", items[i].ID, got, items[i])
		}
	}
	if _, err := b.Item(ctx(t), "no-such-item"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("Item(unknown): %v, want search.ErrNotFound", err)
	}
}

// testRealOrder: in order s, a subset walked whole and pages of the whole set at the start,
// middle and end hold the model's items.
func testRealOrder(t *testing.T, b search.Backend, items []search.Item, s search.Sort) {
	sub := search.Query{Sort: s, Language: "fr"}
	got, total := walk(t, b, sub, 50)
	want := expected(items, sub)
	if total != len(want) {
		t.Errorf("Search(%s): total %d, want %d", describe(sub), total, len(want))
	}
	sameIDsShort(t, describe(sub), ids(got), want)

	q := search.Query{Sort: s, PerPage: 50}
	all := expected(items, q)
	last := (len(all) + q.PerPage - 1) / q.PerPage
	for _, page := range []int{1, 2, 3, last / 2, last/2 + 1, last - 1, last, last + 1} {
		q.Page = page
		res := search1(t, b, q)
		if res.Total != len(all) {
			t.Errorf("Search(%s): total %d, want %d", describe(q), res.Total, len(all))
		}
		lo, hi := min((page-1)*q.PerPage, len(all)), min(page*q.PerPage, len(all))
		sameIDsShort(t, describe(q), ids(res.Items), all[lo:hi])
	}
}

// testTextPages: the numbered pages of text searches hold each match once, as many as the total.
func testTextPages(t *testing.T, b search.Backend) {
	for _, q := range []search.Query{
		{Text: "python", Sort: search.SortRelevance},
		{Text: "history", Sort: search.SortRelevance, Type: search.TypeDocument},
		{Text: "untitled", Sort: search.SortAZ},
	} {
		got, total := walk(t, b, q, 50)
		seen := map[string]bool{}
		for _, id := range ids(got) {
			if seen[id] {
				t.Errorf("Search(%s): %s on two pages", describe(q), id)
			}
			seen[id] = true
		}
		if len(seen) != total || total == 0 {
			t.Errorf("Search(%s): pages hold %d distinct items, total %d", describe(q), len(seen), total)
		}
	}
}

// sameIDsShort is sameIDs without printing thousands of ids.
func sameIDsShort(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: first difference at %d: got %q, want %q", what, i, got[i], want[i])
			return
		}
	}
	t.Errorf("%s: got %d ids, want %d", what, len(got), len(want))
}

// sampleAuthors picks up to n authors: every non-ASCII one first, then evenly spread others.
func sampleAuthors(all []search.Author, n int) []search.Author {
	var out []search.Author
	for _, a := range all {
		if len(out) < n/2 && !isASCII(a.Name) {
			out = append(out, a)
		}
	}
	if step := len(all) / max(n-len(out), 1); step > 0 {
		for i := 0; i < len(all) && len(out) < n; i += step {
			out = append(out, all[i])
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// realCatalogue reads the real catalogue at RealDataPath, with the lines the reader rejects; it
// skips the test when the file is not there.
func realCatalogue(t *testing.T) (string, []search.Item, []*catalogue.LineError) {
	t.Helper()
	path, ok := RealDataPath()
	if !ok {
		t.Skip("no real catalogue at ../shared/data/catalogue.ndjson beside the module root")
	}
	items, rejected, err := readReal(path)
	if err != nil {
		t.Fatalf("read real catalogue: %v", err)
	}
	return path, items, rejected
}

// readReal reads the real catalogue, setting aside the lines that break the format.
func readReal(path string) ([]search.Item, []*catalogue.LineError, error) {
	rc, err := catalogue.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	r := catalogue.NewReader(rc)
	var (
		items    []search.Item
		rejected []*catalogue.LineError
	)
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			return items, rejected, nil
		}
		var lerr *catalogue.LineError
		if errors.As(err, &lerr) {
			rejected = append(rejected, lerr)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		items = append(items, it)
	}
}

// firstOf is the first of errs, or nil.
func firstOf(errs []*catalogue.LineError) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}
