package bleve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"mediagw/search"
	"mediagw/search/searchtest"
	"mediagw/search/text"
)

// TestPagesSortedByRankings holds numbered pages, which the rankings sort (pageOrder,
// rankedPage), to Bleve's sort on the fields themselves (sortOrder): the same items in the same
// order, and the same totals.
func TestPagesSortedByRankings(t *testing.T) {
	items := searchtest.Generated(t, 2000, 3)
	be, err := NewFromItems(context.Background(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close() })
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
	filters := []search.Query{{}, {Type: search.ListOf(items[0].Type)}, {Language: search.ListOf(items[5].Language), From: "1990-01-01"}}
	sorts := []search.Sort{search.SortRelevance, search.SortNewest, search.SortOldest, search.SortDownloads, search.SortAZ}
	for _, text := range texts {
		for _, f := range filters {
			for _, s := range sorts {
				for _, page := range []int{1, 3} {
					q := f
					q.Text, q.Sort, q.Page, q.PerPage = text, s, page, 7
					q.Normalize() // as the query codec does
					got, err := be.Search(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					wantIDs, wantTotal := sortedByFields(t, be, q)
					if ids := itemIDs(got.Items); !slices.Equal(ids, wantIDs) || got.Total != wantTotal {
						t.Errorf("%+v: got %v of %d, want %v of %d", q, ids, got.Total, wantIDs, wantTotal)
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
	bq, _, err := buildQuery(h.idx.Mapping(), q, h.facets.bonus, h.fuzzy)
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
