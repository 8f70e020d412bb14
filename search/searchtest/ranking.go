package searchtest

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"mediagw/search"
)

// KnownItem is a search a user makes for one item they know: Text should find the item ID.
type KnownItem struct {
	Text string
	ID   string
}

// knownItemWords caps the title words a known-item query types.
const knownItemWords = 6

// KnownItems makes the known-item queries of a catalogue: every tenth item's title (its first
// words), and for every tenth item but offset by five the same with one letter of the longest
// word changed, the typo a user makes. Items whose title has no word are skipped.
func KnownItems(items []search.Item) []KnownItem {
	var out []KnownItem
	for i, it := range items {
		if i%10 != 0 && i%10 != 5 {
			continue
		}
		words := search.Words(it.Title)
		if len(words) == 0 {
			continue
		}
		words = words[:min(len(words), knownItemWords)]
		if i%10 == 5 {
			longest := 0
			for j, w := range words {
				if len([]rune(w)) > len([]rune(words[longest])) {
					longest = j
				}
			}
			typo, ok := misspell(words[longest])
			if !ok {
				continue
			}
			words = slices.Clone(words)
			words[longest] = typo
		}
		out = append(out, KnownItem{Text: strings.Join(words, " "), ID: it.ID})
	}
	return out
}

// misspell changes the middle letter of a word of at least six letters to the next letter of its
// alphabet: one substitution, an edit in every engine's count.
func misspell(w string) (string, bool) {
	rs := []rune(w)
	if len(rs) < 6 {
		return "", false
	}
	m := len(rs) / 2
	r := rs[m]
	switch {
	case r == 'z':
		rs[m] = 'a'
	case r == 'Z':
		rs[m] = 'A'
	case unicode.IsLetter(r) && unicode.IsLetter(r+1) && unicode.SimpleFold(r+1) != r:
		rs[m] = r + 1
	default:
		return "", false
	}
	return string(rs), true
}

// Relevance is how well a backend finds known items: the share found on the first page of ten
// (success@10) and the mean reciprocal rank within it (MRR).
type Relevance struct {
	Success10, MRR float64
}

// rankingPage is the first page the comparison reads: the ten results a user sees.
const rankingPage = 10

// RunRankingAgreement loads the real catalogue (the lines the reader accepts) into two backends
// and checks that they rank alike on the known-item queries (KnownItems): the same first result
// for every query, the same first ten for at least 95%. It logs both backends' Relevance. It
// skips when the real catalogue is not there.
func RunRankingAgreement(t *testing.T, openA, openB Open) {
	_, items, _ := realCatalogue(t)
	a, b := openA(t, items), openB(t, items)
	queries := KnownItems(items)
	var sameFirst, sameTen int
	var relA, relB Relevance
	for _, k := range queries {
		q := search.Query{Text: k.Text, Sort: search.SortRelevance, Page: 1, PerPage: rankingPage}
		gotA, gotB := ids(search1(t, a, q).Items), ids(search1(t, b, q).Items)
		relA.add(gotA, k.ID)
		relB.add(gotB, k.ID)
		if slices.Equal(gotA, gotB) {
			sameTen++
		}
		if len(gotA) > 0 && len(gotB) > 0 && gotA[0] == gotB[0] || len(gotA) == 0 && len(gotB) == 0 {
			sameFirst++
			continue
		}
		t.Errorf("Search(%q) for %s: first results differ:\n  A %v\n  B %v", k.Text, k.ID, gotA, gotB)
	}
	n := float64(len(queries))
	relA.Success10, relA.MRR = relA.Success10/n, relA.MRR/n
	relB.Success10, relB.MRR = relB.Success10/n, relB.MRR/n
	t.Logf("%d known-item queries on %d items: same first result %d (%.1f%%), same first ten %d (%.1f%%)",
		len(queries), len(items), sameFirst, 100*float64(sameFirst)/n, sameTen, 100*float64(sameTen)/n)
	t.Logf("A: success@10 %.3f, MRR %.3f; B: success@10 %.3f, MRR %.3f", relA.Success10, relA.MRR, relB.Success10, relB.MRR)
	if float64(sameTen) < 0.95*n {
		t.Errorf("the same first ten for %d of %d queries (%.1f%%), want at least 95%%", sameTen, len(queries), 100*float64(sameTen)/n)
	}
}

// add counts one query's page, summing (not yet averaging) success and reciprocal rank.
func (r *Relevance) add(page []string, want string) {
	if i := slices.Index(page, want); i >= 0 {
		r.Success10++
		r.MRR += 1 / float64(i+1)
	}
}
