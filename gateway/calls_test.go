package gateway_test

import (
	"context"
	"sync"
	"testing"

	"mediagw/search"
)

// calling counts the backend calls a request makes, by method.
type calling struct {
	search.Backend
	mu sync.Mutex
	n  map[string]int
}

func (c *calling) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[op]++
}

func (c *calling) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

func (c *calling) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	c.count("search")
	return c.Backend.Search(ctx, search.NewRequest(q))
}

func (c *calling) Item(ctx context.Context, id string) (search.Item, error) {
	c.count("item")
	return c.Backend.Item(ctx, id)
}

func (c *calling) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	c.count("categories")
	return c.Backend.Categories(ctx, f)
}

func (c *calling) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	c.count("authors")
	return c.Backend.Authors(ctx, f)
}

func (c *calling) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	c.count("complete")
	return c.Backend.Complete(ctx, text, n)
}

func (c *calling) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	c.count("related")
	return c.Backend.Related(ctx, id, n)
}

func (c *calling) Totals(ctx context.Context, req *search.Request, alts []search.Alternative, m search.Matches) ([]int, error) {
	q := req.Query
	c.count("totals")
	return c.Backend.Totals(ctx, search.NewRequest(q), alts, m)
}

// TestEachResourceAsksOnce: every resource makes the backend calls its answer needs and no more:
// a search with its facets and highlights is one call, not one per extra.
func TestEachResourceAsksOnce(t *testing.T) {
	var c *calling
	h := newHarness(t, withChain(keepLists), withBackend(func(b search.Backend) search.Backend {
		c = &calling{Backend: b, n: map[string]int{}}
		return c
	}))
	id := h.all[0].ID
	tests := []struct {
		target string
		want   map[string]int
	}{
		{"/?resource=items", map[string]int{"search": 1}},
		// harbour is held by items, and no word near it by many times more: it looks right, and
		// its did-you-mean asks nothing.
		{"/?resource=items&q=harbour", map[string]int{"search": 1}},
		{"/?resource=items&q=harbour&highlight=true", map[string]int{"search": 1}},
		{"/?resource=items&facets=year,type&type=photo", map[string]int{"search": 1}},
		{"/?resource=items&q=harbour&facets=year,type&highlight=true", map[string]int{"search": 1}},
		// Words that each match some indexed word, with neighbours: counting them all is the one extra
		// call, however many words.
		{"/?resource=items&q=sunst+harbuor+talk+keynot+night", map[string]int{"search": 1, "totals": 1}},
		{"/?resource=item&id=" + id, map[string]int{"item": 1}},
		// The whole lists are held, counted as the replica started; a filtered one is counted.
		{"/?resource=categories", map[string]int{}},
		{"/?resource=authors&q=mar&per_page=5", map[string]int{}},
		{"/?resource=categories&type=photo", map[string]int{"categories": 1}},
		{"/?resource=authors&type=photo", map[string]int{"authors": 1}},
		{"/?resource=suggest&q=har", map[string]int{"complete": 1}},
		{"/?resource=related&id=" + id, map[string]int{"related": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			c.take()
			if rec := h.get(tt.target); rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			got := c.take()
			for op, n := range got {
				if n != tt.want[op] {
					t.Errorf("%s called %d times, want %d (all calls: %v)", op, n, tt.want[op], got)
				}
			}
			for op, n := range tt.want {
				if got[op] != n {
					t.Errorf("%s called %d times, want %d (all calls: %v)", op, got[op], n, got)
				}
			}
		})
	}
}
