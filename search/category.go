package search

import (
	"strings"
)

// CategoryName is the display name of a category whose items give none: the slug's words
// capitalised, "world-history" -> "World History".
func CategoryName(slug string) string {
	words := strings.Split(slug, "-")
	for i, w := range words {
		if w == "" {
			continue
		}
		if i > 0 && minorWords[w] {
			continue
		}
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

var minorWords = map[string]bool{"a": true, "an": true, "and": true, "the": true, "of": true, "in": true, "on": true, "for": true, "to": true}

// PickCategoryName names category slug from the names its items give, with how many items give
// each: the name most items give, ties going to the first in byte order (as the engine's terms
// aggregation breaks them); CategoryName(slug) when no item gives one. A name made up from the
// slug never outvotes one the catalogue gives.
func PickCategoryName(slug string, given map[string]int) string {
	best, n := "", 0
	for name, c := range given {
		if name != "" && (c > n || c == n && name < best) {
			best, n = name, c
		}
	}
	if best == "" {
		return CategoryName(slug)
	}
	return best
}
