package search

import "mediagw/search/text"

// Curation is the operators' synonyms and pinned results (search/curation reads them from
// their files), applied by a backend to a query: it sets Query.Curation from the set it
// serves. A nil Curation applies none.
type Curation interface {
	// Alternatives returns the words a query word is searched as (text.Synonyms).
	text.Synonyms
	// Pinned returns the ids that come first, in this order, in a search of text by relevance;
	// nil when none are pinned for it.
	Pinned(text string) []string
}
