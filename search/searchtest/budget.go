package searchtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/curation"
)

// Ideographs are n CJK ideographs drawn from seed: one word the text analysis cuts into n-1
// bigrams, the search that passed every engine's clause limit.
func Ideographs(seed uint64, n int) string { return randomRunes(seed, n, 0x4E00, 0x9FFF) }

// Hiragana are n hiragana drawn from seed, a run as Ideographs is.
func Hiragana(seed uint64, n int) string { return randomRunes(seed, n, 0x3041, 0x3096) }

func randomRunes(seed uint64, n int, lo, hi rune) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for range n {
		b.WriteRune(lo + rune(r.IntN(int(hi-lo))))
	}
	return b.String()
}

// RunBudget checks that searches past search.MaxClauses undegraded answer, on a few items of the
// fixture and one whose title is a long CJK run and a word: the run, alone or with the word (or a
// piece of it with the word), finds its item, and a search of many
// words, each searched as many synonyms, answers.
func RunBudget(t *testing.T, open Open) {
	run := Ideographs(1, 190)
	items := append(Fixture(t)[:20], search.Item{ID: "cjk-run", Type: search.TypeDocument, Title: run + " lighthouse"})
	b := open(t, items)
	query := func(text string) search.Query {
		q := search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 10}
		q.Normalize()
		return q
	}
	t.Run("CJK run", func(t *testing.T) {
		for _, text := range []string{run, run + " lighthouse", "lighthouse " + run[:3*12]} {
			if res := search1(t, b, query(text)); res.Total != 1 || res.Items[0].ID != "cjk-run" {
				t.Errorf("%q finds %d items %v, want cjk-run", text, res.Total, ids(res.Items))
			}
		}
		search1(t, b, query(Ideographs(2, search.MaxTextRunes)))
	})
	t.Run("Synonyms", func(t *testing.T) {
		var lines, words []string
		for l := range 4 {
			var line []string
			for w := range curation.MaxAlternatives {
				line = append(line, fmt.Sprintf("syn%c%c", 'a'+l, 'a'+w))
			}
			lines = append(lines, strings.Join(line, ", "))
			words = append(words, line[:4]...)
		}
		r, err := curation.Parse(curation.Files{Synonyms: strings.Join(lines, "\n")})
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		heavy := query(strings.Join(words, " "))
		if p := under(heavy, r).Plan(); !p.Degraded() {
			t.Fatalf("%d words of %d synonyms cost %d clauses, want past %d", len(words), curation.MaxAlternatives, p.Wanted, search.MaxClauses)
		}
		searchUnder(t, b, heavy, r)
	})
}
