package bleve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
	"mediagw/search/text"
)

// popularItems is how many of the most downloaded titles a handle keeps for completions.
const popularItems = 1000

// popularTitle is a title among the most downloaded, with its terms as the index holds them.
type popularTitle struct {
	completion search.Completion
	terms      []string
}

// popularTitles are the first popularItems titles in completions' order. A short prefix matches
// much of the catalogue, and ordering all of it by downloads is what a completion costs: most
// are answered from these alone.
func popularTitles(ctx context.Context, idx blevesearch.Index, fi *facetIndex) ([]popularTitle, error) {
	var items []search.Item
	err := withReader(idx, func(r index.IndexReader) error {
		docs := make([]uint64, len(fi.downloads))
		for doc := range docs {
			docs[doc] = uint64(doc)
		}
		ids, err := firstByDownloads(r, fi, docs, popularItems)
		if err != nil {
			return err
		}
		items, err = storedItems(ctx, idx, ids)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("most downloaded items: %w", err)
	}
	out := make([]popularTitle, 0, len(items))
	for _, it := range items {
		p := popularTitle{completion: search.Completion{Text: it.Title, ID: it.ID}}
		for _, tok := range text.IndexTerms(it.Title) {
			p.terms = append(p.terms, tok.Term)
		}
		out = append(out, p)
	}
	return out, nil
}

// firstByDownloads returns the ids of the first n of docs (document numbers, reordered) in
// completions' order: the most downloaded first (as the facet index holds the downloads; the
// doc values would cost a compressed chunk per document), then by id, read only for the first
// n and those tied with the last.
func firstByDownloads(r index.IndexReader, fi *facetIndex, docs []uint64, n int) ([]string, error) {
	downloads := fi.downloads
	slices.SortFunc(docs, func(a, b uint64) int { return cmp.Compare(downloads[b], downloads[a]) })
	end := min(n, len(docs))
	for end > 0 && end < len(docs) && downloads[docs[end]] == downloads[docs[end-1]] {
		end++
	}
	type match struct {
		downloads int64
		id        string
	}
	first := make([]match, end)
	for i, doc := range docs[:end] {
		id, err := r.ExternalID(index.NewIndexInternalID(nil, doc))
		if err != nil {
			return nil, err
		}
		first[i] = match{downloads[doc], id}
	}
	slices.SortFunc(first, func(a, b match) int {
		return cmp.Or(cmp.Compare(b.downloads, a.downloads), strings.Compare(a.id, b.id))
	})
	ids := make([]string, 0, min(n, end))
	for _, m := range first[:min(n, end)] {
		ids = append(ids, m.id)
	}
	return ids, nil
}

// storedItems returns the items with the given ids, in that order.
func storedItems(ctx context.Context, idx blevesearch.Index, ids []string) ([]search.Item, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	req := blevesearch.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = []string{fieldStored}
	res, err := idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]search.Item, len(res.Hits))
	for _, hit := range res.Hits {
		it, err := storedItem(hit)
		if err != nil {
			return nil, err
		}
		byID[it.ID] = it
	}
	out := make([]search.Item, 0, len(ids))
	for _, id := range ids {
		it, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("item %q: %w", id, search.ErrNotFound)
		}
		out = append(out, it)
	}
	return out, nil
}

// completes reports whether p holds every term, the last as a prefix, as the completion query asks.
func (p popularTitle) completes(terms []string) bool {
	last := len(terms) - 1
	for _, t := range terms[:last] {
		if !slices.Contains(p.terms, t) {
			return false
		}
	}
	return slices.ContainsFunc(p.terms, func(pt string) bool { return strings.HasPrefix(pt, terms[last]) })
}

// Complete returns the titles holding every word of text, the last as a prefix, most downloaded
// first. Words are the title field's terms (analysed as the index analyses titles). The popular
// titles are a prefix of the answer's order, so when n of them complete the text they are the
// answer; else the index is asked.
func (b *Backend) Complete(ctx context.Context, q string, n int) ([]search.Completion, error) {
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
	terms := text.QueryTerms(q)
	if len(terms) == 0 {
		return out, nil
	}
	for _, p := range h.popular {
		if p.completes(terms) {
			out = append(out, p.completion)
			if len(out) == n {
				return out, nil
			}
		}
	}
	if len(h.popular) < popularItems {
		// The popular titles are every title.
		return out, nil
	}
	return completeFromIndex(ctx, h, terms, n)
}

// completeFromIndex asks the index for the first n titles holding terms, the last as a prefix.
func completeFromIndex(ctx context.Context, h *handle, terms []string, n int) ([]search.Completion, error) {
	conj := make([]query.Query, 0, len(terms))
	for _, t := range terms[:len(terms)-1] {
		tq := query.NewTermQuery(t)
		tq.SetField(fieldTitle)
		conj = append(conj, tq)
	}
	pq := query.NewPrefixQuery(terms[len(terms)-1])
	pq.SetField(fieldTitle)
	conj = append(conj, pq)
	var items []search.Item
	err := withReader(h.idx, func(r index.IndexReader) error {
		var docs []uint64
		err := eachMatch(ctx, r, h.idx.Mapping(), query.NewConjunctionQuery(conj), func(doc uint64) {
			if doc < uint64(len(h.facets.downloads)) {
				docs = append(docs, doc)
			}
		})
		if err != nil {
			return err
		}
		ids, err := firstByDownloads(r, h.facets, docs, n)
		if err != nil {
			return err
		}
		items, err = storedItems(ctx, h.idx, ids)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", terms, err)
	}
	out := make([]search.Completion, 0, len(items))
	for _, it := range items {
		out = append(out, search.Completion{Text: it.Title, ID: it.ID})
	}
	return out, nil
}
