package bleve

import (
	"context"
	"fmt"

	blevesearch "github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
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
// without its own filter (disjunctive facets): a facet whose filter q does not set counts in req
// itself, the others in one hitless search per distinct query, run beside it. Without facets it
// is req alone.
func searchFaceted(ctx context.Context, h *handle, q search.Query, req *blevesearch.SearchRequest) (*blevesearch.SearchResult, map[search.Facet][]search.FacetValue, error) {
	if q.Facets == 0 {
		res, err := h.idx.SearchInContext(ctx, req)
		return res, nil, err
	}
	asked := q.Facets.All()
	q.Facets = 0
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
		r.AddFacet(f.String(), blevesearch.NewFacetRequest(facetFields[f], maxFacetTerms))
	}
	var res *blevesearch.SearchResult
	counts := make([]bsearch.FacetResults, len(others))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		res, err = h.idx.SearchInContext(gctx, req)
		return err
	})
	for i, other := range others {
		g.Go(func() error {
			r, err := h.idx.SearchInContext(gctx, byQuery[other])
			if err != nil {
				return fmt.Errorf("facets: %w", err)
			}
			counts[i] = r.Facets
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	names := make(map[string]string, len(h.categories))
	for _, c := range h.categories {
		names[c.Slug] = c.Name
	}
	out := make(map[search.Facet][]search.FacetValue, len(asked))
	for _, f := range asked {
		out[f] = []search.FacetValue{}
	}
	for _, fr := range append(counts, res.Facets) {
		for name, r := range fr {
			f, _ := search.ParseFacet(name)
			values := []search.FacetValue{}
			if r.Terms != nil {
				for _, t := range r.Terms.Terms() {
					v := search.FacetValue{Value: t.Term, Count: t.Count}
					if f == search.FacetCategory {
						v.Name = names[t.Term]
					}
					values = append(values, v)
				}
			}
			out[f] = search.TopFacetValues(values)
		}
	}
	// The caller's result holds hits only, as without facets.
	res.Facets = nil
	return res, out, nil
}
