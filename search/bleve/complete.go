package bleve

import (
	"context"
	"fmt"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"mediagw/search"
)

// popularItems is how many of the most downloaded items a completion looks among first.
const popularItems = 1000

// popularFloor is the downloads of the popularItems-th most downloaded item: the items with at
// least as many are the few a short prefix's completions almost always come from. Without that
// many items, it is false.
func popularFloor(ctx context.Context, idx blevesearch.Index) (float64, bool, error) {
	req := blevesearch.NewSearchRequestOptions(query.NewMatchAllQuery(), 1, popularItems-1, false)
	req.SortBy([]string{"-" + fieldDownloads, "_id"})
	req.Fields = []string{fieldStored}
	res, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return 0, false, fmt.Errorf("most downloaded items: %w", err)
	}
	if len(res.Hits) == 0 {
		return 0, false, nil
	}
	it, err := storedItem(res.Hits[0])
	if err != nil {
		return 0, false, err
	}
	return float64(it.Downloads), true, nil
}

// Complete returns the titles holding every word of text, the last as a prefix, most downloaded
// first. Words are the title field's terms (analysed as the index analyses titles). A short
// prefix matches much of the catalogue, and ordering all of it by downloads is what costs: the
// popular items are asked first, and when n of them match, no other item can come before them.
func (b *Backend) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("complete: %w", err)
	}
	out := []search.Completion{}
	if n < 1 {
		return out, nil
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	terms := analyze(h.idx.Mapping(), text)
	if len(terms) == 0 {
		return out, nil
	}
	conj := make([]query.Query, 0, len(terms)+1)
	for _, t := range terms[:len(terms)-1] {
		tq := query.NewTermQuery(t)
		tq.SetField(fieldTitle)
		conj = append(conj, tq)
	}
	pq := query.NewPrefixQuery(terms[len(terms)-1])
	pq.SetField(fieldTitle)
	conj = append(conj, pq)

	complete := func(conj []query.Query) ([]search.Completion, error) {
		req := blevesearch.NewSearchRequestOptions(query.NewConjunctionQuery(conj), n, 0, false)
		req.SortBy([]string{"-" + fieldDownloads, "_id"})
		// The order needs no scores, and scoreless disjunctions (a prefix's terms) are unions of postings.
		req.Score = blevesearch.ScoreNone
		req.Fields = []string{fieldStored}
		res, err := h.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("complete %q: %w", text, err)
		}
		got := make([]search.Completion, 0, len(res.Hits))
		for _, hit := range res.Hits {
			it, err := storedItem(hit)
			if err != nil {
				return nil, err
			}
			got = append(got, search.Completion{Text: it.Title, ID: it.ID})
		}
		return got, nil
	}
	if h.popular {
		yes := true
		popular := query.NewNumericRangeInclusiveQuery(&h.popularFloor, nil, &yes, nil)
		popular.SetField(fieldDownloads)
		got, err := complete(append(conj, popular))
		if err != nil || len(got) == n {
			return got, err
		}
	}
	return complete(conj)
}
