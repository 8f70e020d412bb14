package bleve

import (
	"context"
	"fmt"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"mediagw/search"
	"mediagw/search/text"
)

// maxRelatedTerms bounds the words a related search asks for, as max_query_terms does on
// OpenSearch: an item with hundreds of tags would otherwise cost a query of hundreds of clauses.
const maxRelatedTerms = 25

// Related returns the items sharing the most of the item's title words, tags, keywords,
// category and author (its first maxRelatedTerms distinct words, title first), scored by the
// engine, then by id.
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
	dis := relatedClauses(h.idx.Mapping(), it)
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

// relatedClauses are the term queries of a related search for it: its first maxRelatedTerms
// distinct words of the title, tags and keywords, then its category and author.
func relatedClauses(m mapping.IndexMapping, it search.Item) []query.Query {
	var dis []query.Query
	seen := map[[2]string]bool{}
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
			for _, term := range text.QueryTerms(s) {
				if len(dis) == maxRelatedTerms || seen[[2]string{f.field, term}] {
					continue
				}
				seen[[2]string{f.field, term}] = true
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
	return dis
}
