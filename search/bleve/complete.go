package bleve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

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
// first; then, when those are fewer than n and the last word may differ by an edit
// (search.CompleteTypo), the titles it completes within that edit, most downloaded first. Words
// are the title field's terms (analysed as the index analyses titles). The popular titles are a
// prefix of the answer's order, so when n of them complete the text they are the answer; else
// the index is asked.
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
	last := terms[len(terms)-1]
	if len(h.popular) == popularItems {
		exact := query.NewPrefixQuery(last)
		exact.SetField(fieldTitle)
		if out, err = completeFromIndex(ctx, h, terms, exact, n); err != nil || len(out) == n {
			return out, err
		}
	}
	if !search.CompleteTypo(last) {
		return out, nil
	}
	variants := h.titles.typoPrefixes(last)
	if len(variants) == 0 {
		return out, nil
	}
	near := make([]query.Query, len(variants))
	for i, v := range variants {
		pq := query.NewPrefixQuery(v)
		pq.SetField(fieldTitle)
		near[i] = pq
	}
	exact := query.NewPrefixQuery(last)
	exact.SetField(fieldTitle)
	typo := query.NewBooleanQuery([]query.Query{query.NewDisjunctionQuery(near)}, nil, []query.Query{exact})
	more, err := completeFromIndex(ctx, h, terms, typo, n-len(out))
	return append(out, more...), err
}

// completeFromIndex asks the index for the first n titles holding terms but the last, and
// matching last.
func completeFromIndex(ctx context.Context, h *handle, terms []string, last query.Query, n int) ([]search.Completion, error) {
	conj := make([]query.Query, 0, len(terms))
	for _, t := range terms[:len(terms)-1] {
		tq := query.NewTermQuery(t)
		tq.SetField(fieldTitle)
		conj = append(conj, tq)
	}
	conj = append(conj, last)
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

// titleTerms are the title field's terms in byte order, with the runes those of
// search.CompleteTypoFrom-1 runes or more are spelt with (the shortest a prefix within an edit of
// a last word with a typo may be): what those prefixes are looked up in.
type titleTerms struct {
	terms []string
	runes []rune
}

func loadTitleTerms(idx blevesearch.Index) (titleTerms, error) {
	var t titleTerms
	seen := map[rune]bool{}
	err := withReader(idx, func(r index.IndexReader) error {
		return eachTerm(r, fieldTitle, func(term string, _ uint64) error {
			t.terms = append(t.terms, term)
			if utf8.RuneCountInString(term) < search.CompleteTypoFrom-1 {
				return nil
			}
			for _, c := range term {
				if !seen[c] {
					seen[c] = true
					t.runes = append(t.runes, c)
				}
			}
			return nil
		})
	})
	if err != nil {
		return titleTerms{}, fmt.Errorf("title terms: %w", err)
	}
	return t, nil
}

// typoPrefixes are the strings one edit from p (a rune deleted, inserted or changed, or two
// adjacent runes swapped) that a title term starts with, in byte order: the prefixes an engine's
// fuzzy match of p finds among the title terms' prefixes.
func (t titleTerms) typoPrefixes(p string) []string {
	rs := []rune(p)
	var out []string
	try := func(v []rune) {
		s := string(v)
		if s == p || slices.Contains(out, s) {
			return
		}
		if i, _ := slices.BinarySearch(t.terms, s); i < len(t.terms) && strings.HasPrefix(t.terms[i], s) {
			out = append(out, s)
		}
	}
	for i := range rs {
		try(slices.Concat(rs[:i], rs[i+1:]))
		if i+1 < len(rs) {
			v := slices.Clone(rs)
			v[i], v[i+1] = v[i+1], v[i]
			try(v)
		}
		for _, c := range t.runes {
			v := slices.Clone(rs)
			v[i] = c
			try(v)
		}
	}
	for i := 0; i <= len(rs); i++ {
		for _, c := range t.runes {
			try(slices.Concat(rs[:i], []rune{c}, rs[i:]))
		}
	}
	slices.Sort(out)
	return out
}
