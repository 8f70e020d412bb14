package search

import "unicode/utf8"

// TypoAllowance is the number of edits a word of a search may differ by and still match, by its
// length in runes, as OpenSearch's fuzziness AUTO counts: none up to 2, one up to 5, two beyond.
func TypoAllowance(word string) int {
	switch n := utf8.RuneCountInString(word); {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	default:
		return 2
	}
}
