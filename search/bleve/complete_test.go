package bleve

import (
	"github.com/blevesearch/bleve/v2/search/query"
	"mediagw/search/text"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mediagw/search/searchtest"
)

// TestCompletePopular: completions answered from the popular titles are those the index gives,
// for prefixes common and rare, on a catalogue larger than the popular titles.
func TestCompletePopular(t *testing.T) {
	items := searchtest.Generated(t, 3*popularItems, 7)
	b := openFromItems(t, items).(*Backend)
	h, err := b.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer h.release()
	if len(h.popular) != popularItems {
		t.Fatalf("%d popular titles, want %d", len(h.popular), popularItems)
	}
	texts := map[string]bool{}
	for _, it := range items[:100] {
		words := strings.Fields(it.Title)
		for i, w := range words {
			for _, cut := range []int{1, 2, 4, len(w)} {
				if cut <= len(w) && utf8.ValidString(w[:cut]) {
					texts[strings.Join(append(slices.Clone(words[:i]), w[:cut]), " ")] = true
				}
			}
		}
	}
	full := 0
	for s := range texts {
		for _, n := range []int{1, 10} {
			got, err := b.Complete(t.Context(), s, n)
			if err != nil {
				t.Fatalf("Complete(%q): %v", s, err)
			}
			terms := text.QueryTerms(s)
			if len(terms) == 0 {
				continue
			}
			last := query.NewPrefixQuery(terms[len(terms)-1])
			last.SetField(fieldTitle)
			want, err := completeFromIndex(t.Context(), h, terms, last, n)
			if err != nil {
				t.Fatal(err)
			}
			// Completions through a typo may follow those of the text as typed.
			if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
				t.Errorf("Complete(%q, %d) = %v, the index gives %v first", s, n, got, want)
			}
			if len(got) == n {
				full++
			}
		}
	}
	// A short answer went to the index; a full one mostly came from the popular titles.
	if full == 0 || full == 2*len(texts) {
		t.Errorf("%d of %d answers were full: the test should hold both kinds", full, 2*len(texts))
	}
}
