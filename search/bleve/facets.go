package bleve

import (
	"context"
	"fmt"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"golang.org/x/sync/errgroup"

	"mediagw/search"
)

// facetFields are the keyword fields (with doc values) the facets count.
var facetFields = map[search.Facet]string{
	search.FacetType: fieldType, search.FacetCategory: fieldCategory,
	search.FacetLanguage: fieldLanguage, search.FacetYear: fieldYear,
}

// maxFacetTerms is more values than any facet has (languages, years, types, and every
// category), so each count is exact; the contract then keeps the top search.MaxFacetValues.
const maxFacetTerms = 100_000

// searchFaceted runs req, the hits of q, and counts the facets q asks for. A facet counts over q
// without its own filter (disjunctive facets): over every item, from its field's term dictionary;
// else, when q does not set its filter, in req itself; else in one hitless search per distinct
// query, run beside req. Without facets it is req alone.
func searchFaceted(ctx context.Context, h *handle, q search.Query, req *blevesearch.SearchRequest) (*blevesearch.SearchResult, map[search.Facet][]search.FacetValue, error) {
	if q.Facets == 0 {
		res, err := h.idx.SearchInContext(ctx, req)
		return res, nil, err
	}
	asked := q.Facets.All()
	q.Facets = 0
	counts := make(map[search.Facet]map[string]int, len(asked))
	var others []search.Query
	byQuery := map[search.Query]*blevesearch.SearchRequest{q: req}
	for _, f := range asked {
		other := q.Without(f)
		r, ok := byQuery[other]
		if !ok {
			bq, err := buildQuery(analyze(h.idx.Mapping(), other.Text), other)
			if err != nil {
				return nil, nil, err
			}
			r = blevesearch.NewSearchRequestOptions(bq, 0, 0, false)
			// Counting needs no scores: scoreless disjunctions are unions of postings.
			r.Score = blevesearch.ScoreNone
			byQuery[other] = r
			others = append(others, other)
		}
		if _, all := r.Query.(*query.MatchAllQuery); all {
			c, err := dictionaryCounts(ctx, h, facetFields[f])
			if err != nil {
				return nil, nil, err
			}
			counts[f] = c
			continue
		}
		r.AddFacet(f.String(), blevesearch.NewFacetRequest(facetFields[f], maxFacetTerms))
	}
	results := make([]*blevesearch.SearchResult, len(others)+1)
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range append([]*blevesearch.SearchRequest{req}, requests(byQuery, others)...) {
		if i > 0 && len(r.Facets) == 0 {
			continue
		}
		g.Go(func() (err error) {
			results[i], err = h.idx.SearchInContext(gctx, r)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	for _, res := range results {
		if res == nil {
			continue
		}
		for name, r := range res.Facets {
			f, _ := search.ParseFacet(name)
			counts[f] = map[string]int{}
			if r.Terms != nil {
				for _, t := range r.Terms.Terms() {
					counts[f][t.Term] = t.Count
				}
			}
		}
	}
	// The caller's result holds hits only, as without facets.
	results[0].Facets = nil
	return results[0], facetValues(h, counts), nil
}

// requests are the requests of queries, in their order.
func requests(byQuery map[search.Query]*blevesearch.SearchRequest, queries []search.Query) []*blevesearch.SearchRequest {
	out := make([]*blevesearch.SearchRequest, len(queries))
	for i, q := range queries {
		out[i] = byQuery[q]
	}
	return out
}

// dictionaryCounts counts the values of field over every item: the field's terms, each with
// its number of items (an item has at most one value). The dictionary's own counts are not
// used: zapx v17.2.5 reuses one postings list across its entries and, after a term of one item,
// counts every later term of that segment as one item.
func dictionaryCounts(ctx context.Context, h *handle, field string) (map[string]int, error) {
	counts := map[string]int{}
	err := withReader(h, func(r index.IndexReader) error {
		dict, err := r.FieldDict(field)
		if err != nil {
			return err
		}
		defer dict.Close()
		for {
			e, err := dict.Next()
			if err != nil || e == nil {
				return err
			}
			tr, err := r.TermFieldReader(ctx, []byte(e.Term), field, false, false, false)
			if err != nil {
				return err
			}
			counts[e.Term] = int(tr.Count())
			if err := tr.Close(); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("facet counts of %s: %w", field, err)
	}
	return counts, nil
}

// withReader runs fn on a reader of h's index.
func withReader(h *handle, fn func(index.IndexReader) error) error {
	ix, err := h.idx.Advanced()
	if err != nil {
		return err
	}
	r, err := ix.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r)
}

// facetValues are the contract's lists of counts, categories named as Categories names them.
func facetValues(h *handle, counts map[search.Facet]map[string]int) map[search.Facet][]search.FacetValue {
	names := make(map[string]string, len(h.categories))
	for _, c := range h.categories {
		names[c.Slug] = c.Name
	}
	out := make(map[search.Facet][]search.FacetValue, len(counts))
	for f, c := range counts {
		values := make([]search.FacetValue, 0, len(c))
		for v, n := range c {
			fv := search.FacetValue{Value: v, Count: n}
			if f == search.FacetCategory {
				fv.Name = names[v]
			}
			values = append(values, fv)
		}
		out[f] = search.TopFacetValues(values)
	}
	return out
}
