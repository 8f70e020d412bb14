package bleve

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
	"mediagw/search/text"
)

// Words returns every term of the searched fields and stem of the stem fields with the documents
// holding it in any of them, for the did-you-mean's dictionary (search/spell). A term in one field counts its postings
// there; one in several, the union of its postings in them, as the engines count each item's
// distinct words once.
func (b *Backend) Words(ctx context.Context) ([]search.Word, error) {
	h, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer h.release()
	var out []search.Word
	err = withReader(h.idx, func(r index.IndexReader) error {
		fields := map[string][]string{}
		names := make([]string, 0, len(search.SearchedFields)+len(search.StemFields))
		for _, sf := range search.SearchedFields {
			names = append(names, textFields[sf.Field])
		}
		for _, sf := range search.StemFields {
			names = append(names, textFields[sf.Field])
		}
		for _, field := range names {
			err := eachTerm(r, field, func(term string, _ uint64) error {
				fields[term] = append(fields[term], field)
				return ctx.Err()
			})
			if err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
		}
		out = make([]search.Word, 0, len(fields))
		union := roaring64.New()
		for term, in := range fields {
			n, err := termDocs(ctx, r, term, in, union)
			if err != nil {
				return fmt.Errorf("%q: %w", term, err)
			}
			out = append(out, search.Word{Text: term, Items: n})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("words: %w", err)
	}
	return out, nil
}

// termDocs counts the documents holding term in any of fields, in union (emptied first) when
// there are several.
func termDocs(ctx context.Context, r index.IndexReader, term string, fields []string, union *roaring64.Bitmap) (int, error) {
	if len(fields) == 1 {
		// The dictionary's own count is no document count in every segment format; the postings' is.
		tr, err := r.TermFieldReader(ctx, []byte(term), fields[0], false, false, false)
		if err != nil {
			return 0, err
		}
		n := tr.Count()
		return int(n), tr.Close()
	}
	union.Clear()
	for _, field := range fields {
		err := eachPosting(ctx, r, term, field, func(doc uint64) error {
			union.Add(doc)
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("%s: %w", field, err)
		}
	}
	return int(union.GetCardinality()), nil
}

// Totals counts the items each alternative text of sr matches, on one reader, as the engines
// do: each word's matches found once (a set of documents), the other words' and the filters'
// intersected once per word replaced, and each alternative counted against that. Once the
// intersection is empty the words left are not expanded: a search of many unknown words costs a
// few expansions, not one per word.
func (b *Backend) Totals(ctx context.Context, sr *search.Request, alts []search.Alternative, _ search.Matches) ([]int, error) {
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
			return match("w:"+w, wordQuery(terms, nil, true, h.fuzzy))
		}
		filters := sr.Query
		filters.Text = ""
		fq, _, err := buildQuery(m, sr.With(filters), nil, nil)
		if err != nil {
			return err
		}
		base, err := match("", fq)
		if err != nil {
			return err
		}
		words := sr.Words()
		rests := map[string]*roaring64.Bitmap{}
		for i, a := range alts {
			rest, ok := rests[a.Word]
			if !ok {
				rest = base.Clone()
				for _, x := range words {
					if x == a.Word {
						continue
					}
					if rest.IsEmpty() {
						// Nothing left to intersect: the other words' typo expansions, a walk of
						// every searched field's terms each, would change no count.
						break
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
			if rest.IsEmpty() {
				continue
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
