package spell

import (
	"context"
	"fmt"
	"slices"

	"mediagw/search"
	"mediagw/search/text"
)

// Vocabulary is what a correction knows of the indexed words (Speller).
type Vocabulary interface {
	// Neighbours maps each word of text (text.Words) to its neighbours: the words indexed in any
	// searched field (folded, as text.Fold folds them) within search.TypoAllowance edits of the folded
	// word as search.EditsWithin counts them, the word itself excluded, in byte order, the first
	// search.MaxNeighbours of them.
	Neighbours(ctx context.Context, text string) (map[string][]string, error)
	// Matches gives the search.Matches of some of words; a word it leaves out is not known to
	// match a few terms only.
	Matches(ctx context.Context, words []string) (search.Matches, error)
}

// Totaller counts a correction's alternatives: search.Backend's Totals.
type Totaller interface {
	Totals(ctx context.Context, q search.Query, alts []search.Alternative, m search.Matches) ([]int, error)
}

// Correct returns the did-you-mean correction of a search of q that found total items, when that
// is fewer than search.FewResults: q's text with one word changed to one of its neighbours in v, the
// change that finds the most items, more than total; or "" when no such change exists. Ties go to
// the earlier word, then to the neighbour first in byte order. The alternatives, at most
// search.MaxAlternatives of them, are counted in one call of b, with the matches v knows of their words;
// none when each keeps a word that matches no indexed term.
func Correct(ctx context.Context, b Totaller, q search.Query, total int, v Vocabulary) (string, error) {
	if q.Text == "" || total >= search.FewResults {
		return "", nil
	}
	near, err := v.Neighbours(ctx, q.Text)
	if err != nil {
		return "", fmt.Errorf("correction of %q: %w", q.Text, err)
	}
	words := text.Words(q.Text)
	var alts []search.Alternative
	for _, w := range words {
		for _, n := range near[w] {
			if len(alts) == search.MaxAlternatives {
				break
			}
			alts = append(alts, search.Alternative{Word: w, With: n})
		}
	}
	if len(alts) == 0 {
		return "", nil
	}
	counted := slices.Clone(words)
	for _, a := range alts {
		counted = append(counted, a.With)
	}
	m, err := v.Matches(ctx, counted)
	if err != nil {
		return "", fmt.Errorf("correction of %q: %w", q.Text, err)
	}
	// An alternative that keeps a word matching no indexed term finds nothing, so it is not
	// counted; with two such words (a search box's keystrokes of gibberish) nothing is asked.
	alts = slices.DeleteFunc(alts, func(a search.Alternative) bool {
		return slices.ContainsFunc(words, func(w string) bool {
			matched, known := m[w]
			return w != a.Word && known && len(matched) == 0
		})
	})
	if len(alts) == 0 {
		return "", nil
	}
	totals, err := b.Totals(ctx, q, alts, m)
	if err != nil {
		return "", fmt.Errorf("correction of %q: %w", q.Text, err)
	}
	if len(totals) != len(alts) {
		return "", fmt.Errorf("correction of %q: %d totals for %d alternatives", q.Text, len(totals), len(alts))
	}
	best, bestTotal := -1, total
	for i, n := range totals {
		if n > bestTotal {
			best, bestTotal = i, n
		}
	}
	if best < 0 {
		return "", nil
	}
	return alts[best].Text(q.Text), nil
}
