package bleve

import (
	"context"
	"errors"
	"fmt"
	"slices"

	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
)

// Neighbours returns the indexed words of the searched fields near word, from the fields' fuzzy
// term dictionaries. Their automata count a transposition as one edit, like search.EditsWithin;
// EditsWithin still filters, as it is the contract's definition.
func (b *Backend) Neighbours(ctx context.Context, word string, max int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	w := search.Fold(word)
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
	ix, err := h.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	r, err := ix.Reader()
	if err != nil {
		return nil, fmt.Errorf("neighbours: %w", err)
	}
	defer r.Close()
	fuzzy, ok := r.(index.IndexReaderFuzzy)
	if !ok {
		return nil, errors.New("neighbours: the index has no fuzzy term dictionary")
	}
	seen := map[string]bool{}
	for _, f := range textFields {
		dict, err := fuzzy.FieldDictFuzzy(f.name, w, allow, "")
		if err != nil {
			return nil, fmt.Errorf("neighbours of %q in %s: %w", word, f.name, err)
		}
		for {
			e, err := dict.Next()
			if err != nil {
				dict.Close()
				return nil, fmt.Errorf("neighbours of %q in %s: %w", word, f.name, err)
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
			return nil, fmt.Errorf("neighbours of %q in %s: %w", word, f.name, err)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), max)], nil
}
