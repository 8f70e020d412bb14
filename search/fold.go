package search

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// folder lower-cases (Unicode case folding) and strips combining marks after decomposition, so
// "Élan", "elan" and "ÉLAN" share one key. Both backends index the same key, so their az orders agree.
var folder = cases.Fold()

// Fold returns s without case and accents: the key the az order and the author order compare.
func Fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		out = s
	}
	return folder.String(strings.TrimSpace(out))
}

// TitleKey is the sort key of the az order: the folded title.
func TitleKey(title string) string { return Fold(title) }

// AuthorLess orders author names case- and accent-insensitively, then exactly, so the order is total.
func AuthorLess(a, b string) bool {
	fa, fb := Fold(a), Fold(b)
	if fa != fb {
		return fa < fb
	}
	return a < b
}
