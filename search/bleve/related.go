package bleve

import (
	"context"
	"fmt"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"mediagw/search"
)

// Related returns the items sharing the most of the item's title words, tags, keywords,
// category and author, scored by the engine, then by id.
func (b *Backend) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	it, err := b.Item(ctx, id)
	if err != nil {
		return nil, err
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	m := h.idx.Mapping()
	var dis []query.Query
	for _, f := range []struct {
		field string
		text  []string
		boost float64
	}{
		{fieldTitle, []string{it.Title}, 2},
		{fieldTags, it.Tags, 1.5},
		{fieldKeywords, it.Keywords, 1},
	} {
		for _, s := range f.text {
			for _, term := range analyze(m, s) {
				tq := query.NewTermQuery(term)
				tq.SetField(f.field)
				tq.SetBoost(f.boost)
				dis = append(dis, tq)
			}
		}
	}
	// A slice, not a map: the order of the clauses is the order their scores add up in, and
	// two requests for the same item must score alike.
	for _, f := range []struct{ field, value string }{{fieldCategory, it.Category}, {fieldAuthor, it.Author}} {
		if f.value != "" {
			tq := query.NewTermQuery(f.value)
			tq.SetField(f.field)
			dis = append(dis, tq)
		}
	}
	out := []search.Item{}
	if len(dis) == 0 {
		return out, nil
	}
	bq := query.NewBooleanQuery(nil, []query.Query{query.NewDisjunctionQuery(dis)}, []query.Query{query.NewDocIDQuery([]string{id})})
	req := blevesearch.NewSearchRequestOptions(bq, n, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	req.Fields = []string{fieldStored}
	res, err := h.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("related %q: %w", id, err)
	}
	for _, hit := range res.Hits {
		r, err := storedItem(hit)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
