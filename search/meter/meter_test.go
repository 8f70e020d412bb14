package meter

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/breaker"
	"mediagw/search/layer"
	"mediagw/search/searchtest"
	"mediagw/search/telemetry"
)

// TestErrorsByKind: a failed call counts under the failure its kind (search.Kind) is to clients;
// the question's answers and a caller gone count as none. Every call is timed.
func TestErrorsByKind(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("item: %w", search.ErrNotFound), ""},
		{fmt.Errorf("search: %w", search.ErrCursorInvalid), ""},
		{fmt.Errorf("search: %w", search.ErrCursorExpired), ""},
		{fmt.Errorf("search: %w", context.Canceled), ""},
		{fmt.Errorf("search: %w", context.DeadlineExceeded), failTimeout},
		{fmt.Errorf("dial: %w", search.ErrUnavailable), failUnavailable},
		{&breaker.OpenError{Retry: time.Second}, failUnavailable},
		{&admit.OverloadedError{Limit: 1}, failUnavailable},
		{fmt.Errorf("search: %w", search.NoIndex("items", nil)), failNoIndex},
		{fmt.Errorf("search: %w", search.ErrRefused), failRefused},
		{errors.New("index corrupt"), failOther},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			b := New(searchtest.Failing{Err: tt.err})
			if err := prometheus.NewPedanticRegistry().Register(b); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Search(t.Context(), search.NewRequest(search.Query{})); !errors.Is(err, tt.err) {
				t.Fatalf("Search: %v, want %v", err, tt.err)
			}
			for _, f := range []string{failUnavailable, failNoIndex, failTimeout, failRefused, failOther} {
				want := 0.0
				if f == tt.want {
					want = 1
				}
				if got := testutil.ToFloat64(b.errors.WithLabelValues(layer.Search.String(), f)); got != want {
					t.Errorf("errors{op=search,kind=%s} = %v, want %v", f, got, want)
				}
			}
			if n := testutil.CollectAndCount(b.duration); n != 8 {
				t.Errorf("%d duration series, want one per operation", n)
			}
		})
	}
}

// slow answers every search after d.
type slow struct {
	searchtest.Failing
	d time.Duration
}

func (s slow) Search(context.Context, *search.Request) (search.Result, error) {
	time.Sleep(s.d)
	return search.Result{}, nil
}

// TestEngineClock: each call's time is added to the caller's engine clock.
func TestEngineClock(t *testing.T) {
	const d = 5 * time.Millisecond
	b := New(slow{d: d})
	ctx, clock := telemetry.WithEngineClock(t.Context())
	for range 2 {
		if _, err := b.Search(ctx, search.NewRequest(search.Query{})); err != nil {
			t.Fatal(err)
		}
	}
	if clock.Total() < 2*d {
		t.Errorf("engine clock %v after two calls of at least %v", clock.Total(), d)
	}
	if _, err := b.Search(t.Context(), search.NewRequest(search.Query{})); err != nil {
		t.Errorf("a call without a clock: %v", err)
	}
}
