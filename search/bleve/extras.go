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

// Complete returns the titles holding every word of text, the last as a prefix, most downloaded first.
func (b *Backend) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("complete: %w", err)
	}
	words := search.Words(text)
	out := []search.Completion{}
	if len(words) == 0 || n < 1 {
		return out, nil
	}
	conj := make([]query.Query, 0, len(words))
	for i, w := range words {
		w = search.Fold(w)
		if i == len(words)-1 {
			pq := query.NewPrefixQuery(w)
			pq.SetField(fieldTitle)
			conj = append(conj, pq)
			continue
		}
		tq := query.NewTermQuery(w)
		tq.SetField(fieldTitle)
		conj = append(conj, tq)
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	req := blevesearch.NewSearchRequestOptions(query.NewConjunctionQuery(conj), n, 0, false)
	req.SortBy([]string{"-" + fieldDownloads, "_id"})
	req.Score = blevesearch.ScoreNone
	req.Fields = []string{fieldStored}
	res, err := h.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", text, err)
	}
	for _, hit := range res.Hits {
		it, err := storedItem(hit)
		if err != nil {
			return nil, err
		}
		out = append(out, search.Completion{Text: it.Title, ID: it.ID})
	}
	return out, nil
}

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

// Neighbours returns the indexed words of the searched fields near word. Bleve's fuzzy
// dictionaries count plain Levenshtein edits, at most 2: they are asked for 2, and the answer is
// filtered by search.EditsWithin (a transposition is one edit there, two here).
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
		dict, err := fuzzy.FieldDictFuzzy(f.name, w, min(allow+1, 2), "")
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
