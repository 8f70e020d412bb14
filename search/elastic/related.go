package elastic

import (
	"context"

	"mediagw/search"
)

// Related returns the items most like the item: more_like_this on its title, tags and keywords,
// or the same category or author; never the item itself.
func (b *Backend) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	it, err := b.Item(ctx, id)
	if err != nil {
		return nil, err
	}
	should := []any{obj{"more_like_this": obj{
		"fields":               []string{"w_title", "w_tags", "w_keywords"},
		"like":                 []any{obj{"_id": id}},
		"min_term_freq":        1,
		"min_doc_freq":         1,
		"max_query_terms":      25,
		"minimum_should_match": "1",
	}}}
	if it.Category != "" {
		should = append(should, obj{"term": obj{"category": obj{"value": it.Category, "boost": 0.5}}})
	}
	if it.Author != "" {
		should = append(should, obj{"term": obj{"author": obj{"value": it.Author, "boost": 1}}})
	}
	body, err := marshal(obj{
		"query": obj{"bool": obj{"should": should, "minimum_should_match": 1,
			"must_not": []any{obj{"term": obj{"id": id}}}}},
		"sort": []any{obj{"_score": obj{"order": "desc"}}, obj{"id": obj{"order": "asc"}}},
		// Always the same number of hits, cut to n below: the engine skips the items that cannot
		// reach the top size, and adds up the others' scores in an order that depends on size,
		// so alike items' scores could differ in the last bit and swap places, and n=3 would not
		// be the first 3 of n=10. (Scoring every match instead costs twice as much.)
		"size":             max(n, search.MaxPerPage),
		"track_total_hits": false,
	})
	var resp searchResponse
	if err := b.doSearch(ctx, "related", body, err, &resp); err != nil {
		return nil, err
	}
	hits := resp.Hits.Hits[:min(n, len(resp.Hits.Hits))]
	out := make([]search.Item, len(hits))
	for i, h := range hits {
		out[i] = h.item()
	}
	return out, nil
}
