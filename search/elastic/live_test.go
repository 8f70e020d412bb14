package elastic

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/chain"
	"mediagw/search/curation"
	"mediagw/search/live"
)

// TestReadsTheChainsVersion: behind its chain (search/chain), the backend names the index of a
// walk's page without hits from the chain's owner of the live version, in the one request the
// page takes: the walk ends while the owner still holds the index it started on (its staleness),
// expires once the owner has read the load, and the operators' rules, which tag the version the
// cache keys by, leave the index's name alone. An owner that does not know has the alias asked.
func TestReadsTheChainsVersion(t *testing.T) {
	var requests atomic.Int32
	b := newBackend(t, Config{Now: stepClock(), Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		requests.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})})
	harbours := []search.Item{
		{ID: "a", Title: "Harbour at dawn", Type: search.TypePhoto, Category: "harbours", Date: "2024-01-01"},
		{ID: "b", Title: "Harbour at noon", Type: search.TypePhoto, Category: "harbours", Date: "2024-01-02"},
		{ID: "c", Title: "Harbour at dusk", Type: search.TypePhoto, Category: "harbours", Date: "2024-01-03"},
		{ID: "d", Title: "Harbour at night", Type: search.TypePhoto, Category: "harbours", Date: "2024-01-04"},
	}
	first := load(t, b, harbours)
	rules, err := curation.Parse(curation.Files{Synonyms: "harbour, port\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyRules(t.Context(), rules); err != nil {
		t.Fatalf("ApplyRules: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := b.deleteIndices(ctx, b.rulesIndex()); err != nil {
			t.Errorf("remove the rules index: %v", err)
		}
	})

	const every = time.Minute
	var clk atomic.Int64
	clk.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clk.Load()) }
	c, err := chain.New(b, chain.Options{Live: live.Options{Every: every, Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	tagged, err := c.Live.Ask(t.Context())
	if err != nil || tagged == first.Index || c.Live.Named() != first.Index {
		t.Fatalf("the owner holds %q (named %q), %v; want %s tagged with the rules", tagged, c.Live.Named(), err, first.Index)
	}

	q := search.Query{Category: "harbours", Sort: search.SortNewest, PerPage: 2, Cursor: search.StartCursor}
	q.Normalize()
	res, err := c.Search(t.Context(), search.NewRequest(q))
	if err != nil || len(res.Items) != 2 || res.Next == "" {
		t.Fatalf("the walk's first page: %d items, next %q, %v", len(res.Items), res.Next, err)
	}
	q.Cursor = res.Next
	// The alias moves to an index without harbours: the walk's next page finds none.
	second := load(t, b, []search.Item{{ID: "p", Title: "Port at dawn", Type: search.TypePhoto, Category: "ports"}})

	// page is the walk's next page, with the number of requests it took.
	page := func() (search.Result, int32, error) {
		requests.Store(0)
		res, err := c.Search(t.Context(), search.NewRequest(q))
		return res, requests.Load(), err
	}
	res, n, err := page()
	if err != nil || len(res.Items) != 0 || res.Next != "" || n != 1 {
		t.Errorf("while the owner holds %s: %d items, next %q, %v, in %d requests; want the walk's end in 1",
			first.Index, len(res.Items), res.Next, err, n)
	}

	clk.Add(int64(every))
	c.Live.Named() // the owner asks again in the background
	for c.Live.Asking() {
		time.Sleep(time.Millisecond)
	}
	if got := c.Live.Named(); got != second.Index {
		t.Fatalf("the owner names %q after the load, want %s", got, second.Index)
	}
	res, n, err = page()
	if !errors.Is(err, search.ErrCursorExpired) || n != 1 {
		t.Errorf("once the owner read the load: %d items, %v, in %d requests; want %v in 1", len(res.Items), err, n, search.ErrCursorExpired)
	}

	// An owner whose question fails knows no version: the page asks the alias itself.
	unknown := live.New(func(context.Context) (string, error) { return "", errors.New("no answer") }, live.Options{})
	b.ReadVersionFrom(unknown)
	res, n, err = page()
	if !errors.Is(err, search.ErrCursorExpired) || n < 2 {
		t.Errorf("with an owner that does not know: %d items, %v, in %d requests; want %v, the alias asked", len(res.Items), err, n, search.ErrCursorExpired)
	}
}
