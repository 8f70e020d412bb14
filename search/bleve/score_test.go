package bleve

import (
	"fmt"
	"slices"
	"testing"

	bsearch "github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
)

// TestBestClause: whichever clauses of a word match, bestClause reads the best one's score back
// from the score Bleve's disjunction gives (the sum of their codes times the share matched), for
// every number of clauses a word's disjunction may hold.
func TestBestClause(t *testing.T) {
	n := len(search.Clauses)
	for total := 1; total <= n; total++ {
		for set := 1; set < 1<<total; set++ {
			var sum, best float64
			count := 0
			for i := range total {
				if set&(1<<i) != 0 {
					s := search.Clauses[i].Score
					sum += clauseCode(s)
					best = max(best, s)
					count++
				}
			}
			d := &bsearch.DocumentMatch{Score: sum * (float64(count) / float64(total))}
			if got := bestClause(d); got != best {
				t.Fatalf("clauses %b of %d: bestClause = %v, want %v", set, total, got, best)
			}
		}
	}
}

// TestFuzzyCandidatesAreEditsWithin: a typo clause's candidates are exactly the indexed terms
// within the word's typo allowance as search.EditsWithin counts it (two adjacent letters swapped
// are one edit, as in the engines' fuzzy queries), so the embedded index matches what they match.
func TestFuzzyCandidatesAreEditsWithin(t *testing.T) {
	vocabulary := []string{"bliss", "bless", "blis", "ilss", "sbli", "bilss", "abc", "ca", "acb", "bac", "cab",
		"chrysanthemum", "chrysnthemmu", "chrysanthmeum", "cuore", "cuoer", "uocre", "heaven", "haeven", "havene", "ehaevn"}
	var items []search.Item
	for i, w := range vocabulary {
		items = append(items, search.Item{ID: fmt.Sprintf("w%d", i), Type: search.TypePhoto, Title: w})
	}
	b, err := NewFromItems(t.Context(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	h, err := b.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer h.release()
	err = withReader(h.idx, func(r index.IndexReader) error {
		for _, term := range vocabulary {
			n := search.TypoAllowance(term)
			if n == 0 {
				continue
			}
			q := fuzzyQuery{fuzzyKey: fuzzyKey{term: term, field: textFields[search.FieldTitle], fuzziness: n}}
			got, err := q.candidates(t.Context(), r.(index.IndexReaderFuzzy))
			if err != nil {
				return err
			}
			var want []string
			for _, v := range vocabulary {
				if search.EditsWithin(term, v, n) {
					want = append(want, v)
				}
			}
			slices.Sort(want)
			if !slices.Equal(got.terms, want) {
				t.Errorf("candidates of %q within %d: %v, want %v", term, n, got.terms, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
