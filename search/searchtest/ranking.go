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

// rankingFloor is the agreement the backends reached on the real catalogue, less the spread
// seen between runs (97.3-97.5% same first result, 90.2-90.6% same first ten).
var rankingFloor = struct{ first, ten float64 }{0.96, 0.89}

// rankingPage is the first page the comparison reads: the ten results a user sees.
const rankingPage = 10

// RunRankingAgreement loads the real catalogue (the lines the reader accepts) into two backends
// and compares their rankings on the known-item queries (KnownItems), logging the queries whose
// first results differ and both backends' Relevance. Issue 11 aims at the same first result for
// every query and the same first ten for 95%; the backends do not reach it yet (about 97.5% and
// 90.5%), so the test holds the agreement reached (rankingFloor) against regressions and reports
// the gap. It skips when the real catalogue is not there.
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
		t.Logf("Search(%q) for %s: first results differ:\n  A %v\n  B %v", k.Text, k.ID, gotA, gotB)
	}
	n := float64(len(queries))
	relA.Success10, relA.MRR = relA.Success10/n, relA.MRR/n
	relB.Success10, relB.MRR = relB.Success10/n, relB.MRR/n
	t.Logf("%d known-item queries on %d items: same first result %d (%.1f%%), same first ten %d (%.1f%%)",
		len(queries), len(items), sameFirst, 100*float64(sameFirst)/n, sameTen, 100*float64(sameTen)/n)
	t.Logf("A: success@10 %.3f, MRR %.3f; B: success@10 %.3f, MRR %.3f", relA.Success10, relA.MRR, relB.Success10, relB.MRR)
	if float64(sameFirst) < rankingFloor.first*n || float64(sameTen) < rankingFloor.ten*n {
		t.Errorf("the same first result for %.1f%% and the same first ten for %.1f%% of the queries, below the agreement reached (%.0f%%, %.0f%%)",
			100*float64(sameFirst)/n, 100*float64(sameTen)/n, 100*rankingFloor.first, 100*rankingFloor.ten)
	}
	if sameFirst < len(queries) || float64(sameTen) < 0.95*n {
		t.Logf("short of issue 11's aim (every first result, 95%% of first tens)")
	}
}

// add counts one query's page, summing (not yet averaging) success and reciprocal rank.
func (r *Relevance) add(page []string, want string) {
	if i := slices.Index(page, want); i >= 0 {
		r.Success10++
		r.MRR += 1 / float64(i+1)
	}
}
