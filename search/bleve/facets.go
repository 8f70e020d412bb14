package bleve

import (
	"context"
	"fmt"
	"slices"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/numeric"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"golang.org/x/sync/errgroup"

	"mediagw/search"
)

// facetFields are the keyword fields the facets count, in search.Facets' order.
var facetFields = []string{fieldType, fieldCategory, fieldLanguage, fieldYear, fieldLicense, fieldFormat, fieldDuration}

// yearFacet is the year's place in search.Facets and facetFields.
var yearFacet = slices.Index(search.Facets, search.FacetYear)

// facetIndex holds, by document number, what the facets, completions and scores read of each
// document: each facet field's value (the index of the value in values, plus one; 0: none), the
// date (YYYYMMDD; 0: none), the downloads and the score's bonus (search.Bonus). Read from the doc values, that is a compressed chunk per
// document and field, which costs a faceted search more than its hits; in memory it is an array
// lookup. The index is read-only, so its document numbers never change.
type facetIndex struct {
	values    [][]string
	of        [][]uint32
	date      []uint32
	downloads []int64
	bonus     []float64
}

// loadFacetIndex reads the facet fields, dates and downloads of every document from their
// postings. (Not counts from the term dictionary: zapx v17.2.5 reuses one postings list across dictionary
// entries and, after a term of one document, counts every later term of that segment as one.)
func loadFacetIndex(ctx context.Context, idx blevesearch.Index) (*facetIndex, error) {
	fi := &facetIndex{}
	err := withReader(idx, func(r index.IndexReader) error {
		n, err := r.DocCount()
		if err != nil {
			return err
		}
		for _, field := range append(slices.Clone(facetFields), fieldDateSort) {
			var values []string
			of := make([]uint32, n)
			err := visitPostings(ctx, r, field, func(term string) (bool, error) {
				values = append(values, term)
				return true, nil
			}, func(doc uint64) error {
				for doc >= uint64(len(of)) {
					of = append(of, 0)
				}
				if field != fieldDateSort {
					of[doc] = uint32(len(values))
					return nil
				}
				d, err := dateNumber(values[len(values)-1])
				of[doc] = uint32(d)
				return err
			})
			if err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
			if field == fieldDateSort {
				fi.date = of
			} else {
				fi.values, fi.of = append(fi.values, values), append(fi.of, of)
			}
		}
		// Numbers are indexed at several precisions; the terms of shift 0 are the exact values.
		if fi.downloads, err = numbers(ctx, r, fieldDownloads, n, func(v float64) int64 { return int64(v) }); err != nil {
			return err
		}
		if fi.bonus, err = numbers(ctx, r, fieldBonus, n, func(v float64) float64 { return v }); err != nil {
			return err
		}
		// One length for all, so that a document number within one is within every one.
		size := max(len(fi.date), len(fi.downloads), len(fi.bonus))
		for _, of := range fi.of {
			size = max(size, len(of))
		}
		for i := range fi.of {
			fi.of[i] = append(fi.of[i], make([]uint32, size-len(fi.of[i]))...)
		}
		fi.date = append(fi.date, make([]uint32, size-len(fi.date))...)
		fi.downloads = append(fi.downloads, make([]int64, size-len(fi.downloads))...)
		fi.bonus = append(fi.bonus, make([]float64, size-len(fi.bonus))...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("facet values: %w", err)
	}
	return fi, nil
}

// numbers reads a numeric field of every document from its postings (the terms of shift 0, the
// exact values), as conv turns them, by document number.
func numbers[T any](ctx context.Context, r index.IndexReader, field string, n uint64, conv func(float64) T) ([]T, error) {
	out := make([]T, n)
	var value T
	err := visitPostings(ctx, r, field, func(term string) (bool, error) {
		p := numeric.PrefixCoded(term)
		if shift, err := p.Shift(); err != nil || shift != 0 {
			return false, err
		}
		v, err := p.Int64()
		value = conv(numeric.Int64ToFloat64(v))
		return true, err
	}, func(doc uint64) error {
		for doc >= uint64(len(out)) {
			var zero T
			out = append(out, zero)
		}
		out[doc] = value
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return out, nil
}

// eachTerm calls f for each term of field's dictionary, in byte order, with the number of
// documents holding it, until f returns an error.
func eachTerm(r index.IndexReader, field string, f func(term string, docs uint64) error) (err error) {
	dict, err := r.FieldDict(field)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := dict.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		e, err := dict.Next()
		if err != nil || e == nil {
			return err
		}
		if err := f(e.Term, e.Count); err != nil {
			return err
		}
	}
}

// visitPostings calls term for each term of field, then, if it says so, doc for each document
// holding the term.
func visitPostings(ctx context.Context, r index.IndexReader, field string, term func(string) (bool, error), doc func(uint64) error) error {
	return eachTerm(r, field, func(t string, _ uint64) error {
		keep, err := term(t)
		if err != nil || !keep {
			return err
		}
		return eachPosting(ctx, r, t, field, doc)
	})
}

// eachPosting calls doc for each document holding term in field.
func eachPosting(ctx context.Context, r index.IndexReader, term, field string, doc func(uint64) error) (err error) {
	tr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := tr.Close(); err == nil {
			err = cerr
		}
	}()
	var d *index.TermFieldDoc
	for d, err = tr.Next(nil); d != nil && err == nil; d, err = tr.Next(d) {
		if err = doc(d.ID.Value()); err != nil {
			break
		}
	}
	return err
}

// facetFilter is q's facet filters as facetIndex reads them.
type facetFilter struct {
	// want is, for each facet but the year's (by search.Facets' order), which ordinals pass its
	// filter; nil when q does not filter on it.
	want     [][]bool
	from, to uint32
}

func newFacetFilter(fi *facetIndex, q search.Query) (facetFilter, error) {
	ff := facetFilter{want: make([][]bool, len(search.Facets))}
	for i, f := range search.Facets {
		l := q.Filter(f)
		if l == nil || *l == "" {
			continue
		}
		ff.want[i] = make([]bool, len(fi.values[i])+1)
		for o, have := range fi.values[i] {
			ff.want[i][o+1] = l.Holds(have)
		}
	}
	ff.to = ^uint32(0)
	for _, b := range []struct {
		date string
		to   *uint32
	}{{q.From, &ff.from}, {q.To, &ff.to}} {
		if b.date != "" {
			n, err := dateNumber(b.date)
			if err != nil {
				return ff, err
			}
			*b.to = uint32(n)
		}
	}
	return ff, nil
}

// count adds doc to the counts of the asked facets whose other filters it passes.
func (fi *facetIndex) count(counts [][]int, asked search.FacetSet, ff *facetFilter, doc uint64) {
	if doc >= uint64(len(fi.date)) {
		return
	}
	// fails[f] tells whether doc fails facet f's own filter; failed counts them.
	var fails [8]bool // a FacetSet holds at most 8 facets
	failed := 0
	for f, want := range ff.want {
		if want != nil && !want[fi.of[f][doc]] {
			fails[f] = true
			failed++
		}
	}
	// The dates are the year facet's filter.
	if d := fi.date[doc]; (ff.from > 0 || ff.to < ^uint32(0)) && (d == 0 || d < ff.from || d > ff.to) {
		fails[yearFacet] = true
		failed++
	}
	for f, facet := range search.Facets {
		// A facet counts doc when doc passes every filter but, perhaps, its own.
		if asked.Has(facet) && failed-b2i(fails[f]) == 0 {
			counts[f][fi.of[f][doc]]++
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// searchFaceted runs req, the hits of q, and counts the facets q asks for. A facet counts over q
// without its own filter (disjunctive facets): one scoreless pass over the documents matching q
// without any facet's filter counts them all, beside req, reading each document's facet values
// and date from facetIndex. Without facets it is req alone.
func searchFaceted(ctx context.Context, h *handle, q search.Query, req *blevesearch.SearchRequest) (*blevesearch.SearchResult, map[search.Facet][]search.FacetValue, error) {
	if q.Facets == 0 {
		res, err := h.idx.SearchInContext(ctx, req)
		return res, nil, err
	}
	fi := h.facets
	ff, err := newFacetFilter(fi, q)
	if err != nil {
		return nil, nil, err
	}
	base := q
	for _, f := range search.Facets {
		base = base.Without(f)
	}
	bq, _, err := buildQuery(h.idx.Mapping(), base, nil, h.fuzzy)
	if err != nil {
		return nil, nil, err
	}
	counts := make([][]int, len(search.Facets))
	for f := range counts {
		counts[f] = make([]int, len(fi.values[f])+1)
	}
	var res *blevesearch.SearchResult
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		res, err = h.idx.SearchInContext(gctx, req)
		return err
	})
	g.Go(func() error {
		if _, all := bq.(*query.MatchAllQuery); all {
			for doc := range fi.date {
				fi.count(counts, q.Facets, &ff, uint64(doc))
			}
			return nil
		}
		err := withReader(h.idx, func(r index.IndexReader) error {
			return eachMatch(gctx, r, h.idx.Mapping(), bq, func(doc uint64) {
				fi.count(counts, q.Facets, &ff, doc)
			})
		})
		if err != nil {
			return fmt.Errorf("facets: %w", err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	names := make(map[string]string, len(h.categories))
	for _, c := range h.categories {
		names[c.Slug] = c.Name
	}
	out := map[search.Facet][]search.FacetValue{}
	for f, facet := range search.Facets {
		if !q.Facets.Has(facet) {
			continue
		}
		values := []search.FacetValue{}
		for o, n := range counts[f][1:] {
			if n == 0 {
				continue
			}
			v := search.FacetValue{Value: fi.values[f][o], Count: n}
			if facet == search.FacetCategory {
				v.Name = names[v.Value]
			}
			values = append(values, v)
		}
		out[facet] = search.TopFacetValues(values)
	}
	return res, out, nil
}

// withReader runs fn on a reader of idx.
func withReader(idx blevesearch.Index, fn func(index.IndexReader) error) error {
	ix, err := idx.Advanced()
	if err != nil {
		return err
	}
	r, err := ix.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r)
}

// eachMatch calls fn with the number of each document bq matches in r, unscored and unordered.
func eachMatch(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, bq query.Query, fn func(doc uint64)) error {
	s, err := bq.Searcher(ctx, r, m, bsearch.SearcherOptions{Score: blevesearch.ScoreNone})
	if err != nil {
		return err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		dm, err := s.Next(sctx)
		if err != nil || dm == nil {
			return err
		}
		fn(dm.IndexInternalID.Value())
		sctx.DocumentMatchPool.Put(dm)
	}
}
