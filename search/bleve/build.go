package bleve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"mediagw/search"
)

// build writes items into a new index at path and returns how many it holds.
func build(ctx context.Context, path string, items iter.Seq2[search.Item, error]) (int, error) {
	m, err := newMapping()
	if err != nil {
		return 0, err
	}
	idx, err := blevesearch.New(path, m)
	if err != nil {
		return 0, fmt.Errorf("create index: %w", err)
	}
	n, err := fill(ctx, idx, items)
	if err == nil {
		err = compact(ctx, idx)
	}
	if cerr := idx.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close index: %w", cerr)
	}
	return n, err
}

// compact merges the index into one segment: it is never written again, and every query (fuzzy
// term lookups most) pays for each segment it has to visit.
func compact(ctx context.Context, idx blevesearch.Index) error {
	adv, err := idx.Advanced()
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	if err := s.ForceMerge(ctx, nil); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	return nil
}

func fill(ctx context.Context, idx blevesearch.Index, items iter.Seq2[search.Item, error]) (int, error) {
	agg := newAggregates()
	batch := idx.NewBatch()
	n, held := 0, 0
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if batch.Size() == 0 {
			return nil
		}
		if err := idx.Batch(batch); err != nil {
			return fmt.Errorf("index batch: %w", err)
		}
		batch.Reset()
		held = 0
		return nil
	}
	for it, err := range items {
		if err != nil {
			return 0, err
		}
		doc, err := document(it)
		if err != nil {
			return 0, err
		}
		if err := batch.Index(it.ID, doc); err != nil {
			return 0, fmt.Errorf("item %s: %w", it.ID, err)
		}
		agg.add(it)
		n++
		held += search.TextBytes(it)
		if batch.Size() >= batchSize || held >= search.MaxBatchBytes {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	count, err := idx.DocCount()
	if err != nil {
		return 0, fmt.Errorf("count documents: %w", err)
	}
	if int(count) != n {
		return 0, fmt.Errorf("index holds %d documents for %d items (duplicate ids?)", count, n)
	}
	for key, v := range map[string]any{string(keyCategories): agg.categories(), string(keyAuthors): agg.authors()} {
		raw, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		if err := idx.SetInternal([]byte(key), raw); err != nil {
			return 0, fmt.Errorf("store %s: %w", key, err)
		}
	}
	if err := idx.SetInternal(keyFormat, []byte(format)); err != nil {
		return 0, fmt.Errorf("store %s: %w", keyFormat, err)
	}
	return n, nil
}

// aggregates counts categories and authors while loading: the index is immutable once built,
// so counting once here is exact and keeps Categories and Authors cheap.
type aggregates struct {
	cats map[string]*search.Category
	// names counts, per category, the items giving each name.
	names    map[string]map[string]int
	byAuthor map[string]int
}

func newAggregates() *aggregates {
	return &aggregates{cats: map[string]*search.Category{}, names: map[string]map[string]int{}, byAuthor: map[string]int{}}
}

func (a *aggregates) add(it search.Item) {
	if it.Category != "" {
		c := a.cats[it.Category]
		if c == nil {
			c = &search.Category{Slug: it.Category}
			a.cats[it.Category] = c
		}
		c.Count++
		if it.CategoryName != "" {
			if a.names[it.Category] == nil {
				a.names[it.Category] = map[string]int{}
			}
			a.names[it.Category][it.CategoryName]++
		}
	}
	if it.Author != "" {
		a.byAuthor[it.Author]++
	}
}

func (a *aggregates) categories() []search.Category {
	out := make([]search.Category, 0, len(a.cats))
	for _, c := range a.cats {
		c.Name = search.PickCategoryName(c.Slug, a.names[c.Slug])
		out = append(out, *c)
	}
	slices.SortFunc(out, func(x, y search.Category) int { return cmp.Compare(x.Slug, y.Slug) })
	return out
}

func (a *aggregates) authors() []search.Author {
	out := make([]search.Author, 0, len(a.byAuthor))
	for name, n := range a.byAuthor {
		out = append(out, search.Author{Name: name, Count: n})
	}
	search.SortAuthors(out)
	return out
}
