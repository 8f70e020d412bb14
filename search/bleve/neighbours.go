package bleve

import (
	"context"
	"errors"
	"fmt"
	"slices"

	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
	"mediagw/search/text"
)

// neighbours is search.Result.Neighbours of the words of s, from the searched fields' fuzzy term
// dictionaries. Their automata count a transposition as one edit, like search.EditsWithin;
// EditsWithin still filters, as it is the contract's definition.
func (h *handle) neighbours(ctx context.Context, s string) (map[string][]string, error) {
	out := map[string][]string{}
	err := withReader(h.idx, func(r index.IndexReader) error {
		fuzzy, ok := r.(index.IndexReaderFuzzy)
		if !ok {
			return errors.New("the index has no fuzzy term dictionary")
		}
		for _, word := range text.Words(s) {
			if _, done := out[word]; done {
				continue
			}
			near, err := wordNeighbours(ctx, fuzzy, word)
			if err != nil {
				return fmt.Errorf("neighbours of %q: %w", word, err)
			}
			out[word] = near
		}
		return nil
	})
	return out, err
}

// wordNeighbours is the first search.MaxNeighbours indexed words near word, in byte order.
func wordNeighbours(ctx context.Context, fuzzy index.IndexReaderFuzzy, word string) ([]string, error) {
	w := text.Fold(word)
	allow := search.TypoAllowance(w)
	out := []string{}
	if allow == 0 {
		return out, nil
	}
	seen := map[string]bool{}
	for _, sf := range search.SearchedFields {
		field := textFields[sf.Field]
		dict, err := fuzzy.FieldDictFuzzy(field, w, allow, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		for {
			// A long word's automaton may walk much of a dictionary: stop when the caller has gone.
			if err := ctx.Err(); err != nil {
				dict.Close()
				return nil, err
			}
			e, err := dict.Next()
			if err != nil {
				dict.Close()
				return nil, fmt.Errorf("%s: %w", field, err)
			}
			if e == nil {
				break
			}
			if e.Term != w && !seen[e.Term] && search.EditsWithin(w, e.Term, allow) {
				seen[e.Term] = true
				out = append(out, e.Term)
			}
		}
		if err := dict.Close(); err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), search.MaxNeighbours)], nil
}

// Totals counts the items each alternative text of q matches, unscored, on one reader.
func (b *Backend) Totals(ctx context.Context, q search.Query, alts []search.Alternative) ([]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("totals: %w", err)
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	out := make([]int, len(alts))
	err = withReader(h.idx, func(r index.IndexReader) error {
		for i, a := range alts {
			alt := q
			alt.Text = a.Text(q.Text)
			bq, _, err := buildQuery(h.idx.Mapping(), alt, h.facets.titleBonus)
			if err != nil {
				return err
			}
			if err := eachMatch(ctx, r, h.idx.Mapping(), bq, func(uint64) { out[i]++ }); err != nil {
				return fmt.Errorf("%q: %w", alt.Text, err)
			}
		}
		return nil
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return nil, fmt.Errorf("totals: %w", err)
	}
	return out, nil
}
