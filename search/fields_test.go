package search

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestClauseScoresAreExact: every clause scores a multiple of scoreStep small enough that sums of
// a long query's scores, with a Bonus, stay exact in float32, the precision of OpenSearch's
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
	// The most a query scores: MaxTextRunes runes hold at most (MaxTextRunes+1)/2 words.
	top := float64((MaxTextRunes+1)/2) * slices.MaxFunc(Clauses, func(a, b Clause) int { return cmp.Compare(a.Score, b.Score) }).Score
	for _, b := range []float64{titleBonusUnit, Bonus(Item{Title: "A", Downloads: math.MaxInt64})} {
		if s := top + b; float64(float32(s)) != s {
			t.Errorf("a score of %v plus a bonus of %v is %v, which float32 does not hold", top, b, s)
		}
	}
	if len(Clauses) != 2*len(SearchedFields)+len(StemFields) {
		t.Errorf("%d clauses for %d fields and %d stem fields, want each field exactly and within the typo allowance, and each stem field", len(Clauses), len(SearchedFields), len(StemFields))
	}
}

// TestStemsCountLess: a word as typed counts more than another form of it, and another form at
// most what a typo counts in every field whose stems it is found among.
func TestStemsCountLess(t *testing.T) {
	weights := map[Field]float64{}
	for _, f := range SearchedFields {
		weights[f.Field] = f.Weight
	}
	for _, sf := range StemFields {
		for _, f := range sf.Of {
			if w, ok := weights[f]; !ok || sf.Weight > w*TypoShare {
				t.Errorf("%s weighs %v, more than a typo in %s (%v of %v)", sf.Field, sf.Weight, f, TypoShare, w)
			}
		}
	}
}

func TestWordStems(t *testing.T) {
	tests := []struct {
		word  string
		terms []string
		langs []string
		want  []string
	}{
		{"Welten", []string{"welten"}, []string{"de"}, []string{"de:welt"}},
		{"Welten", []string{"welten"}, []string{"de", "en"}, []string{"de:welt", "en:welten"}},
		// A synonym's terms are stemmed, not the word it replaces.
		{"films", []string{"movies"}, []string{"en"}, []string{"en:movi"}},
		{"羅生門", []string{"羅生", "生門"}, nil, nil},
	}
	for _, tt := range tests {
		if got := WordStems(tt.word, tt.terms, tt.langs); !slices.Equal(got, tt.want) {
			t.Errorf("WordStems(%q, %q, %q) = %q, want %q", tt.word, tt.terms, tt.langs, got, tt.want)
		}
	}
	if got := WordStems("Welten", []string{"welten"}, nil); !slices.Contains(got, "de:welt") || !slices.Contains(got, "en:welten") {
		t.Errorf("WordStems(Welten) without a language = %q, want every stemmer's", got)
	}
}

// TestTitleBonus: shorter titles get more, always less than one level of popularity, in
// titleBonusUnits.
func TestTitleBonus(t *testing.T) {
	last := popularityUnit
	for n := 1; n <= 200; n++ {
		words := make([]string, n)
		for i := range words {
			words[i] = "w" + strconv.Itoa(i)
		}
		b := TitleBonus(strings.Join(words, ", "))
		if b < 0 || b >= popularityUnit || b > last || b/titleBonusUnit != math.Trunc(b/titleBonusUnit) {
			t.Errorf("TitleBonus of %d words = %v, want a multiple of %v below %v and at most %v", n, b, titleBonusUnit, popularityUnit, last)
		}
		last = b
	}
	if TitleBonus("Alaska") <= TitleBonus("La Alaska stafeto") || TitleBonus("") != 0 {
		t.Errorf("TitleBonus(Alaska) = %v, of a three-word title %v, of none %v", TitleBonus("Alaska"), TitleBonus("La Alaska stafeto"), TitleBonus(""))
	}
}

func TestPopularity(t *testing.T) {
	for _, tt := range []struct {
		downloads int64
		want      int
	}{
		{-1, 0}, {0, 0}, {1, 1}, {2, 1}, {3, 2}, {6, 2}, {7, 3},
		{1233, 10}, {11105, 13}, {15680, 13}, {16383, 14},
		{1<<31 - 2, 30}, {1<<31 - 1, 31}, {math.MaxInt64, maxPopularity},
	} {
		if got := Popularity(tt.downloads); got != tt.want {
			t.Errorf("Popularity(%d) = %d, want %d", tt.downloads, got, tt.want)
		}
	}
}

// TestBonus: the more used item gets more whatever its title's length, items used alike are
// ordered by their titles' length, and no bonus reaches scoreStep, so none outweighs a better
// match; every bonus is exact in float32, as the engines store it.
func TestBonus(t *testing.T) {
	long := "La Alaska stafeto kaj Kaptitoj de la glacirokoj"
	tests := []struct {
		more, less Item
	}{
		{Item{Title: long, Downloads: 3}, Item{Title: "Alaska", Downloads: 1}},
		{Item{Title: long, Downloads: 15680}, Item{Title: "Alaska", Downloads: 1233}},
		{Item{Title: "Alaska", Downloads: 3}, Item{Title: long, Downloads: 2}},
		{Item{Title: "Alaska"}, Item{Title: long}},
		{Item{Title: "Alaska", Downloads: 1}, Item{Title: "Alaska"}},
	}
	for _, tt := range tests {
		if Bonus(tt.more) <= Bonus(tt.less) {
			t.Errorf("Bonus(%q, %d) = %v, want more than Bonus(%q, %d) = %v",
				tt.more.Title, tt.more.Downloads, Bonus(tt.more), tt.less.Title, tt.less.Downloads, Bonus(tt.less))
		}
	}
	for _, it := range []Item{{Title: "A", Downloads: math.MaxInt64}, {Title: long}, {}} {
		b := Bonus(it)
		if b < 0 || b >= scoreStep || float64(float32(b)) != b || b/titleBonusUnit != math.Trunc(b/titleBonusUnit) {
			t.Errorf("Bonus(%q, %d) = %v, want a multiple of %v below %v, exact in float32", it.Title, it.Downloads, b, titleBonusUnit, scoreStep)
		}
	}
}
