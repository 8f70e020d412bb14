package bleve

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	blevesearch "github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
)

// A page of a query without text, a walk's or a numbered one, does not ask the collector for the
// next items after the cursor (SearchAfter) or past the first pages, which reads the sort values
// of every match for every page: it reads the index's items in that order, ranked once per index
// and order, from the cursor's item on, and keeps the first that match after those it skips. A
// walk of 30,000 items then costs about one sorted search instead of 600. Walks with text (scores)
// and with facets take SearchAfter; numbered pages with them sort by the rankings (pageOrder).

// ranking is the index's documents in one order.
type ranking struct {
	// docs are the document numbers in the order.
	docs []uint64
	// keys hold each document's place in docs, by document number, as 4 big-endian bytes, so
	// that comparing two keys compares the places (rankSort); a document not ranked holds noRank.
	keys string
}

const noRank = "\xff\xff\xff\xff"

// size is one more than the highest document number ranked.
func (r *ranking) size() int { return len(r.keys) / 4 }

// key is doc's place as keys hold it.
func (r *ranking) key(doc uint64) string {
	if doc >= uint64(r.size()) {
		return noRank
	}
	return r.keys[4*doc : 4*doc+4]
}

// rank is doc's place in docs, if doc is ranked.
func (r *ranking) rank(doc uint64) (int, bool) {
	k := r.key(doc)
	if k == noRank {
		return 0, false
	}
	return int(binary.BigEndian.Uint32([]byte(k))), true
}

// rankings are a handle's rankings by order, built in the background when the index opens
// (startRankings), or at a walk's need if it comes first.
type rankings struct {
	// mu serialises the builds.
	mu sync.Mutex
	// bySort has a slot for each order without text (rankedSort), made with the handle, so that
	// pages read them without the lock.
	bySort map[search.Sort]*atomic.Pointer[ranking]
	// stop ends the background build when the handle retires.
	stop context.CancelFunc
}

// rankedSort is the ranking that gives s's order without text: as in sortOrder, any sort but
// oldest, downloads and a-z is newest there.
func rankedSort(s search.Sort) search.Sort {
	switch s {
	case search.SortOldest, search.SortDownloads, search.SortAZ:
		return s
	}
	return search.SortNewest
}

// startRankings builds every order's ranking in the background; retire and Close stop it.
func (h *handle) startRankings() {
	h.walks.bySort = map[search.Sort]*atomic.Pointer[ranking]{}
	for _, s := range search.Sorts {
		if rankedSort(s) == s {
			h.walks.bySort[s] = &atomic.Pointer[ranking]{}
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	h.walks.stop = stop
	h.inflight.Add(1)
	go func() {
		defer h.inflight.Done()
		for _, s := range search.Sorts {
			// A failure leaves pages on Bleve's sort and the walk that needs the ranking retrying it.
			if _, err := h.ranking(ctx, s); err != nil {
				return
			}
		}
	}()
}

// built is s's ranking without text if it is built, else nil.
func (h *handle) built(s search.Sort) *ranking { return h.walks.bySort[rankedSort(s)].Load() }

// ranking returns the index's documents in the order of s without text (sortOrder), building
// the ranking if it is not yet.
func (h *handle) ranking(ctx context.Context, s search.Sort) (*ranking, error) {
	s = rankedSort(s)
	if r := h.built(s); r != nil {
		return r, nil
	}
	h.walks.mu.Lock()
	defer h.walks.mu.Unlock()
	if r := h.built(s); r != nil {
		return r, nil
	}
	n, err := h.idx.DocCount()
	if err != nil {
		return nil, err
	}
	req := blevesearch.NewSearchRequestOptions(query.NewMatchAllQuery(), int(n), 0, false)
	req.SortByCustom(sortOrder(s))
	req.Score = blevesearch.ScoreNone
	res, err := h.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("rank the items by %s: %w", s, err)
	}
	r := &ranking{docs: make([]uint64, len(res.Hits))}
	var keys []byte
	for i, hit := range res.Hits {
		doc := hit.IndexInternalID.Value()
		r.docs[i] = doc
		for uint64(len(keys)) <= 4*doc {
			keys = append(keys, noRank...)
		}
		binary.BigEndian.PutUint32(keys[4*doc:], uint32(i))
	}
	r.keys = string(keys)
	h.walks.bySort[s].Store(r)
	return r, nil
}

// pageOrder is sortOrder(s) for a page without a cursor, read from the rankings: the
// same order, but Bleve's collector no longer reads every match's sort fields from the doc
// values and its id for the tie-break, which cost most of a search. Its sort values are places,
// not the fields' values, so it cannot make a cursor's position. It reports false while the
// ranking it needs is still being built.
func (h *handle) pageOrder(s search.Sort) (bsearch.SortOrder, bool) {
	if s == search.SortRelevance {
		// The score, then newest: sortOrder's tie-break (date descending, id) is newest's order.
		r := h.built(search.SortNewest)
		return bsearch.SortOrder{&bsearch.SortScore{Desc: true}, rankSort{r}}, r != nil
	}
	r := h.built(s)
	return bsearch.SortOrder{rankSort{r}}, r != nil
}

// rankSort sorts by place in a ranking, ascending, without reading the index.
type rankSort struct{ r *ranking }

var _ bsearch.SearchSort = rankSort{}

func (rankSort) UpdateVisitor(string, []byte) {}

func (s rankSort) Value(d *bsearch.DocumentMatch) string { return s.r.key(d.IndexInternalID.Value()) }

func (rankSort) DecodeValue(v string) string { return v }
func (rankSort) Descending() bool            { return false }
func (rankSort) RequiresDocID() bool         { return false }
func (rankSort) RequiresScoring() bool       { return false }
func (rankSort) RequiresFields() []string    { return nil }

// Reverse serves SearchBefore, which pages never use.
func (rankSort) Reverse() { panic("bleve: rankSort reversed") }

func (s rankSort) Copy() bsearch.SearchSort { return s }

// rankedPage is a page of q without text, from the item after the one cur names (a walk's) or
// past the first skip matches (a numbered page's): the page's hits (sorted by order, with their
// sort values) and the number of items q matches.
func (h *handle) rankedPage(ctx context.Context, q *search.Query, cur search.Cursor, skip int, bq query.Query, order bsearch.SortOrder) ([]*bsearch.DocumentMatch, int, error) {
	r, err := h.ranking(ctx, q.Sort)
	if err != nil {
		return nil, 0, err
	}
	var hits []*bsearch.DocumentMatch
	total := 0
	err = withReader(h.idx, func(ir index.IndexReader) error {
		start := 0
		if cur.After != nil {
			// CheckAfter made the last value a string: the last item's id.
			id := cur.After[len(cur.After)-1].(string)
			iid, err := ir.InternalID(id)
			if err != nil {
				return err
			}
			rank, ok := 0, len(iid) > 0
			if ok {
				rank, ok = r.rank(iid.Value())
			}
			if !ok {
				return fmt.Errorf("%w: no item %q in this index", search.ErrCursorInvalid, id)
			}
			start = rank + 1
		}
		var picked []uint64
		pick := func(doc uint64) {
			if len(picked) == q.PerPage {
				return
			}
			if skip > 0 {
				skip--
				return
			}
			picked = append(picked, doc)
		}
		if _, all := bq.(*query.MatchAllQuery); all {
			total = len(r.docs)
			start = min(start+skip, total)
			picked = r.docs[start:min(start+q.PerPage, total)]
		} else if h.facetFiltersOnly(q) {
			// The facet index tells each document's values and date without a search.
			ff, err := newFacetFilter(h.facets, q)
			if err != nil {
				return err
			}
			for i, doc := range r.docs {
				if _, failed := h.facets.fails(&ff, doc); failed == 0 {
					total++
					if i >= start {
						pick(doc)
					}
				}
			}
		} else {
			match := make([]bool, r.size())
			err := eachMatch(ctx, ir, h.idx.Mapping(), bq, func(doc uint64) {
				if doc < uint64(len(match)) {
					match[doc] = true
					total++
				}
			})
			if err != nil {
				return err
			}
			for _, doc := range r.docs[min(start, len(r.docs)):] {
				if len(picked) == q.PerPage {
					break
				}
				if match[doc] {
					pick(doc)
				}
			}
		}
		ids := make([]string, len(picked))
		for i, doc := range picked {
			id, err := ir.ExternalID(index.NewIndexInternalID(nil, doc))
			if err != nil {
				return err
			}
			ids[i] = id
		}
		if len(ids) == 0 {
			return nil
		}
		// The page's items with their stored fields and sort values, in the order.
		req := blevesearch.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		req.SortByCustom(order)
		req.Fields = []string{fieldStored}
		req.Score = blevesearch.ScoreNone
		res, err := h.idx.SearchInContext(ctx, req)
		if err != nil {
			return err
		}
		hits = res.Hits
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return hits, total, nil
}
