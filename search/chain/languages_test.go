package chain

import (
	"slices"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/searchtest"
	"mediagw/search/text"
)

// TestLanguagesHeld: the live snapshot holds the languages with a stemmer the index holds, which
// the chain hands each search, and a search finds through the chain what it finds without them.
func TestLanguagesHeld(t *testing.T) {
	items := searchtest.Fixture(t)
	var want []string
	for _, it := range items {
		if slices.Contains(text.StemLanguages, it.Language) && !slices.Contains(want, it.Language) {
			want = append(want, it.Language)
		}
	}
	slices.Sort(want)
	if len(want) == 0 || len(want) == len(text.StemLanguages) {
		t.Fatalf("the fixture holds %v of the languages with a stemmer: the test needs some, not all", want)
	}
	b, c := embedded(t, t.TempDir(), items)
	if _, err := c.Live.Ask(t.Context()); err != nil {
		t.Fatal(err)
	}
	settle(t, c)
	if got := c.Live.Snapshot().Languages.Values(); !slices.Equal(got, want) {
		t.Fatalf("languages held %v, want %v", got, want)
	}
	r := search.NewRequest(search.Query{})
	c.serve(r)
	if got := r.Held; got != search.ListOf(want...) {
		t.Errorf("a search is handed the languages %q, want %q", got, search.ListOf(want...))
	}
	for _, it := range items[:20] {
		q := search.Query{Text: it.Title}
		q.Normalize()
		through, err := c.Search(t.Context(), search.NewRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		direct, err := b.Search(t.Context(), search.NewRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(through.Items, direct.Items, func(a, b search.Item) bool { return a.ID == b.ID }) || through.Total != direct.Total {
			t.Errorf("%q finds %d items through the chain, %d without the languages held", q.Text, through.Total, direct.Total)
		}
	}
}

// embedded is a chain in front of an embedded index of items in dir.
func embedded(t *testing.T, dir string, items []search.Item) (*bleve.Backend, *Chain) {
	t.Helper()
	b, err := bleve.NewFromItems(t.Context(), dir, items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	c, err := New(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b, c
}

// settle waits for the questions the live owner asks in the background.
func settle(t *testing.T, c *Chain) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.Live.Asking() {
		if time.Now().After(deadline) {
			t.Fatal("the background questions never ended")
		}
		time.Sleep(time.Millisecond)
	}
}
