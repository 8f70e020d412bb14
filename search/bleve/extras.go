package bleve

import "mediagw/search"

// The search-box extras on the embedded index: facets counted in one pass over the search
// without the facets' filters (facets.go), completions from the most downloaded titles or by term
// and prefix queries on the title (complete.go), related items by a disjunction of the item's own
// terms (related.go), and a correction's neighbours from the fields' fuzzy term dictionaries and
// its totals counted on one reader (neighbours.go).

var _ search.Extras = (*Backend)(nil)
