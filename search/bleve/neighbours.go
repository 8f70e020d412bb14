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

// Neighbours returns the indexed words of the searched fields near word, from the fields' fuzzy
// term dictionaries. Their automata count a transposition as one edit, like search.EditsWithin;
// EditsWithin still filters, as it is the contract's definition.
func (b *Backend) Neighbours(ctx context.Context, word string, max int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	w := text.Fold(word)
	allow := search.TypoAllowance(w)
	out := []string{}
	if allow == 0 || max < 1 {
		return out, nil
	}
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	seen := map[string]bool{}
	err = withReader(h.idx, func(r index.IndexReader) error {
		fuzzy, ok := r.(index.IndexReaderFuzzy)
		if !ok {
			return errors.New("the index has no fuzzy term dictionary")
		}
		for _, sf := range search.SearchedFields {
			field := textFields[sf.Field]
			dict, err := fuzzy.FieldDictFuzzy(field, w, allow, "")
			if err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
			for {
				// A long word's automaton may walk much of a dictionary: stop when the caller has gone.
				if err := ctx.Err(); err != nil {
					dict.Close()
					return err
				}
				e, err := dict.Next()
				if err != nil {
					dict.Close()
					return fmt.Errorf("%s: %w", field, err)
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
				return fmt.Errorf("%s: %w", field, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neighbours of %q: %w", word, err)
	}
	slices.Sort(out)
	return out[:min(len(out), max)], nil
}
