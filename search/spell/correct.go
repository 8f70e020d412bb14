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
	// Neighbours maps each of words (text.Words) to its neighbours: the words indexed in any
	// searched field (folded, as text.Fold folds them) within search.TypoAllowance edits of the folded
	// word as search.EditsWithin counts them, the word itself excluded, in byte order, the first
	// search.MaxNeighbours of them.
	Neighbours(ctx context.Context, words []string) (map[string][]string, error)
	// Matches gives the search.Matches of some of words; a word it leaves out is not known to
	// match a few terms only.
	Matches(ctx context.Context, words []string) (search.Matches, error)
	// Items maps each of words that is one term (text.Terms) to the number of items holding that
	// term in a searched field, 0 when none does; a word of several terms is left out.
	Items(ctx context.Context, words []string) (map[string]int, error)
}

// Totaller counts a correction's alternatives: search.Backend's Totals.
type Totaller interface {
	Totals(ctx context.Context, r *search.Request, alts []search.Alternative, m search.Matches) ([]int, error)
}

// DefaultMargin is how many times more items a neighbour must be held by than a word the index
// holds for the word to look misspelt: docs/relevance.md, "The did-you-mean", has the figures.
const DefaultMargin = 1000

// Correct returns the did-you-mean correction of the search r: its text with one word that looks
// misspelt changed to one of its neighbours in v wherever it stands, all else as it was
// (search.Alternative.Text), the change of fewest edits that finds items, of
// those the one that finds the most; or "" when no such change exists. A word looks misspelt, and its neighbour is a candidate,
// when no item holds the word and some hold the neighbour, or when the neighbour is held by at
// least margin times as many items as the word: a correctly spelt word is left alone however little
// it finds. Ties go to the earlier word, then to the neighbour first in byte order. The
// alternatives, at most search.MaxAlternatives of them, are counted in one call of b, with the
// matches v knows of their words; none when no word looks misspelt, or when each alternative keeps
// a word that matches no indexed term, or when r is past search.MaxClauses (search.Request.Plan).
func Correct(ctx context.Context, b Totaller, r *search.Request, v Vocabulary, margin int) (string, error) {
	q := &r.Query
	words := correctable(r)
	if len(words) == 0 || r.Plan().Degraded() {
		// A search cut to fit the engine's clause limit would not fit beside its alternatives' counts.
		return "", nil
	}
	near, err := v.Neighbours(ctx, words)
	if err != nil {
		return "", fmt.Errorf("correction of %q: %w", q.Text, err)
	}
	counted := slices.Clone(words)
	for _, w := range words {
		counted = append(counted, near[w]...)
	}
	items, err := v.Items(ctx, counted)
	if err != nil {
		return "", fmt.Errorf("correction of %q: %w", q.Text, err)
	}
	var alts []search.Alternative
	for _, w := range words {
		held, ok := items[w]
		if !ok {
			continue
		}
		for _, n := range near[w] {
			if len(alts) == search.MaxAlternatives {
				break
			}
			if m := items[n]; m > 0 && m >= margin*held {
				alts = append(alts, search.Alternative{Word: w, With: n})
			}
		}
	}
	if len(alts) == 0 {
		return "", nil
	}
	counted = slices.Clone(words)
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
		return slices.ContainsFunc(r.Words(), func(w string) bool {
			matched, known := m[w]
			return w != a.Word && known && len(matched) == 0
		})
	})
	if len(alts) == 0 {
		return "", nil
	}
	totals, err := b.Totals(ctx, r, alts, m)
	if err != nil {
		return "", fmt.Errorf("correction of %q: %w", q.Text, err)
	}
	if len(totals) != len(alts) {
		return "", fmt.Errorf("correction of %q: %d totals for %d alternatives", q.Text, len(totals), len(alts))
	}
	best, bestEdits, bestTotal := -1, 0, 0
	for i, n := range totals {
		if n == 0 {
			continue
		}
		edits := 2
		if search.EditsWithin(text.Fold(alts[i].Word), alts[i].With, 1) {
			edits = 1
		}
		if best < 0 || edits < bestEdits || edits == bestEdits && n > bestTotal {
			best, bestEdits, bestTotal = i, edits, n
		}
	}
	if best < 0 {
		return "", nil
	}
	return alts[best].Text(q.Text), nil
}

// correctable are the distinct words of r's text that a correction may change, in order: its free
// words only, as Query.Text holds them; words in quotes or excluded (Query.Phrases, Query.Exclude)
// are never changed, nor one the operators' synonyms name (r.Curation): it finds what they said
// it means.
func correctable(r *search.Request) []string {
	words := r.Words()
	out := make([]string, 0, len(words))
	for _, w := range words {
		if r.Curation != nil && r.Curation.Alternatives(w) != nil {
			continue
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
