package search

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// The typo allowance: how many edits (a letter inserted, deleted or changed, or two adjacent
// letters swapped: the optimal string alignment distance, EditsWithin) a word of a search may
// differ by and still match, by its length in runes. It is OpenSearch's fuzziness AUTO:3,6 with
// fuzzy_transpositions, which search/elastic asks for from these two numbers, while search/bleve
// (whose fuzzy automaton counts a swap as one edit too), the did-you-mean and the highlighter
// compute TypoAllowance. Stricter rules cost the engine less but lose typos in short
// words: docs/relevance.md, "Typo allowance: cost vs precision" (TestTypoCost in search/elastic).
const (
	// OneTypoFrom is the shortest word that may differ by one edit; shorter ones must match exactly.
	OneTypoFrom = 3
	// TwoTyposFrom is the shortest word that may differ by two edits.
	TwoTyposFrom = 6
)

// TypoAllowance is the number of edits word may differ by and still match: none below
// OneTypoFrom runes, one below TwoTyposFrom, two from there on.
func TypoAllowance(word string) int {
	switch n := utf8.RuneCountInString(word); {
	case n < OneTypoFrom:
		return 0
	case n < TwoTyposFrom:
		return 1
	default:
		return 2
	}
}

// MaxTypoWords is how many words of one search may match within their typo allowance; the others
// must match exactly. Each word given an allowance is a walk of every searched field's terms (a
// fuzzy clause per field), so a search of 28 random words, what q's 200 characters hold, cost a
// hundred times a typical one; known-item searches type up to six words (search/searchtest), and
// a pasted long title, spelt right, finds its item exactly.
const MaxTypoWords = 6

// TypoWords reports, for the words of a search (text.Words), which may match within their typo
// allowance: the MaxTypoWords longest of those that have one (the earlier of equal length first),
// since a typo is likelier in a long word, whose expansion is also the smaller.
func TypoWords(words []string) []bool {
	out := make([]bool, len(words))
	var allowed []int
	for i, w := range words {
		if TypoAllowance(w) > 0 {
			allowed = append(allowed, i)
		}
	}
	slices.SortStableFunc(allowed, func(a, b int) int {
		return cmp.Compare(utf8.RuneCountInString(words[b]), utf8.RuneCountInString(words[a]))
	})
	for _, i := range allowed[:min(len(allowed), MaxTypoWords)] {
		out[i] = true
	}
	return out
}
