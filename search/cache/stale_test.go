package cache

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/searchtest"
	"mediagw/search/telemetry"
)

// callNoting calls op under a context that notes the answer's origin.
func callNoting(ctx context.Context, b search.Backend, call func(context.Context, search.Backend) (any, error)) (any, telemetry.Origin, error) {
	ctx, note := telemetry.WithOrigin(ctx)
	v, err := call(ctx, b)
	o, _ := note.Get()
	return v, o, err
}

// TestStaleIfError: while the engine fails, an answer up to StaleMax past its freshness is served,
// noted as stale with its age, and counted; past that, or with StaleMax 0, the failure shows.
func TestStaleIfError(t *testing.T) {
	const ttl, staleMax = 10 * time.Second, time.Minute
	for _, mode := range modes {
		for _, op := range ops {
			t.Run(mode+"/"+op.name, func(t *testing.T) {
				clk := newClock()
				b, c := newCached(t, mode, searchtest.Fixture(t), Options{TTL: ttl, StaleMax: staleMax, Now: clk.Now})
				fresh, o, err := callNoting(t.Context(), b, op.call)
				if err != nil {
					t.Fatal(err)
				}
				if o != (telemetry.Origin{}) {
					t.Errorf("first answer noted %+v, want an engine call's", o)
				}
				c.fail.Store(true)
				if r, ok := b.next.(*remote); ok {
					// The version cannot be checked either while the engine is down.
					r.fail.Store(true)
				}
				// Categories and authors of a version are fresh while the version is; they go
				// stale once it cannot be confirmed, and count from its last confirmation.
				clk.Advance(ttl + staleMax - time.Second)
				if _, ok := b.next.(*remote); ok {
					waitUnconfirmed(t, b)
				}
				got, o, err := callNoting(t.Context(), b, op.call)
				if err != nil {
					t.Fatalf("engine down, answer %v past its freshness: %v", staleMax-time.Second, err)
				}
				if fmt.Sprint(got) != fmt.Sprint(fresh) {
					t.Errorf("stale answer differs from the one kept:\n got %v\nwant %v", got, fresh)
				}
				if mode == "local" && (op.name == opCategories || op.name == opAuthors) {
					// Kept for the index version, which the backend knows without a call: fresh.
					if o != (telemetry.Origin{Cached: true}) {
						t.Errorf("noted %+v, want a fresh hit", o)
					}
					return
				}
				if !o.Cached || !o.Stale || o.Age < ttl+staleMax-2*time.Second || o.Age > ttl+staleMax {
					t.Errorf("noted %+v, want cached, stale, about %v old", o, ttl+staleMax-time.Second)
				}
				if n, miss := counted(b, op.name, resultStale), counted(b, op.name, resultMiss); n != 1 || miss != 1 {
					t.Errorf("counted %d stale answers and %d misses, want 1 and 1 (the fresh answer)", n, miss)
				}
				clk.Advance(time.Second)
				if _, err := op.call(t.Context(), b); !errors.Is(err, search.ErrUnavailable) {
					t.Errorf("engine down, answer %v past its freshness: %v, want ErrUnavailable", staleMax, err)
				}
			})
		}
	}
}

// waitUnconfirmed makes the cache check the remote version, which fails, and waits until it no
// longer trusts the version it saw.
func waitUnconfirmed(t *testing.T, b *Backend) {
	t.Helper()
	eventually(t, "the version is unconfirmed", func() bool {
		v, _ := b.version()
		return v == ""
	})
}

// TestStaleOnlyForEngineFailures: a caller that went away, or StaleMax 0, gets the error.
func TestStaleOnlyForEngineFailures(t *testing.T) {
	const ttl = 10 * time.Second
	for _, tt := range []struct {
		name     string
		staleMax time.Duration
		ctx      func(context.Context) context.Context
	}{
		{"stale max 0", 0, func(ctx context.Context) context.Context { return ctx }},
		{"caller gone", time.Minute, func(ctx context.Context) context.Context {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			return ctx
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			b, c := newCached(t, "local", searchtest.Fixture(t), Options{TTL: ttl, StaleMax: tt.staleMax, Now: clk.Now})
			if _, err := ops[0].call(t.Context(), b); err != nil {
				t.Fatal(err)
			}
			c.fail.Store(true)
			clk.Advance(ttl)
			if _, err := ops[0].call(tt.ctx(t.Context()), b); err == nil {
				t.Error("got an answer, want the error")
			}
			if n := counted(b, opSearch, resultStale); n != 0 {
				t.Errorf("counted %d stale answers, want 0", n)
			}
		})
	}
}

// TestStaleAfterTimeout: an engine that does not answer within the caller's deadline counts as
// failed: the caller gets the stale answer once its deadline passes.
func TestStaleAfterTimeout(t *testing.T) {
	clk := newClock()
	b, c := newCached(t, "local", searchtest.Fixture(t), Options{TTL: time.Second, StaleMax: time.Minute, Now: clk.Now})
	want, err := ops[0].call(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second)
	c.gate = make(chan struct{})
	defer close(c.gate)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	got, o, err := callNoting(ctx, b, ops[0].call)
	if err != nil {
		t.Fatalf("engine hung: %v, want the stale answer", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || !o.Stale {
		t.Errorf("got %v noted %+v, want the kept answer, stale", got, o)
	}
}

// TestOrigins: each way of answering is noted as such.
func TestOrigins(t *testing.T) {
	b, c := newCached(t, "local", searchtest.Fixture(t), Options{})
	_, o, err := callNoting(t.Context(), b, ops[0].call)
	if err != nil || o != (telemetry.Origin{}) {
		t.Errorf("first call noted %+v (%v), want an engine call", o, err)
	}
	_, o, err = callNoting(t.Context(), b, ops[0].call)
	if err != nil || o != (telemetry.Origin{Cached: true}) {
		t.Errorf("repeat noted %+v (%v), want cached", o, err)
	}

	// Two callers of one walk page (never kept) share one engine call.
	c.gate = make(chan struct{})
	joined := make(chan struct{}, 2)
	b.onJoin = func() { joined <- struct{}{} }
	walk := func(ctx context.Context, b search.Backend) (any, error) {
		return b.Search(ctx, search.NewRequest(search.Query{Sort: search.SortNewest, PerPage: 2, Cursor: search.StartCursor, Text: "x"}))
	}
	origins := make(chan telemetry.Origin, 2)
	for range 2 {
		go func() {
			_, o, _ := callNoting(t.Context(), b, walk)
			origins <- o
		}()
	}
	<-joined
	<-joined
	close(c.gate)
	got := []telemetry.Origin{<-origins, <-origins}
	if got[0].Collapsed == got[1].Collapsed || got[0].Cached || got[1].Cached {
		t.Errorf("noted %+v, want one engine call and one collapsed into it", got)
	}
}

// TestStaleGoFirst: when room is needed, a stale answer goes before a fresh one, however recently
// it was used.
func TestStaleGoFirst(t *testing.T) {
	const ttl = 10 * time.Second
	page := func(p int) search.Query { return search.Query{Sort: search.SortNewest, Page: p, PerPage: 10} }
	clk := newClock()
	b, c := newCached(t, "local", searchtest.Fixture(t), Options{TTL: ttl, StaleMax: time.Hour, MaxEntries: 2, Now: clk.Now})
	search1 := func() error { _, err := b.Search(t.Context(), search.NewRequest(page(1))); return err }
	if err := search1(); err != nil {
		t.Fatal(err)
	}
	clk.Advance(ttl / 2)
	if _, err := b.Search(t.Context(), search.NewRequest(page(2))); err != nil {
		t.Fatal(err)
	}
	if err := search1(); err != nil { // page 1 is now the most recently used
		t.Fatal(err)
	}
	clk.Advance(ttl / 2) // page 1 is stale, page 2 fresh
	if _, err := b.Search(t.Context(), search.NewRequest(page(3))); err != nil {
		t.Fatal(err)
	}
	c.fail.Store(true)
	if _, err := b.Search(t.Context(), search.NewRequest(page(2))); err != nil {
		t.Errorf("the fresh page was dropped: %v", err)
	}
	if err := search1(); !errors.Is(err, search.ErrUnavailable) {
		t.Errorf("the stale page was kept (%v), want it dropped first", err)
	}
}
