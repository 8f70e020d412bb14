package bleve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
	"mediagw/search/searchtest"
	"mediagw/search/text"
)

// TestPagesSortedByRankings holds numbered pages, which the rankings sort (pageOrder,
// rankedPage) and the facet index filters (searchFaceted's one pass), to Bleve's sort on the
// fields themselves (sortOrder) of the query as built: the same items in the same order, and
// the same totals, with facets or without; each facet value counts what its search finds.
func TestPagesSortedByRankings(t *testing.T) {
	items := searchtest.Generated(t, 2000, 3)
	be, err := NewFromItems(context.Background(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close() })
	pagesAgree(t, be, items)
}

// pagesAgree is TestPagesSortedByRankings on be, which holds items.
func pagesAgree(t *testing.T, be *Backend, items []search.Item) {
	t.Helper()
	waitRankings(t, be)
	var long []string
	for _, it := range items[:200] {
		for _, w := range strings.Fields(strings.ToLower(it.Title)) {
			if len(w) >= 6 && !slices.Contains(long, w) {
				long = append(long, w)
			}
		}
	}
	if len(long) < 3 {
		t.Fatalf("only %d long title words", len(long))
	}
	typo := []byte(long[2])
	typo[2], typo[3] = typo[3], typo[2]
	texts := []string{"", long[0], long[0] + " " + long[1], string(typo), strings.Fields(items[7].Title)[0]}
	filters := []search.Query{
		{}, {Type: search.ListOf(items[0].Type)}, {Language: search.ListOf(items[5].Language), From: "1990-01-01"},
		{Category: search.List(items[1].Category + "," + items[2].Category), To: "2015-06-30"},
		{License: "by,unknown,in-copyright", Format: search.ListOf(items[3].Format)},
		{Type: search.ListOf(items[4].Type), Author: items[4].Author},
	}
	sorts := []search.Sort{search.SortRelevance, search.SortNewest, search.SortOldest, search.SortDownloads, search.SortAZ}
	four := search.FacetSet(search.FacetType) | search.FacetSet(search.FacetCategory) | search.FacetSet(search.FacetLanguage) | search.FacetSet(search.FacetYear)
	for _, text := range texts {
		for _, f := range filters {
			for _, s := range sorts {
				for _, page := range []int{1, 3} {
					for _, facets := range []search.FacetSet{0, four} {
						q := f
						q.Text, q.Sort, q.Page, q.PerPage, q.Facets = text, s, page, 7, facets
						q.Normalize() // as the query codec does
						got, err := be.Search(context.Background(), search.NewRequest(q))
						if err != nil {
							t.Fatal(err)
						}
						wantIDs, wantTotal := sortedByFields(t, be, q)
						if ids := itemIDs(got.Items); !slices.Equal(ids, wantIDs) || got.Total != wantTotal {
							t.Errorf("%+v: got %v of %d, want %v of %d", q, ids, got.Total, wantIDs, wantTotal)
						}
						if facets == 0 || page != 1 || s != search.SortNewest {
							continue
						}
						// Each value counts what the search filtered to it instead finds.
						for facet, values := range got.Facets {
							for _, v := range values {
								if _, n := sortedByFields(t, be, q.With(facet, v.Value)); n != v.Count {
									t.Errorf("%+v: facet %s value %q counts %d, its search finds %d", q, facet, v.Value, v.Count, n)
								}
							}
						}
					}
				}
			}
		}
	}
}

// sortedByFields is q's page and total as Bleve sorts q's matches by sortOrder.
func sortedByFields(t *testing.T, be *Backend, q search.Query) ([]string, int) {
	t.Helper()
	h := be.cur
	bq, _, err := buildQuery(h.idx.Mapping(), search.NewRequest(q), h.facets.bonus, h.fuzzy)
	if err != nil {
		t.Fatal(err)
	}
	req := blevesearch.NewSearchRequestOptions(bq, q.PerPage, (q.Page-1)*q.PerPage, false)
	req.SortByCustom(sortOrder(q.Sort))
	res, err := h.idx.SearchInContext(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, hit := range res.Hits {
		ids = append(ids, hit.ID)
	}
	return ids, int(res.Total)
}

func itemIDs(items []search.Item) []string {
	ids := []string{}
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

// waitRankings waits for the rankings that the backend builds in the background.
func waitRankings(t testing.TB, be *Backend) {
	t.Helper()
	for _, s := range search.Sorts {
		if _, err := be.cur.ranking(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFuzzyQuery holds fuzzyQuery, with its candidates cached or not, to query.FuzzyQuery: the
// same matches with the same scores.
func TestFuzzyQuery(t *testing.T) {
	items := searchtest.Generated(t, 2000, 4)
	be, err := NewFromItems(context.Background(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close() })
	cache := newFuzzyCache()
	matched := 0
	for _, it := range items[:40] {
		for _, w := range strings.Fields(strings.ToLower(it.Title)) {
			terms := text.Terms(w)
			if len(terms) != 1 || search.TypoAllowance(terms[0]) == 0 {
				continue
			}
			typo := []rune(terms[0])
			typo[1], typo[2] = typo[2], typo[1]
			for _, term := range []string{terms[0], string(typo)} {
				for _, field := range []string{fieldTitle, fieldTags} {
					n := search.TypoAllowance(term)
					fq := query.NewFuzzyQuery(term)
					fq.SetField(field)
					fq.SetFuzziness(n)
					want := scoredMatches(t, be, context.Background(), fq)
					mine := fuzzyQuery{fuzzyKey: fuzzyKey{term: term, field: field, fuzziness: n}, cache: cache}
					for range 2 { // the first run fills the cache, the second reads it
						if got := scoredMatches(t, be, context.Background(), mine); !slices.Equal(got, want) {
							t.Errorf("%s:%s~%d: got %v, want %v", field, term, n, got, want)
						}
					}
					matched += len(want)
				}
			}
		}
	}
	if matched == 0 {
		t.Fatal("no word matched")
	}
}

// scoredMatches are the ids and scores of every match of q, by id.
func scoredMatches(t *testing.T, be *Backend, ctx context.Context, q query.Query) []string {
	t.Helper()
	req := blevesearch.NewSearchRequestOptions(q, 10000, 0, false)
	req.SortBy([]string{"_id"})
	res, err := be.cur.idx.SearchInContext(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, hit := range res.Hits {
		out = append(out, fmt.Sprintf("%s:%v", hit.ID, hit.Score))
	}
	return out
}

// TestMixAgreesWithBleve holds the mix's searches on the built index MEDIA_BENCH_INDEX names, of
// a million items and several segments, to Bleve's own (mixAgrees). Without the index it skips.
//
//	MEDIA_BENCH_INDEX=$PWD/var/bench/index-1000000-1 go test -run MixAgrees ./search/bleve/
func TestMixAgreesWithBleve(t *testing.T) {
	dir := os.Getenv("MEDIA_BENCH_INDEX")
	if dir == "" {
		t.Skip("MEDIA_BENCH_INDEX names no built index")
	}
	be, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close() })
	mixAgrees(t, be, 300)
}

// TestSegmentsAgreeWithBleve holds the sets, which read each segment apart, to Bleve on an index
// of several segments, as loads of many items leave one: the mix's searches (mixAgrees) and the
// rankings' pages (pagesAgree). Generated items build faster than the real catalogue; 4,500 of
// them make segments of unequal sizes.
func TestSegmentsAgreeWithBleve(t *testing.T) {
	items := searchtest.Generated(t, 4500, 5)
	be := segmented(t, items)
	var segs int
	if err := withReader(be.cur.idx, func(ir index.IndexReader) error {
		s, err := segmentsOf(ir)
		segs = len(s)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if segs < 3 {
		t.Fatalf("the index holds %d segments, the test needs 3 or more", segs)
	}
	mixAgrees(t, be, 300)
	pagesAgree(t, be, items)
}

// segmented serves items from an index that keeps each batch fill writes as a segment of its own.
func segmented(t *testing.T, items []search.Item) *Backend {
	t.Helper()
	dir, name := t.TempDir(), indexPrefix+"segmented"
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	// No segment is small enough for the merger to pick.
	idx, err := blevesearch.NewUsing(filepath.Join(dir, name), m, scorch.Name, scorch.Name,
		map[string]interface{}{"scorchMergePlanOptions": map[string]any{"MaxSegmentSize": 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fill(t.Context(), idx, search.Values(items))
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = switchCurrent(dir, name)
	}
	if err != nil {
		t.Fatal(err)
	}
	be, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close() })
	return be
}

// mixAgrees holds n of the mix's searches (BenchmarkMix's, with the four facets or without) on be
// to Bleve's sort on the fields of the query as built: the same page and total, and facet counts
// equal to Bleve's count of each facet's own search. Most must be answered from the sets, or
// Bleve would only be held to itself.
func mixAgrees(t *testing.T, be *Backend, n int) {
	t.Helper()
	waitRankings(t, be)
	four := search.FacetSet(search.FacetType) | search.FacetSet(search.FacetCategory) | search.FacetSet(search.FacetLanguage) | search.FacetSet(search.FacetYear)
	bySets := 0
	for i, q := range mixQueries(t, be.cur, rand.New(rand.NewPCG(3, 4)), n) {
		q.Normalize()
		if i%2 == 1 {
			q.Facets = four
		}
		got, err := be.Search(t.Context(), search.NewRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		if answeredBySets(t, be, q) {
			bySets++
		}
		wantIDs, wantTotal := sortedByFields(t, be, q)
		if ids := itemIDs(got.Items); !slices.Equal(ids, wantIDs) || got.Total != wantTotal {
			t.Errorf("%+v: got %v of %d, want %v of %d", q, ids, got.Total, wantIDs, wantTotal)
		}
		if i%10 != 1 {
			continue
		}
		for facet, values := range got.Facets {
			for _, v := range values[:min(3, len(values))] {
				if _, n := sortedByFields(t, be, q.With(facet, v.Value)); n != v.Count {
					t.Errorf("%+v: facet %s value %q counts %d, its search finds %d", q, facet, v.Value, v.Count, n)
				}
			}
		}
	}
	if bySets < n/2 {
		t.Errorf("the sets answered %d of %d searches", bySets, n)
	}
}

// answeredBySets reports whether setPage, not Bleve, answers q on be.
func answeredBySets(t *testing.T, be *Backend, q search.Query) bool {
	t.Helper()
	r := search.NewRequest(q)
	_, hasText, err := buildQuery(be.cur.idx.Mapping(), r, be.cur.facets.bonus, be.cur.fuzzy)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = be.cur.setPage(t.Context(), r, hasText, (q.Page-1)*q.PerPage)
	if err != nil && !errors.Is(err, errNoSets) {
		t.Fatal(err)
	}
	return err == nil
}
