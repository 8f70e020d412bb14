package bleve

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
)

// authorOrdinals is each document's author as its place in handle.authors plus one (0: none),
// read from the author field's postings the first time a filtered list asks: a list without
// filters is counted at load, and most indexes are never asked for another.
type authorOrdinals struct {
	once sync.Once
	of   []uint32
	err  error
}

func (h *handle) authorOrdinals(ctx context.Context) ([]uint32, error) {
	a := &h.authorsOf
	a.once.Do(func() {
		at := make(map[string]uint32, len(h.authors))
		for i, au := range h.authors {
			at[au.Name] = uint32(i + 1)
		}
		of := make([]uint32, len(h.facets.date))
		var cur uint32
		a.err = withReader(h.idx, func(r index.IndexReader) error {
			return visitPostings(ctx, r, fieldAuthor, func(term string) (bool, error) {
				cur = at[term]
				return cur != 0, nil
			}, func(doc uint64) error {
				if doc < uint64(len(of)) {
					of[doc] = cur
				}
				return nil
			})
		})
		if a.err != nil {
			a.err = fmt.Errorf("author values: %w", a.err)
			return
		}
		a.of = of
	})
	return a.of, a.err
}

// eachFiltered calls fn with each document f's filters find.
func (h *handle) eachFiltered(ctx context.Context, f search.Query, fn func(doc uint64)) error {
	bq, _, err := buildQuery(h.idx.Mapping(), search.NewRequest(f), nil, h.fuzzy)
	if err != nil {
		return err
	}
	if _, all := bq.(*query.MatchAllQuery); all {
		for doc := range h.facets.date {
			fn(uint64(doc))
		}
		return nil
	}
	n := uint64(len(h.facets.date))
	return withReader(h.idx, func(r index.IndexReader) error {
		return eachMatch(ctx, r, h.idx.Mapping(), bq, func(doc uint64) {
			if doc < n {
				fn(doc)
			}
		})
	})
}

// filteredAuthors is every author with its count of the items f's filters find, those with none
// left out, in the order of handle.authors.
func (h *handle) filteredAuthors(ctx context.Context, f search.Query) ([]search.Author, error) {
	of, err := h.authorOrdinals(ctx)
	if err != nil {
		return nil, err
	}
	counts := make([]int, len(h.authors)+1)
	if err := h.eachFiltered(ctx, f, func(doc uint64) { counts[of[doc]]++ }); err != nil {
		return nil, fmt.Errorf("authors: %w", err)
	}
	out := []search.Author{}
	for i, n := range counts[1:] {
		if n > 0 {
			out = append(out, search.Author{Name: h.authors[i].Name, Count: n})
		}
	}
	return out, nil
}

// categoryFacet is the category's place in search.Facets and facetFields.
var categoryFacet = slices.Index(search.Facets, search.FacetCategory)

// filteredCategories is every category with its count of the items f's filters find, those with
// none left out, ordered by slug and named as handle.categories names them.
func (h *handle) filteredCategories(ctx context.Context, f search.Query) ([]search.Category, error) {
	fi := h.facets
	of := fi.of[categoryFacet]
	counts := make([]int, len(fi.values[categoryFacet])+1)
	if err := h.eachFiltered(ctx, f, func(doc uint64) { counts[of[doc]]++ }); err != nil {
		return nil, fmt.Errorf("categories: %w", err)
	}
	names := make(map[string]string, len(h.categories))
	for _, c := range h.categories {
		names[c.Slug] = c.Name
	}
	out := []search.Category{}
	for o, n := range counts[1:] {
		if n > 0 {
			slug := fi.values[categoryFacet][o]
			out = append(out, search.Category{Slug: slug, Name: names[slug], Count: n})
		}
	}
	return out, nil
}
