package bleve

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// TestCostlyQueryCost: a search of 28 random six-letter words, the most words q's 200 characters
// hold, costs the real catalogue's index little more than a pasted title does, since only
// search.MaxTypoWords of its words are given a typo allowance. It prints the figures.
func TestCostlyQueryCost(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the whole real catalogue")
	}
	searchtest.AnswersOnly(t)
	items, _ := searchtest.RealKnownItems(t)
	b := openFromItems(t, items)
	rng := rand.New(rand.NewPCG(43, 2))
	// median is the median time of texts' searches, each run once: a repeated word's typo
	// candidates are cached (fuzzyCache), a new one's are not.
	median := func(texts []string) time.Duration {
		var took []time.Duration
		for _, text := range texts {
			start := time.Now()
			if _, err := b.Search(t.Context(), search.NewRequest(search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 10})); err != nil {
				t.Fatalf("Search(%.40q…): %v", text, err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		return took[len(took)/2]
	}
	var random, titles []string
	for range 31 {
		words := make([]string, 28)
		for i := range words {
			w := make([]byte, 6)
			for j := range w {
				w[j] = byte('a' + rng.IntN(26))
			}
			words[i] = string(w)
		}
		random = append(random, strings.Join(words, " "))
	}
	for _, it := range items {
		if len(strings.Fields(it.Title)) >= 6 && len(titles) < 31 {
			titles = append(titles, it.Title)
		}
	}
	r, p := median(random), median(titles)
	t.Logf("median search: 28 random words %v, a pasted title %v", r, p)

	// Past a 50 ms deadline (the gateway's 504), the search stops within one typo expansion: six
	// words of a title, each turned into one the index lacks, all expanded.
	var late []time.Duration
	for _, title := range titles[:10] {
		words := strings.Fields(strings.ToLower(title))
		words = words[:min(len(words), search.MaxTypoWords)]
		for i, w := range words {
			words[i] = w[1:] + w[:1] + "x"
		}
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		start := time.Now()
		_, err := b.Search(ctx, search.NewRequest(search.Query{Text: strings.Join(words, " "), Sort: search.SortRelevance, Page: 1, PerPage: 10}))
		cancel()
		if err == nil {
			continue
		}
		late = append(late, time.Since(start)-50*time.Millisecond)
	}
	slices.Sort(late)
	t.Logf("searches past a 50 ms deadline ran on for %v", late)
	if len(late) > 0 && late[len(late)-1] > time.Second {
		t.Errorf("a search ran %v past its deadline", late[len(late)-1])
	}
}
