package search

import "unicode/utf8"

// The typo allowance: how many edits (a letter inserted, deleted or changed) a word of a search
// may differ by and still match, by its length in runes. It is OpenSearch's fuzziness AUTO:3,6,
// which search/engine asks for from these two numbers, while search/bleve and the
// highlighter compute TypoAllowance. Stricter rules cost the engine less but lose typos in short
// words: docs/relevance.md, "Typo allowance: cost vs precision" (TestTypoCost in search/engine).
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
