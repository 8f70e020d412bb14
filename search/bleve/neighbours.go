package bleve

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/blevesearch/bleve/v2/search/query"
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

// Totals counts the items each alternative text of q matches, on one reader, as the engines
// do: each word's matches found once (a set of documents), the other words' and the filters'
// intersected once per word replaced, and each alternative counted against that.
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
		m := h.idx.Mapping()
		matches := map[string]*roaring64.Bitmap{}
		match := func(word string, bq query.Query) (*roaring64.Bitmap, error) {
			if set, ok := matches[word]; ok {
				return set, nil
			}
			set := roaring64.New()
			if err := eachMatch(ctx, r, m, bq, set.Add); err != nil {
				return nil, fmt.Errorf("%q: %w", word, err)
			}
			matches[word] = set
			return set, nil
		}
		wordMatch := func(w string) (*roaring64.Bitmap, error) {
			terms := text.Terms(w)
			if len(terms) == 0 {
				// A word of no terms leaves the others to decide, as in the search.
				return nil, nil
			}
			return match("w:"+w, wordQuery(terms))
		}
		filters := q
		filters.Text = ""
		fq, _, err := buildQuery(m, filters, nil)
		if err != nil {
			return err
		}
		base, err := match("", fq)
		if err != nil {
			return err
		}
		words := text.Words(q.Text)
		rests := map[string]*roaring64.Bitmap{}
		for i, a := range alts {
			rest, ok := rests[a.Word]
			if !ok {
				rest = base.Clone()
				for _, x := range words {
					if x == a.Word {
						continue
					}
					set, err := wordMatch(x)
					if err != nil {
						return err
					}
					if set != nil {
						rest.And(set)
					}
				}
				rests[a.Word] = rest
			}
			set, err := wordMatch(a.With)
			if err != nil {
				return err
			}
			if set == nil {
				out[i] = int(rest.GetCardinality())
			} else {
				out[i] = int(rest.AndCardinality(set))
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
