package bleve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/blevesearch/bleve/v2/search/query"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// endsInside is a context that ends just after the call has begun: its first Err is nil (the
// entry check passes), every later one is context.Canceled, and Done is closed from the start.
type endsInside struct {
	context.Context
	asked atomic.Int32
	done  chan struct{}
}

func newEndsInside(parent context.Context) *endsInside {
	c := &endsInside{Context: parent, done: make(chan struct{})}
	close(c.done)
	return c
}

func (c *endsInside) Done() <-chan struct{} { return c.done }

func (c *endsInside) Err() error {
	if c.asked.Add(1) == 1 {
		return nil
	}
	return context.Canceled
}

// TestStopsWhenTheCallerLeaves: a search, a completion from the index, a related search, a
// neighbours lookup or a correction's totals whose context ends once it has begun stops with
// context.Canceled rather than run to its end, so a visitor who has gone stops costing the process.
func TestStopsWhenTheCallerLeaves(t *testing.T) {
	b := openFromItems(t, searchtest.Fixture(t)).(*Backend)
	calls := map[string]func(ctx context.Context) error{
		"search": func(ctx context.Context) error {
			_, err := b.Search(ctx, search.NewRequest(search.Query{Text: "thames river", Sort: search.SortRelevance, Page: 1, PerPage: 10}))
			return err
		},
		"search with facets": func(ctx context.Context) error {
			_, err := b.Search(ctx, search.NewRequest(search.Query{Text: "thames", Sort: search.SortRelevance, Page: 1, PerPage: 10,
				Facets: search.FacetSet(search.FacetType | search.FacetYear)}))

			return err
		},
		// Complete asks the index when the popular titles held in memory do not answer.
		"complete from the index": func(ctx context.Context) error {
			h, err := b.acquire()
			if err != nil {
				return err
			}
			defer h.release()
			last := query.NewPrefixQuery("harb")
			last.SetField(fieldTitle)
			_, err = completeFromIndex(ctx, h, []string{"sunset", "harb"}, last, 10)
			return err
		},
		"related": func(ctx context.Context) error { _, err := b.Related(ctx, "pg-rashomon", 10); return err },
		"words":   func(ctx context.Context) error { _, err := b.Words(ctx); return err },
		"totals": func(ctx context.Context) error {
			_, err := b.Totals(ctx, search.NewRequest(search.Query{Text: "thamse river"}), []search.Alternative{{Word: "thamse", With: "thames"}}, nil)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(t.Context()); err != nil {
				t.Fatalf("with a live context: %v", err)
			}
			if err := call(newEndsInside(t.Context())); !errors.Is(err, context.Canceled) {
				t.Errorf("with a context that ends inside: %v, want context.Canceled", err)
			}
		})
	}
}

// TestRelatedClausesBounded: an item with many tags asks for at most maxRelatedTerms words, each
// once per field, its title's first; category and author come on top.
func TestRelatedClausesBounded(t *testing.T) {
	b := openFromItems(t, searchtest.Fixture(t)).(*Backend)
	h, err := b.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer h.release()
	it := search.Item{ID: "x", Title: "Harbour harbour lights", Category: "maps", Author: "Someone"}
	for i := range 300 {
		it.Tags = append(it.Tags, fmt.Sprintf("tag%03d", i))
	}
	got := relatedClauses(h.idx.Mapping(), it)
	if len(got) != maxRelatedTerms+2 {
		t.Fatalf("%d clauses, want %d words, the category and the author", len(got), maxRelatedTerms)
	}
	first := got[0].(*query.TermQuery)
	second := got[1].(*query.TermQuery)
	if first.Term != "harbour" || second.Term != "lights" {
		t.Errorf("first clauses %q, %q; want the title's words once each", first.Term, second.Term)
	}
}

// TestTypoClausesStopWhenTheCallerLeaves: a search whose context ends once it has begun expands
// none of its typo clauses' words: each expansion walks a field's whole term dictionary, and a
// search of many long words kept the process busy long after its deadline's 504.
func TestTypoClausesStopWhenTheCallerLeaves(t *testing.T) {
	b := openFromItems(t, searchtest.Fixture(t)).(*Backend)
	words := []string{"harbuor", "thamse", "lighst", "sunste", "rivre", "londno"}
	_, err := b.Search(newEndsInside(t.Context()), search.NewRequest(search.Query{Text: strings.Join(words, " "), Sort: search.SortRelevance, Page: 1, PerPage: 10}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("search: %v, want context.Canceled", err)
	}
	h, err := b.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer h.release()
	expanded := 0
	for _, c := range search.Clauses {
		for _, w := range words {
			if _, ok := h.fuzzy.Get(fuzzyKey{term: w, field: textFields[c.Field], fuzziness: search.TypoAllowance(w)}); c.Typo && ok {
				expanded++
			}
		}
	}
	if expanded > 0 {
		t.Errorf("%d typo clauses expanded after the caller left, want none", expanded)
	}
}
