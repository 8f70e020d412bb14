package chain_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/chain"
)

// versions is a backend whose index version is set by the test; its whole lists name the version
// they were counted on, and counting them runs counted (when set) first.
type versions struct {
	search.Backend // nil: the tests ask nothing else of it
	mu             sync.Mutex
	v              string
	counted        func(v string) error
}

func (b *versions) set(v string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.v = v
}

func (b *versions) Version(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.v, nil
}

func (b *versions) Search(context.Context, *search.Request) (search.Result, error) {
	return search.Result{}, nil
}

func (b *versions) Categories(context.Context, search.Query) ([]search.Category, error) {
	return []search.Category{{Slug: "c", Count: 1}}, nil
}

func (b *versions) Authors(ctx context.Context, _ search.Query) ([]search.Author, error) {
	v, _ := b.Version(ctx)
	if b.counted != nil {
		if err := b.counted(v); err != nil {
			return nil, err
		}
	}
	return []search.Author{{Name: "counted on " + v, Count: 1}}, nil
}

// settle asks for the lists, which starts their build when the version served is not theirs,
// waits until no build runs, and returns the lists then held.
func settle(t *testing.T, c *chain.Chain) *search.Lists {
	t.Helper()
	c.Lists()
	deadline := time.Now().Add(10 * time.Second)
	for !c.ListsSettled() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return c.Lists()
}

// TestListsOfTheVersionServed: the whole lists held are counted on the version they are served
// for; a count the version moved under is not served, and a failed one leaves the lists held.
func TestListsOfTheVersionServed(t *testing.T) {
	tests := []struct {
		name string
		// counted runs as v2's authors are counted, b's version set to v2.
		counted func(b *versions) func(v string) error
		want    string // the version of the lists held in the end
	}{
		{"a new version's lists replace the old", func(*versions) func(string) error { return nil }, "v2"},
		{"a count the version moved under is not served", func(b *versions) func(string) error {
			return func(v string) error {
				if v == "v2" {
					b.set("v3")
				}
				return nil
			}
		}, "v3"},
		{"a failed count keeps the lists held", func(*versions) func(string) error {
			return func(v string) error {
				if v == "v2" {
					return errors.New("engine down")
				}
				return nil
			}
		}, "v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &versions{v: "v1"}
			c, err := chain.New(b, chain.Options{Lists: true})
			if err != nil {
				t.Fatal(err)
			}
			if l := settle(t, c); l == nil || l.Version != "v1" {
				t.Fatalf("lists held at the start: %+v, want v1's", l)
			}
			b.counted = tt.counted(b)
			b.set("v2")
			for range 3 {
				settle(t, c)
			}
			l := settle(t, c)
			if l == nil || l.Version != tt.want || l.Authors[0].Name != "counted on "+tt.want {
				t.Fatalf("lists held: %+v, want those counted on %s", l, tt.want)
			}
			if got, _ := l.AuthorIndex.Select(search.ListQuery{Sort: search.ListByName}); len(got) != 1 {
				t.Errorf("the index of the lists held selects %v, want their one author", got)
			}
		})
	}
}
