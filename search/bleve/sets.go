package bleve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"mediagw/search"
)

// A numbered page of a search is answered from the postings themselves, as sets of document
// numbers (setPage): each word's matches by the rank of the best clause they match, intersected
// with the other words', the filters and the facets' (read from the facet index), then every
// match scored from those sets, counted and offered to a bounded heap in the page's order. Bleve's
// searchers and collector find the same page, total and scores, but build a match object for every
// clause of every match and compare sort values through interfaces: at a million items a search
// of a common word walks hundreds of thousands of matches, and that cost grew with them.

// errNoSets: the index is not one segment of the kind sets read; the caller searches with Bleve.
var errNoSets = errors.New("bleve: index not readable as sets")

// scoreUnit divides every clause's score, so that a match's sum of best clauses is a count of
// units (wordScores). Every score is a multiple of a power of two (search.Clauses), so the count
// times the unit is exactly the sum Bleve adds up.
var scoreUnit, clauseUnits = func() (float64, []uint16) {
	unit := 1.0
	fits := func(u float64) bool {
		for _, s := range clauseScores {
			if n := s / u; n != math.Trunc(n) || n > 1<<8 {
				return false
			}
		}
		return true
	}
	for !fits(unit) {
		if unit /= 2; unit < 1.0/(1<<10) {
			panic("bleve: clause scores are no multiples of a power of two")
		}
	}
	units := make([]uint16, len(clauseScores))
	for r, s := range clauseScores {
		units[r] = uint16(s / unit)
	}
	return unit, units
}()

// postings reads the term bitmaps of one segment of the index, by the segment's own document
// numbers (offset less than the index's). The bitmaps it returns may be the index's own, mapped
// read-only: they are never changed, only combined into new ones.
type postings struct {
	seg     segment.Segment
	deleted *roaring.Bitmap
	// offset is the segment's first document number in the index, size its number of documents.
	offset, size uint64
	dicts        map[string]segment.TermDictionary
	r            index.IndexReader
}

// segmentsOf are the segments of r, a Scorch snapshot, in document order.
func segmentsOf(r index.IndexReader) ([]*postings, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, errNoSets
	}
	var out []*postings
	offset := uint64(0)
	for _, s := range snap.Segments() {
		// As Scorch numbers documents: each segment's after the last one's, deleted ones included.
		size := s.Segment().Count()
		out = append(out, &postings{seg: s.Segment(), deleted: s.Deleted(), offset: offset, size: size, dicts: map[string]segment.TermDictionary{}, r: r})
		offset += size
	}
	return out, nil
}

// every is the set of the segment's documents that are not deleted.
func (p *postings) every() *roaring.Bitmap {
	set := roaring.New()
	set.AddRange(0, p.size)
	if p.deleted != nil {
		set.AndNot(p.deleted)
	}
	return set
}

// term is the set of documents holding term in field.
func (p *postings) term(field, term string) (*roaring.Bitmap, error) {
	d, ok := p.dicts[field]
	if !ok {
		var err error
		if d, err = p.seg.Dictionary(field); err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		p.dicts[field] = d
	}
	pl, err := d.PostingsList([]byte(term), p.deleted, nil)
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %w", field, term, err)
	}
	it, ok := pl.Iterator(false, false, false, nil).(segment.OptimizablePostingsIterator)
	if !ok {
		return nil, errNoSets
	}
	if doc, ok := it.DocNum1Hit(); ok {
		return roaring.BitmapOf(uint32(doc)), nil
	}
	if bm := it.ActualBitmap(); bm != nil {
		return bm, nil
	}
	return roaring.New(), nil
}

// anyTerm is the set of documents holding any of terms in field (a new set).
func (p *postings) anyTerm(field string, terms []string) (*roaring.Bitmap, error) {
	sets := make([]*roaring.Bitmap, 0, len(terms))
	for _, t := range terms {
		s, err := p.term(field, t)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return roaring.FastOr(sets...), nil
}

// phrase is the set of documents holding terms side by side in field (a new set).
func (p *postings) phrase(ctx context.Context, m *handle, field string, terms []string) (*roaring.Bitmap, error) {
	if len(terms) == 1 {
		return p.anyTerm(field, terms)
	}
	set := roaring.New()
	err := eachMatch(ctx, p.r, m.idx.Mapping(), query.NewPhraseQuery(terms, field), func(doc uint64) {
		if doc >= p.offset && doc < p.offset+p.size {
			set.Add(uint32(doc - p.offset))
		}
	})
	return set, err
}

// ranked is one word's (or phrase's) matches by the rank of the best clause matched
// (clauseScores' index): at[r] holds the matches of a clause of rank r (nil: none), any all of them.
type ranked struct {
	at  []*roaring.Bitmap
	any *roaring.Bitmap
}

// newRanked makes a ranked word of each rank's matches.
func newRanked(at []*roaring.Bitmap) ranked {
	return ranked{at: at, any: roaring.FastOr(slices.DeleteFunc(slices.Clone(at), func(s *roaring.Bitmap) bool { return s == nil })...)}
}

// wordSets is the ranked matches of a word searched as its alternatives (wordQuery, synonymsQuery).
func (p *postings) wordSets(ctx context.Context, h *handle, alts []search.Variant) (ranked, error) {
	at := make([]*roaring.Bitmap, len(clauseScores))
	add := func(r int, s *roaring.Bitmap) {
		if at[r] == nil {
			at[r] = roaring.New()
		}
		at[r].Or(s)
	}
	for _, a := range alts {
		for _, c := range search.Clauses {
			field := textFields[c.Field]
			r := slices.Index(clauseScores, c.Score)
			if c.Stem {
				if len(a.Stems) > 0 {
					s, err := p.anyTerm(field, a.Stems)
					if err != nil {
						return ranked{}, err
					}
					add(r, s)
				}
				continue
			}
			var match *roaring.Bitmap
			fuzzed := false
			for i, t := range a.Terms {
				var s *roaring.Bitmap
				var err error
				if n := search.TypoAllowance(t); a.Typo && c.Typo && n > 0 {
					fuzzed = true
					fq := fuzzyQuery{fuzzyKey: fuzzyKey{term: t, field: field, fuzziness: n}, cache: h.fuzzy}
					var cand fuzzyTerms
					var fuzzy bool
					if cand, fuzzy, err = fq.terms(ctx, p.r); err == nil && !fuzzy {
						err = errNoSets
					}
					if err == nil {
						terms := cand.terms
						if len(terms) == 0 {
							terms = []string{t}
						}
						s, err = p.anyTerm(field, terms)
					}
				} else {
					s, err = p.term(field, t)
				}
				if err != nil {
					return ranked{}, err
				}
				if i == 0 {
					match = s
				} else {
					match = roaring.And(match, s)
				}
			}
			if c.Typo && !fuzzed {
				// As in wordQuery: the clause would match as the exact one, which ranks higher.
				continue
			}
			if match != nil {
				add(r, match)
			}
		}
	}
	return newRanked(at), nil
}

// phraseSets is the ranked matches of a phrase (phraseQuery): its exact clauses only.
func (p *postings) phraseSets(ctx context.Context, h *handle, terms []string) (ranked, error) {
	at := make([]*roaring.Bitmap, len(clauseScores))
	for _, c := range search.Clauses {
		if c.Typo || c.Stem {
			continue
		}
		s, err := p.phrase(ctx, h, textFields[c.Field], terms)
		if err != nil {
			return ranked{}, err
		}
		r := slices.Index(clauseScores, c.Score)
		if at[r] == nil {
			at[r] = s
		} else {
			at[r].Or(s)
		}
	}
	return newRanked(at), nil
}

// textSets is the ranked words and phrases of r's text (textQuery), in its order; none means the
// text does not restrict (no text), and matchesNone that it has no searchable term.
func (p *postings) textSets(ctx context.Context, h *handle, r *search.Request) (words []ranked, matchesNone bool, err error) {
	q := &r.Query
	for _, alts := range r.Plan().Words {
		if len(alts) == 0 || len(alts[0].Terms) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		w, err := p.wordSets(ctx, h, alts)
		if err != nil {
			return nil, false, err
		}
		words = append(words, w)
	}
	for _, ph := range q.Phrases.Terms() {
		w, err := p.phraseSets(ctx, h, ph)
		if err != nil {
			return nil, false, err
		}
		words = append(words, w)
	}
	return words, len(words) == 0 && q.Text != "", nil
}

// matchesOf is the set of documents r matches in the segment, from its words' sets.
func (p *postings) matchesOf(ctx context.Context, h *handle, r *search.Request) (*roaring.Bitmap, error) {
	words, none, err := p.textSets(ctx, h, r)
	if err != nil {
		return nil, err
	}
	return p.matches(ctx, h, r, words, none)
}

// readsPerIntersection is how many matches' values are read from the facet index for the cost of
// intersecting one value's set with one container.
const readsPerIntersection = 50

// matches is the set of the segment's documents r's text and its filters but the facets' match
// (buildQuery without the facet index's filters): nil for every one.
func (p *postings) matches(ctx context.Context, h *handle, r *search.Request, words []ranked, none bool) (*roaring.Bitmap, error) {
	if none {
		return roaring.New(), nil
	}
	q := &r.Query
	var set *roaring.Bitmap
	and := func(s *roaring.Bitmap) {
		if set == nil {
			set = s.Clone()
		} else {
			set.And(s)
		}
	}
	// The rarest first: the intersection shrinks soonest.
	order := slices.Clone(words)
	slices.SortFunc(order, func(a, b ranked) int {
		return int(a.any.GetCardinality()) - int(b.any.GetCardinality())
	})
	for _, w := range order {
		and(w.any)
	}
	if q.Author != "" {
		s, err := p.term(fieldAuthor, q.Author)
		if err != nil {
			return nil, err
		}
		and(s)
	}
	for _, f := range []struct {
		field string
		list  search.List
	}{{fieldReuse, q.Reuse}, {fieldHas, q.Has}} {
		for _, v := range f.list.Values() {
			s, err := p.term(f.field, v)
			if err != nil {
				return nil, err
			}
			and(s)
		}
	}
	for _, ph := range q.Exclude.Terms() {
		x, err := p.phraseSets(ctx, h, ph)
		if err != nil {
			return nil, err
		}
		if set == nil {
			set = p.every()
		}
		set.AndNot(x.any)
	}
	if set == nil && p.deleted != nil && !p.deleted.IsEmpty() {
		set = p.every()
	}
	return set, nil
}

// unitsPool holds the score sums (in scoreUnits) of one search by document number, cleared.
var unitsPool sync.Pool

// wordScores adds to units, for each document of set, the units of each word's best clause.
func wordScores(set *roaring.Bitmap, words []ranked, units []uint16) {
	buf := make([]uint32, 256)
	for _, w := range words {
		left := set.Clone()
		for r := len(w.at) - 1; r >= 0 && !left.IsEmpty(); r-- {
			if w.at[r] == nil {
				continue
			}
			at := roaring.And(left, w.at[r])
			add := clauseUnits[r]
			it := at.ManyIterator()
			for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
				for _, doc := range buf[:n] {
					units[doc] += add
				}
			}
			left.AndNot(at)
		}
	}
}

// pageHeap keeps the first need documents of an order, the last of them on top.
type pageHeap struct {
	docs   []uint64
	scores []float64
	// before reports whether document a (score sa) comes before b (score sb).
	before func(a uint64, sa float64, b uint64, sb float64) bool
	need   int
}

// less: i comes before j, so j is nearer the top.
func (p *pageHeap) less(i, j int) bool {
	return p.before(p.docs[i], p.scores[i], p.docs[j], p.scores[j])
}

func (p *pageHeap) swap(i, j int) {
	p.docs[i], p.docs[j] = p.docs[j], p.docs[i]
	p.scores[i], p.scores[j] = p.scores[j], p.scores[i]
}

func (p *pageHeap) offer(doc uint64, score float64) {
	if len(p.docs) < p.need {
		p.docs, p.scores = append(p.docs, doc), append(p.scores, score)
		for i := len(p.docs) - 1; i > 0; {
			up := (i - 1) / 2
			if !p.less(up, i) {
				break
			}
			p.swap(up, i)
			i = up
		}
		return
	}
	if p.need == 0 || !p.before(doc, score, p.docs[0], p.scores[0]) {
		return
	}
	p.docs[0], p.scores[0] = doc, score
	for i := 0; ; {
		big, l, r := i, 2*i+1, 2*i+2
		if l < len(p.docs) && p.less(big, l) {
			big = l
		}
		if r < len(p.docs) && p.less(big, r) {
			big = r
		}
		if big == i {
			return
		}
		p.swap(i, big)
		i = big
	}
}

// sorted is the documents kept, in the order.
func (p *pageHeap) sorted() []uint64 {
	idx := make([]int, len(p.docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if p.before(p.docs[a], p.scores[a], p.docs[b], p.scores[b]) {
			return -1
		}
		return 1
	})
	out := make([]uint64, len(idx))
	for i, k := range idx {
		out[i] = p.docs[k]
	}
	return out
}

// setPage is the numbered page of r (its text searchable, hasText, or not) past its first skip
// matches, read as sets: its hits (with their stored item, in the order), the total, and the
// facets r asks for. It returns errNoSets when the index is not Scorch's or the ranking of r's
// order is not built yet; the caller then searches with Bleve.
func (h *handle) setPage(ctx context.Context, r *search.Request, hasText bool, skip int) ([]*bsearch.DocumentMatch, int, map[search.Facet][]search.FacetValue, error) {
	q := &r.Query
	var rank *ranking
	if q.Sort == search.SortRelevance {
		rank = h.built(search.SortNewest)
	} else {
		rank = h.built(q.Sort)
	}
	if rank == nil {
		return nil, 0, nil, errNoSets
	}
	fi := h.facets
	ff, err := newFacetFilter(fi, q)
	if err != nil {
		return nil, 0, nil, err
	}
	var (
		hits   []*bsearch.DocumentMatch
		total  int
		facets map[search.Facet][]search.FacetValue
	)
	var counts [][]int
	if q.Facets != 0 {
		counts = make([][]int, len(search.Facets))
		for f := range counts {
			counts[f] = make([]int, len(fi.values[f])+1)
		}
	}
	// Without a date filter the facets count from the sets, each value's set intersected with the
	// matches of the search without its facet's filter; with one, by document (facetIndex.count),
	// in the pass that collects the hits unless the stems of the search without the facets'
	// filters differ (onePass).
	noDates := ff.from == 0 && ff.to == ^uint32(0)
	bySets := q.Facets == 0 || noDates
	counted := q.Facets != 0 && !bySets && onePass(q)
	// Without text (buildQuery's hasText) nothing scores, and relevance is newest.
	scoring := q.Sort == search.SortRelevance && hasText
	heap := pageHeap{need: skip + q.PerPage}
	if scoring {
		heap.before = func(a uint64, sa float64, b uint64, sb float64) bool {
			if sa != sb {
				return sa > sb
			}
			return rank.key(a) < rank.key(b)
		}
	} else {
		heap.before = func(a uint64, _ float64, b uint64, _ float64) bool { return rank.key(a) < rank.key(b) }
	}
	err = withReader(h.idx, func(ir index.IndexReader) error {
		segs, err := segmentsOf(ir)
		if err != nil {
			return err
		}
		var boost map[uint64]float64
		if scoring {
			if boost, err = pinBoosts(ir, r.Plan().Pins); err != nil {
				return err
			}
		}
		// Counted from the sets, or not at all, the facets' filters narrow the sets, and the dates
		// alone are read per document; a page in a ranking's order without them needs no visit of
		// its matches.
		check := &ff
		if bySets {
			check = &facetFilter{want: make([][]bool, len(ff.want)), from: ff.from, to: ff.to}
		}
		inOrder := bySets && !scoring && noDates
		var sets []*roaring.Bitmap
		for _, p := range segs {
			words, none, err := p.textSets(ctx, h, r)
			if err != nil {
				return err
			}
			set, err := p.matches(ctx, h, r, words, none)
			if err != nil {
				return err
			}
			if bySets {
				fs, err := p.facetSets(q)
				if err != nil {
					return err
				}
				if q.Facets != 0 {
					cs := set
					if !onePass(q) {
						// The facets count the search without their filters, whose stems differ.
						base := r.With(withoutFacets(q))
						var err error
						if cs, err = p.matchesOf(ctx, h, base); err != nil {
							return err
						}
					}
					if err := p.countFacets(ctx, fi, counts, q.Facets, cs, fs); err != nil {
						return err
					}
				}
				for _, f := range fs {
					if f == nil {
						continue
					}
					if set == nil {
						set = f.Clone()
					} else {
						set.And(f)
					}
				}
			}
			if inOrder {
				sets = append(sets, set)
				continue
			}
			var units []uint16
			if scoring && len(words) > 0 {
				units, _ = unitsPool.Get().([]uint16)
				if uint64(len(units)) < p.size {
					units = make([]uint16, p.size)
				}
				wordScores(set, words, units)
			}
			visit := func(local uint64) {
				doc := p.offset + local
				var pass bool
				switch {
				case doc >= uint64(len(fi.date)):
				case counted:
					pass = fi.count(counts, q.Facets, &ff, doc)
				default:
					_, failed := fi.fails(check, doc)
					pass = failed == 0
				}
				if !pass {
					return
				}
				total++
				var score float64
				if scoring {
					if units != nil {
						score = float64(units[local]) * scoreUnit
					}
					score += fi.bonus[doc]
					if b, ok := boost[doc]; ok {
						score += b
					}
				}
				heap.offer(doc, score)
			}
			err = eachDoc(ctx, set, p.size, visit)
			if units != nil {
				clear(units)
				unitsPool.Put(units)
			}
			if err != nil {
				return err
			}
			if q.Facets != 0 && !bySets && !counted {
				base := r.With(withoutFacets(q))
				countSet, err := p.matchesOf(ctx, h, base)
				if err != nil {
					return err
				}
				err = eachDoc(ctx, countSet, p.size, func(local uint64) {
					if doc := p.offset + local; doc < uint64(len(fi.date)) {
						fi.count(counts, q.Facets, &ff, doc)
					}
				})
				if err != nil {
					return err
				}
			}
		}
		if q.Facets != 0 {
			facets = facetValues(h, q, counts)
		}
		var page []uint64
		if inOrder {
			if page, total, err = rankedSets(ctx, rank, segs, sets, &heap); err != nil {
				return err
			}
		} else {
			page = heap.sorted()
		}
		hits, err = storedHits(ctx, h, ir, page[min(skip, len(page)):])
		return err
	})
	if err != nil {
		return nil, 0, nil, err
	}
	return hits, total, facets, nil
}

// facetSets are, by search.Facets' order, the sets of the segment's documents that pass q's
// filter on each facet's field, as buildQuery's term filters match them; nil where q has none.
func (p *postings) facetSets(q *search.Query) ([]*roaring.Bitmap, error) {
	out := make([]*roaring.Bitmap, len(search.Facets))
	for i, f := range search.Facets {
		if l := q.Filter(f); l != nil && *l != "" {
			s, err := p.anyTerm(facetFields[i], l.Values())
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
	}
	return out, nil
}

// countFacets adds to counts (by ordinal, as facetIndex.count makes them) the asked facets'
// values over set (nil: every document) narrowed by every facet's filter of fs but its own.
func (p *postings) countFacets(ctx context.Context, fi *facetIndex, counts [][]int, asked search.FacetSet, set *roaring.Bitmap, fs []*roaring.Bitmap) error {
	for f, facet := range search.Facets {
		if !asked.Has(facet) {
			continue
		}
		over := set
		for g, s := range fs {
			if g == f || s == nil {
				continue
			}
			if over == nil {
				over = s
			} else {
				over = roaring.And(over, s)
			}
		}
		// Intersecting every value's set costs by the container of 65,536 documents, reading a
		// match's value from the facet index by the match: few matches are read one by one.
		if over != nil && uint64(len(fi.values[f]))*(p.size>>16+1)*readsPerIntersection > over.GetCardinality() {
			of := fi.of[f]
			err := eachDoc(ctx, over, p.size, func(local uint64) {
				if doc := p.offset + local; doc < uint64(len(of)) {
					counts[f][of[doc]]++
				}
			})
			if err != nil {
				return err
			}
			continue
		}
		for o, v := range fi.values[f] {
			s, err := p.term(facetFields[f], v)
			if err != nil {
				return err
			}
			if over == nil {
				counts[f][o+1] += int(s.GetCardinality())
			} else {
				counts[f][o+1] += int(over.AndCardinality(s))
			}
		}
	}
	return nil
}

// rankedSets is the first heap.need documents of the segments' sets (nil: every document) in
// rank's order, and how many they hold. When the matches are many, the ranking's first documents
// soon hold the page: they are read in order until it is full; otherwise the heap keeps the
// page from every match.
func rankedSets(ctx context.Context, rank *ranking, segs []*postings, sets []*roaring.Bitmap, heap *pageHeap) ([]uint64, int, error) {
	total := 0
	for i, s := range sets {
		if s == nil {
			total += int(segs[i].size)
		} else {
			total += int(s.GetCardinality())
		}
	}
	// Reading the ranking costs about need*len(docs)/total lookups, the heap total offers.
	if heap.need*len(rank.docs) >= total*total {
		for i, s := range sets {
			off := segs[i].offset
			if err := eachDoc(ctx, s, segs[i].size, func(local uint64) { heap.offer(off+local, 0) }); err != nil {
				return nil, 0, err
			}
		}
		return heap.sorted(), total, nil
	}
	page := make([]uint64, 0, heap.need)
	for n, doc := range rank.docs {
		if len(page) == heap.need {
			break
		}
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		i := len(segs) - 1
		for i > 0 && doc < segs[i].offset {
			i--
		}
		if s := sets[i]; s == nil || s.Contains(uint32(doc-segs[i].offset)) {
			page = append(page, doc)
		}
	}
	return page, total, nil
}

// eachDoc calls fn for each document of set (nil: every one of the n), in order, until ctx ends.
func eachDoc(ctx context.Context, set *roaring.Bitmap, n uint64, fn func(doc uint64)) error {
	if set == nil {
		for doc := range n {
			if doc%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			fn(doc)
		}
		return nil
	}
	it := set.ManyIterator()
	buf := make([]uint32, 4096)
	for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, doc := range buf[:k] {
			fn(uint64(doc))
		}
	}
	return nil
}

// pinBoosts is search.PinBoost of each pinned document the index holds, as pinnedQuery adds it.
func pinBoosts(ir index.IndexReader, pins []string) (map[uint64]float64, error) {
	if len(pins) == 0 {
		return nil, nil
	}
	out := make(map[uint64]float64, len(pins))
	for k, id := range pins {
		doc, err := ir.InternalID(id)
		if err != nil {
			return nil, err
		}
		if doc != nil {
			out[doc.Value()] = search.PinBoost(k, len(pins))
		}
	}
	return out, nil
}

// storedHits are docs with their stored item, in docs' order.
func storedHits(ctx context.Context, h *handle, ir index.IndexReader, docs []uint64) ([]*bsearch.DocumentMatch, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(docs))
	for i, doc := range docs {
		id, err := ir.ExternalID(index.NewIndexInternalID(nil, doc))
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	req := blevesearch.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
	req.Fields = []string{fieldStored}
	req.Score = blevesearch.ScoreNone
	res, err := h.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*bsearch.DocumentMatch, len(res.Hits))
	for _, hit := range res.Hits {
		byID[hit.ID] = hit
	}
	out := make([]*bsearch.DocumentMatch, 0, len(ids))
	for _, id := range ids {
		if hit, ok := byID[id]; ok {
			out = append(out, hit)
		}
	}
	return out, nil
}
