package bleve

// The search-box extras on the embedded index: facets counted in one pass over the search
// without the facets' filters (facets.go), completions from the most downloaded titles or by term
// and prefix queries on the title (complete.go), related items by a disjunction of the item's own
// terms (related.go), and for a correction the fields' words (search/spell's dictionary) and its totals
// counted on one reader (spell.go).
