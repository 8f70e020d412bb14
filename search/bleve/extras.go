package bleve

import (
	"context"
	"errors"
	"fmt"
	"slices"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
)

// The search-box extras on the embedded index: facets by one terms facet per asked facet over
// the query without that facet's filter, completions by term and prefix queries on the title,
// related items by a disjunction of the item's own terms, and neighbours from the fields'
// term dictionaries.

var _ search.Extras = (*Backend)(nil)

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
	for field, v := range map[string]string{fieldCategory: it.Category, fieldAuthor: it.Author} {
		if v != "" {
			tq := query.NewTermQuery(v)
			tq.SetField(field)
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

// Neighbours returns the indexed words of the searched fields near word, from the fields' fuzzy
// term dictionaries. Their automata count a transposition as one edit, like search.EditsWithin;
// EditsWithin still filters, as it is the contract's definition.
func (b *Backend) Neighbours(ctx context.Context, word string, max int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	w := search.Fold(word)
	allow := search.TypoAllowance(w)
	out := []string{}
	if allow == 0 || max < 1 {
		return out, nil
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	ix, err := h.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	r, err := ix.Reader()
	if err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	defer r.Close()
	fuzzy, ok := r.(index.IndexReaderFuzzy)
	if !ok {
		return nil, errors.New("neighbours: the index has no fuzzy term dictionary")
	}
	seen := map[string]bool{}
	for _, f := range textFields {
		dict, err := fuzzy.FieldDictFuzzy(f.name, w, allow, "")
		if err != nil {
			return nil, fmt.Errorf("neighbours of %q in %s: %w", word, f.name, err)
		}
		for {
			e, err := dict.Next()
			if err != nil {
				dict.Close()
				return nil, fmt.Errorf("neighbours of %q in %s: %w", word, f.name, err)
			}
			if e == nil {
				break
			}
			if e.Term != w && !seen[e.Term] && search.EditsWithin(w, e.Term, allow) {
				seen[e.Term] = true
				out = append(out, e.Term)
			}
		}
		if err := dict.Close(); err != nil {
			return nil, fmt.Errorf("neighbours of %q in %s: %w", word, f.name, err)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), max)], nil
}
