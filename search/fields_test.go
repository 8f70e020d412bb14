package search

import (
	"math"
	"testing"
)

// TestClauseScoresAreExact: every clause scores a multiple of scoreUnit small enough that sums of
// a long query's scores stay exact in float32, the precision of OpenSearch's scores; otherwise
// the two backends could order equal sums differently.
func TestClauseScoresAreExact(t *testing.T) {
	for _, c := range Clauses {
		units := c.Score / scoreUnit
		if units != math.Trunc(units) || units <= 0 || units > 1<<12 {
			t.Errorf("%s (typo %v) scores %v, not a positive multiple of %v below %v", c.Field, c.Typo, c.Score, scoreUnit, 1<<12*scoreUnit)
		}
		if float64(float32(c.Score)) != c.Score {
			t.Errorf("%s (typo %v) scores %v, which float32 does not hold", c.Field, c.Typo, c.Score)
		}
	}
	if len(Clauses) != 2*len(SearchedFields) {
		t.Errorf("%d clauses for %d fields, want each field exactly and within the typo allowance", len(Clauses), len(SearchedFields))
	}
}
