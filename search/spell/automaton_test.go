package spell

import (
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/vellum"

	"mediagw/search"
)

// FuzzWithin holds the automaton to search.EditsWithin, the contract's count of edits, for
// every allowance a word may have, byte by byte as a walk of the dictionary feeds it. The
// dictionary holds terms of valid UTF-8 only (they come from JSON), so only those are compared.
func FuzzWithin(f *testing.F) {
	for _, tc := range [][2]string{
		{"harbour", "harbor"}, {"thmes", "themes"}, {"teh", "the"}, {"ab", "ba"}, {"abcd", "badc"},
		{"élan", "elan"}, {"東京タワー", "東京タワ"}, {"日本語", "日本"}, {"ca", "abc"}, {"", "ab"},
		{"naïve", "naive"}, {"ß", "ss"}, {"pyhton", "python"}, {"a\u202fb", "ab"}, {"😀x", "x😀"},
	} {
		f.Add(tc[0], tc[1])
	}
	var a within
	f.Fuzz(func(t *testing.T, w, term string) {
		if !utf8.ValidString(term) {
			t.Skip("not a term the dictionary can hold")
		}
		for _, max := range []int{1, 2} {
			a.reset(w, max)
			want := search.EditsWithin(w, term, max)
			if got := vellum.AutomatonContains(&a, []byte(term)); got != want {
				t.Errorf("within(%q, %d) accepts %q: %v, want %v", w, max, term, got, want)
			}
		}
	})
}
