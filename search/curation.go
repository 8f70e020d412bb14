package search

import "mediagw/search/text"

// Curation is the operators' synonyms and pinned results (search/curation reads them from
// their files), applied by a backend to a search: the chain sets Request.Curation from the set
// it serves. A nil Curation applies none.
type Curation interface {
	// Alternatives returns the words a query word is searched as (text.Synonyms).
	text.Synonyms
	// Pinned returns the ids that come first, in this order, in a search of text by relevance;
	// nil when none are pinned for it.
	Pinned(text string) []string
}

// PinBoost is what a search by relevance adds to the score of the i-th of the n ids pinned for
// its text, when it finds that item: more than the relevance rule gives any item (search.Clauses,
// Bonus), so pinned items come first, in their order, and the rest follow as scored.
func PinBoost(i, n int) float64 { return float64(n-i) * 1e6 }
