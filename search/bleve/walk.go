package bleve

import (
	"context"
	"fmt"
	"sync"

	blevesearch "github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
)

// A walk's page through the matches of a query without text does not ask the collector for the
// next items after the cursor (SearchAfter), which reads the sort values of every match for every
// page: it reads the index's items in that order, ranked once per index and order, from the
// cursor's item on, and keeps the first that match. A walk of 30,000 items then costs about one
// sorted search instead of 600. Walks with text (scores) and with facets take SearchAfter.

// ranking is the index's documents in one order.
type ranking struct {
	// docs are the document numbers in the order.
	docs []uint64
	// rankOf is each document's place in docs, by document number.
	rankOf []int32
}

// rankings are a handle's rankings by order, each built on a walk's first need.
type rankings struct {
	mu     sync.Mutex
	bySort map[search.Sort]*ranking
}

// ranking returns the index's documents in order s (sorted as order says).
func (h *handle) ranking(ctx context.Context, s search.Sort, order bsearch.SortOrder) (*ranking, error) {
	h.walks.mu.Lock()
	defer h.walks.mu.Unlock()
	if r, ok := h.walks.bySort[s]; ok {
		return r, nil
	}
	n, err := h.idx.DocCount()
	if err != nil {
		return nil, err
	}
	req := blevesearch.NewSearchRequestOptions(query.NewMatchAllQuery(), int(n), 0, false)
	req.SortByCustom(order)
	req.Score = blevesearch.ScoreNone
	res, err := h.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("rank the items by %s: %w", s, err)
	}
	r := &ranking{docs: make([]uint64, len(res.Hits))}
	for i, hit := range res.Hits {
		doc := hit.IndexInternalID.Value()
		r.docs[i] = doc
		for uint64(len(r.rankOf)) <= doc {
			r.rankOf = append(r.rankOf, -1)
		}
		r.rankOf[doc] = int32(i)
	}
	if h.walks.bySort == nil {
		h.walks.bySort = map[search.Sort]*ranking{}
	}
	h.walks.bySort[s] = r
	return r, nil
}

// rankedPage is a page of a walk of q without text, from the item after the one cur names: the
// page's hits (sorted by order, with their sort values) and the number of items q matches.
func (h *handle) rankedPage(ctx context.Context, q search.Query, cur search.Cursor, bq query.Query, order bsearch.SortOrder) ([]*bsearch.DocumentMatch, int, error) {
	r, err := h.ranking(ctx, q.Sort, order)
	if err != nil {
		return nil, 0, err
	}
	var hits []*bsearch.DocumentMatch
	total := 0
	err = withReader(h.idx, func(ir index.IndexReader) error {
		start := 0
		if cur.After != nil {
			// CheckAfter made the last value a string: the last item's id.
			id := cur.After[len(cur.After)-1].(string)
			iid, err := ir.InternalID(id)
			if err != nil {
				return err
			}
			if len(iid) == 0 || iid.Value() >= uint64(len(r.rankOf)) || r.rankOf[iid.Value()] < 0 {
				return fmt.Errorf("%w: no item %q in this index", search.ErrCursorInvalid, id)
			}
			start = int(r.rankOf[iid.Value()]) + 1
		}
		var picked []uint64
		if _, all := bq.(*query.MatchAllQuery); all {
			total = len(r.docs)
			picked = r.docs[min(start, total):min(start+q.PerPage, total)]
		} else {
			match := make([]bool, len(r.rankOf))
			err := eachMatch(ctx, ir, h.idx.Mapping(), bq, func(doc uint64) {
				if doc < uint64(len(match)) {
					match[doc] = true
					total++
				}
			})
			if err != nil {
				return err
			}
			for _, doc := range r.docs[min(start, len(r.docs)):] {
				if len(picked) == q.PerPage {
					break
				}
				if match[doc] {
					picked = append(picked, doc)
				}
			}
		}
		ids := make([]string, len(picked))
		for i, doc := range picked {
			id, err := ir.ExternalID(index.NewIndexInternalID(nil, doc))
			if err != nil {
				return err
			}
			ids[i] = id
		}
		if len(ids) == 0 {
			return nil
		}
		// The page's items with their stored fields and sort values, in the order.
		req := blevesearch.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		req.SortByCustom(order)
		req.Fields = []string{fieldStored}
		req.Score = blevesearch.ScoreNone
		res, err := h.idx.SearchInContext(ctx, req)
		if err != nil {
			return err
		}
		hits = res.Hits
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return hits, total, nil
}
