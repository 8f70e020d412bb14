package cache

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/elastic"
	"mediagw/search/live"
	"mediagw/search/searchtest"
)

// newOpenSearch opens an OpenSearch backend on an alias of its own, removed after the test. Without
// OPENSEARCH_URL the test skips, except in CI.
func newOpenSearch(t testing.TB) *elastic.Backend {
	t.Helper()
	// Index names have one-second resolution: each load gets a second of its own.
	var (
		mu   sync.Mutex
		next = time.Now().UTC()
	)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		next = next.Add(time.Second)
		return next
	}
	return servicetest.OpenEngine(t, func(e servicetest.Engine, url, alias string) (*elastic.Backend, error) {
		return elastic.New(elastic.Config{URLs: []string{url}, Product: elastic.Product(e.Product), Alias: alias, Now: now})
	})
}

func loadOpenSearch(t testing.TB, b *elastic.Backend, items []search.Item) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if _, err := b.Load(ctx, search.Values(items)); err != nil {
		t.Fatalf("Load: %v", err)
	}
}

// TestOpenSearchConformance: caching never changes OpenSearch's answers, extras included.
func TestOpenSearchConformance(t *testing.T) {
	open := func(t *testing.T, items []search.Item) search.Backend {
		engine := newOpenSearch(t)
		loadOpenSearch(t, engine, items)
		b := New(engine, Options{Live: live.New(engine.Version, live.Options{Every: live.DefaultEvery})})
		v, err := engine.Version(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		waitVersion(t, b, v)
		return b
	}
	searchtest.RunLayer(t, open)
	t.Run("Extras", func(t *testing.T) { searchtest.RunExtras(t, open) })
}

// TestOpenSearchAliasMoveInvalidates: a load that moves the alias is noticed at the next version
// check, and categories come from the new index.
func TestOpenSearchAliasMoveInvalidates(t *testing.T) {
	engine := newOpenSearch(t)
	before := searchtest.Fixture(t)
	loadOpenSearch(t, engine, before)
	clk := newClock()
	b := New(engine, Options{Now: clk.Now, Live: live.New(engine.Version, live.Options{Every: live.DefaultEvery, Now: clk.Now})})
	v1, err := engine.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	waitVersion(t, b, v1)
	cats, err := b.Categories(t.Context(), search.Query{})
	if err != nil || len(cats) < 2 {
		t.Fatalf("Categories = %v, %v", cats, err)
	}

	after := slices.Clone(before[:3])
	for i := range after {
		after[i].Category, after[i].CategoryName = "reloaded", "Reloaded"
	}
	loadOpenSearch(t, engine, after)
	v2, err := engine.Version(t.Context())
	if err != nil || v2 == v1 {
		t.Fatalf("Version after a second load = %q, %v; want a new one", v2, err)
	}
	clk.Advance(live.DefaultEvery)
	waitVersion(t, b, v2)
	cats, err = b.Categories(t.Context(), search.Query{})
	if want := []search.Category{{Slug: "reloaded", Name: "Reloaded", Count: len(after)}}; err != nil || !slices.Equal(cats, want) {
		t.Errorf("Categories after the alias moved = %v, %v; want %v", cats, err, want)
	}
}
