package bleve

import (
	"testing"

	bsearch "github.com/blevesearch/bleve/v2/search"

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
