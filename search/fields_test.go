package search

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestClauseScoresAreExact: every clause scores a multiple of scoreStep small enough that sums of
// a long query's scores, with a TitleBonus, stay exact in float32, the precision of OpenSearch's
// scores; otherwise the two backends could order equal sums differently.
func TestClauseScoresAreExact(t *testing.T) {
	for _, c := range Clauses {
		units := c.Score / scoreStep
		if units != math.Trunc(units) || units <= 0 || units > 1<<8 {
			t.Errorf("%s (typo %v) scores %v, not a positive multiple of %v up to %v", c.Field, c.Typo, c.Score, scoreStep, 1<<8*scoreStep)
		}
		if float64(float32(c.Score)) != c.Score {
			t.Errorf("%s (typo %v) scores %v, which float32 does not hold", c.Field, c.Typo, c.Score)
		}
	}
	if len(Clauses) != 2*len(SearchedFields) {
		t.Errorf("%d clauses for %d fields, want each field exactly and within the typo allowance", len(Clauses), len(SearchedFields))
	}
}

// TestTitleBonus: shorter titles get more, always less than scoreStep, in titleBonusUnits.
func TestTitleBonus(t *testing.T) {
	last := scoreStep
	for n := 1; n <= 200; n++ {
		words := make([]string, n)
		for i := range words {
			words[i] = "w" + strconv.Itoa(i)
		}
		b := TitleBonus(strings.Join(words, ", "))
		if b < 0 || b >= scoreStep || b > last || b/titleBonusUnit != math.Trunc(b/titleBonusUnit) {
			t.Errorf("TitleBonus of %d words = %v, want a multiple of %v below %v and at most %v", n, b, titleBonusUnit, scoreStep, last)
		}
		last = b
	}
	if TitleBonus("Alaska") <= TitleBonus("La Alaska stafeto") || TitleBonus("") != 0 {
		t.Errorf("TitleBonus(Alaska) = %v, of a three-word title %v, of none %v", TitleBonus("Alaska"), TitleBonus("La Alaska stafeto"), TitleBonus(""))
	}
}
