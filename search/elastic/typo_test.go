package elastic

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
)

// TestTypoAllowanceIsTheEngines: the fuzziness the queries ask for lets a word of every length
// differ by exactly search.TypoAllowance edits, no more.
func TestTypoAllowanceIsTheEngines(t *testing.T) {
	const letters = "qwertyuiop"
	var items []search.Item
	for n := 1; n <= len(letters); n++ {
		items = append(items, search.Item{ID: fmt.Sprintf("w%d", n), Type: search.TypeDocument, Title: letters[:n]})
	}
	b := newBackend(t, Config{})
	load(t, b, items)
	for n := 1; n <= len(letters); n++ {
		word := letters[:n]
		allow := search.TypoAllowance(word)
		for edits := allow; edits <= min(allow+1, n); edits++ {
			// Substitutions at the end, by a letter no title holds.
			typo := word[:n-edits] + strings.Repeat("z", edits)
			res, err := b.Search(t.Context(), search.NewRequest(search.Query{Text: typo, Sort: search.SortRelevance, Page: 1, PerPage: 20}))
			if err != nil {
				t.Fatalf("Search(%q): %v", typo, err)
			}
			found := slices.ContainsFunc(res.Items, func(it search.Item) bool { return it.Title == word })
			if want := edits <= allow; found != want {
				t.Errorf("Search(%q) finds %q: %v, want %v (%d edits, allowance %d)", typo, word, found, want, edits, allow)
			}
		}
	}
}
