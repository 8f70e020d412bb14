package bleve

import "mediagw/search"

// The search-box extras on the embedded index: facets by terms facets over the query without
// each facet's filter (facets.go), completions by term and prefix queries on the title
// (complete.go), related items by a disjunction of the item's own terms (related.go), and
// neighbours from the fields' fuzzy term dictionaries (neighbours.go).

var _ search.Extras = (*Backend)(nil)
