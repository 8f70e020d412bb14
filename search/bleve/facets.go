package bleve

import (
	"context"
	"errors"
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
	"mediagw/search/text"
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

func newFacetFilter(fi *facetIndex, q *search.Query) (facetFilter, error) {
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

// count adds doc to the counts of the asked facets whose other filters it passes, and reports
// whether it passes every facet's filter.
func (fi *facetIndex) count(counts [][]int, asked search.FacetSet, ff *facetFilter, doc uint64) bool {
	if doc >= uint64(len(fi.date)) {
		return false
	}
	fails, failed := fi.fails(ff, doc)
	for f, facet := range search.Facets {
		// A facet counts doc when doc passes every filter but, perhaps, its own.
		if asked.Has(facet) && failed-b2i(fails[f]) == 0 {
			counts[f][fi.of[f][doc]]++
		}
	}
	return failed == 0
}

// fails tells, for each facet, whether doc (a document fi holds) fails its own filter of ff,
// and how many it fails.
func (fi *facetIndex) fails(ff *facetFilter, doc uint64) (fails [8]bool, failed int) { // a FacetSet holds at most 8 facets
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
	return fails, failed
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// searchFaceted runs req, the hits of r, and counts the facets r's query asks for. A facet counts over q
// without its own filter (disjunctive facets): every document matching q without any facet's
// filter is counted, reading its facet values and date from facetIndex. Mostly that search
// collects req's hits too, keeping those that pass the facets' filters (onePass); otherwise a
// scoreless pass of its own runs beside req. Without facets it is req alone.
func searchFaceted(ctx context.Context, h *handle, r *search.Request, req *blevesearch.SearchRequest) (*blevesearch.SearchResult, map[search.Facet][]search.FacetValue, error) {
	q := &r.Query
	if q.Facets == 0 {
		res, err := h.idx.SearchInContext(ctx, req)
		return res, nil, err
	}
	fi := h.facets
	ff, err := newFacetFilter(fi, q)
	if err != nil {
		return nil, nil, err
	}
	base := r.With(withoutFacets(q))
	counts := make([][]int, len(search.Facets))
	for f := range counts {
		counts[f] = make([]int, len(fi.values[f])+1)
	}
	var res *blevesearch.SearchResult
	if onePass(q) {
		// The hits are the matches of the search without the facets' filters that pass them:
		// one pass counts and collects.
		sq, _, err := buildQuery(h.idx.Mapping(), base, fi.bonus, h.fuzzy)
		if err != nil {
			return nil, nil, err
		}
		one := *req
		one.Query = countingQuery{Query: sq, fi: fi, ff: &ff, asked: q.Facets, counts: counts}
		if res, err = h.idx.SearchInContext(ctx, &one); err != nil {
			return nil, nil, err
		}
		return res, facetValues(h, q, counts), nil
	}
	bq, _, err := buildQuery(h.idx.Mapping(), base, nil, h.fuzzy)
	if err != nil {
		return nil, nil, err
	}
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
	return res, facetValues(h, q, counts), nil
}

// facetValues are the facets q asks for from their values' counts (by ordinal, as count makes
// them), in the contract's order.
func facetValues(h *handle, q *search.Query, counts [][]int) map[search.Facet][]search.FacetValue {
	fi := h.facets
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
	return out
}

// withoutFacets is q without any facet's filter.
func withoutFacets(in *search.Query) search.Query {
	q := *in
	for _, f := range search.Facets {
		q = q.Without(f)
	}
	return q
}

// facetFiltersOnly reports whether q filters on nothing but what the facet index holds of every
// document (the facets' values and the date): without them it matches every item.
func (h *handle) facetFiltersOnly(q *search.Query) bool {
	bq, _, err := buildQuery(h.idx.Mapping(), search.NewRequest(withoutFacets(q)), nil, nil)
	_, all := bq.(*query.MatchAllQuery)
	return err == nil && all
}

// onePass reports whether q's search is the search without its facets' filters (search.Query.Without)
// narrowed by them: its words are planned alike (PlanText reads the language filter for the
// stems, so a text search in a language is not).
func onePass(q *search.Query) bool {
	return len(q.Language.Values()) == 0 || len(text.Words(q.Text)) == 0
}

// countingQuery matches what its query matches and passes every facet's filter ff, adding each
// match of its query to the facets' counts (facetIndex.count) on the way.
type countingQuery struct {
	query.Query
	fi     *facetIndex
	ff     *facetFilter
	asked  search.FacetSet
	counts [][]int
}

func (q countingQuery) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	s, err := q.Query.Searcher(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	return countingSearcher{Searcher: s, q: q}, nil
}

// countingSearcher is the searcher of a countingQuery. Bleve's collector only calls Next.
type countingSearcher struct {
	bsearch.Searcher
	q countingQuery
}

func (s countingSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	for {
		d, err := s.Searcher.Next(ctx)
		if d == nil || err != nil {
			return d, err
		}
		if s.q.fi.count(s.q.counts, s.q.asked, s.q.ff, d.IndexInternalID.Value()) {
			return d, nil
		}
		ctx.DocumentMatchPool.Put(d)
	}
}

// Advance skips matches, which would leave them uncounted: a countingQuery is only ever the root
// of a search, which Bleve's collector drives with Next.
func (s countingSearcher) Advance(*bsearch.SearchContext, index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	return nil, errors.New("bleve: a counting search advanced")
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
