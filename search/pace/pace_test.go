package pace

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"mediagw/search"
)

func numbered(n int) []search.Item {
	items := make([]search.Item, n)
	for i := range items {
		items[i].ID = strconv.Itoa(i)
	}
	return items
}

// TestItems: a rate is kept to (no faster, within generous bounds of slower), 0 or less copies as
// fast as the items come, and every item comes once, in order.
func TestItems(t *testing.T) {
	tests := []struct {
		rate float64
		n    int
		// at least, at most: how long the n items may take. The bucket starts full with a
		// tenth of a second's items, which come at once.
		atLeast, atMost time.Duration
	}{
		{rate: 0, n: 200000, atMost: 2 * time.Second},
		{rate: -1, n: 200000, atMost: 2 * time.Second},
		{rate: 2000, n: 1200, atLeast: 450 * time.Millisecond, atMost: 10 * time.Second},
		{rate: 50, n: 30, atLeast: 450 * time.Millisecond, atMost: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatFloat(tt.rate, 'g', -1, 64), func(t *testing.T) {
			start := time.Now()
			i := 0
			for it, err := range Items(t.Context(), search.Values(numbered(tt.n)), tt.rate) {
				if err != nil || it.ID != strconv.Itoa(i) {
					t.Fatalf("item %d: %q, %v", i, it.ID, err)
				}
				i++
			}
			took := time.Since(start)
			if i != tt.n || took < tt.atLeast || took > tt.atMost {
				t.Errorf("%d items at %g/s: %d in %v, want all in %v to %v", tt.n, tt.rate, i, took, tt.atLeast, tt.atMost)
			}
		})
	}
}

// TestItemsStop: the end of ctx ends a wait with its cause, and an error of the items passes
// through as it is.
func TestItemsStop(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []error
	n := 0
	for _, err := range Items(ctx, search.Values(numbered(100)), 10) {
		if err != nil {
			got = append(got, err)
			continue
		}
		if n++; n == 2 {
			cancel()
		}
	}
	if n != 2 || len(got) != 1 || !errors.Is(got[0], context.Canceled) {
		t.Errorf("cancelled after 2 items: %d items, errors %v; want one error wrapping context.Canceled", n, got)
	}

	bad := errors.New("bad line")
	items := func(yield func(search.Item, error) bool) {
		_ = yield(search.Item{ID: "a"}, nil) && yield(search.Item{}, bad)
	}
	var errs []error
	for _, err := range Items(t.Context(), items, 1000) {
		errs = append(errs, err)
	}
	if len(errs) != 2 || errs[0] != nil || errs[1] != bad {
		t.Errorf("errors %v, want nil and the items' own", errs)
	}
}
