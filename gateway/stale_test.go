package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/cache"
	"mediagw/search/chain"
	"mediagw/search/searchtest"
)

// switchable is the test backend, or, while down, an engine that cannot be reached.
type switchable struct {
	search.Backend
	down atomic.Bool
}

func newSwitchable(b search.Backend) *switchable {
	return &switchable{Backend: b}
}

var errDown = fmt.Errorf("dial tcp 10.0.0.5:9200: connection refused: %w", search.ErrUnavailable)

func (s *switchable) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	if s.down.Load() {
		return search.Result{}, errDown
	}
	return s.Backend.Search(ctx, search.NewRequest(q))
}

func (s *switchable) Item(ctx context.Context, id string) (search.Item, error) {
	if s.down.Load() {
		return search.Item{}, errDown
	}
	return s.Backend.Item(ctx, id)
}

func (s *switchable) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.Backend.Categories(ctx, f)
}

func (s *switchable) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.Backend.Authors(ctx, f)
}

func (s *switchable) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.Backend.Complete(ctx, text, n)
}

// Version fails while down too: an engine that cannot be reached names no index.
func (s *switchable) Version(ctx context.Context) (string, error) {
	if s.down.Load() {
		return "", errDown
	}
	return s.Backend.Version(ctx)
}

func (s *switchable) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.Backend.Related(ctx, id, n)
}

// TestStaleIfError: every answer says whether it came from the cache; while the engine cannot be
// reached, an answer the cache held is served with Cache-Status saying it is stale, its Age and a
// short max-age, and a request it never held gets 503.
func TestStaleIfError(t *testing.T) {
	b, items := testBackend(t)
	engine := newSwitchable(b)
	var now atomic.Int64 // the cache's clock, in Unix nanoseconds
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	h := newHarness(t, withBackend(func(search.Backend) search.Backend { return engine }), withChain(func(o *chain.Options) {
		o.Cache = &cache.Options{TTL: 10 * time.Second, StaleMax: time.Minute, Now: clock}
		o.Live.Now, o.Lists = clock, true
	}))
	id := url.QueryEscape(items[0].ID)
	targets := []string{
		"/?resource=items&q=harbour&per_page=5", "/?resource=item&id=" + id, "/?resource=categories&type=photo",
		"/?resource=authors&type=photo", "/?resource=suggest&q=har", "/?resource=related&id=" + id, "/qr/" + url.PathEscape(items[1].ID) + ".png",
	}
	bodies := map[string]string{}
	for _, target := range targets {
		rec := h.get(target)
		if rec.Code != http.StatusOK || rec.Header().Get("Cache-Status") != "mediagw; fwd=miss" {
			t.Errorf("%s: first request %d, Cache-Status %q; want 200, mediagw; fwd=miss", target, rec.Code, rec.Header().Get("Cache-Status"))
		}
		bodies[target] = rec.Body.String()
		rec = h.get(target)
		if rec.Code != http.StatusOK || rec.Header().Get("Cache-Status") != "mediagw; hit" || rec.Header().Get("Age") != "" {
			t.Errorf("%s: repeat %d, Cache-Status %q, Age %q; want 200, mediagw; hit, none", target, rec.Code,
				rec.Header().Get("Cache-Status"), rec.Header().Get("Age"))
		}
	}

	engine.down.Store(true)
	now.Add(int64(40 * time.Second))
	for _, target := range targets {
		rec := h.get(target)
		if rec.Code != http.StatusOK {
			t.Errorf("%s: engine down: %d, want 200 with the stale answer", target, rec.Code)
			continue
		}
		if got := rec.Header().Get("Cache-Status"); got != "mediagw; hit; detail=stale" {
			t.Errorf("%s: Cache-Status %q, want mediagw; hit; detail=stale", target, got)
		}
		if got := rec.Header().Get("Age"); got != "40" {
			t.Errorf("%s: Age %q, want 40", target, got)
		}
		if got := rec.Header().Get("Cache-Control"); got != "private, max-age=5" {
			t.Errorf("%s: Cache-Control %q, want private, max-age=5", target, got)
		}
		if rec.Body.String() != bodies[target] {
			t.Errorf("%s: the stale body differs from the one served before", target)
		}
	}
	// The whole lists the chain keeps need no engine: served as ever, while it is down too.
	for _, target := range []string{"/?resource=categories", "/?resource=authors&q=mar&per_page=5"} {
		if rec := h.get(target); rec.Code != http.StatusOK || rec.Header().Get("Cache-Status") != "mediagw; hit" {
			t.Errorf("%s: engine down: %d, Cache-Status %q; want 200, mediagw; hit", target, rec.Code, rec.Header().Get("Cache-Status"))
		}
	}
	rec := h.get("/?resource=items&q=never+asked")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" ||
		rec.Header().Get("Cache-Status") != "mediagw; fwd=miss" {
		t.Errorf("a search never answered, engine down: %d, Retry-After %q, Cache-Status %q; want 503, set, mediagw; fwd=miss",
			rec.Code, rec.Header().Get("Retry-After"), rec.Header().Get("Cache-Status"))
	}

	now.Add(int64(30 * time.Second)) // 70 s old: past TTL + StaleMax
	if rec := h.get(targets[0]); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("an answer past StaleMax: %d, want 503", rec.Code)
	}
}

// TestCacheStatusWithoutCache: without a cache, every answer says it bypassed one.
func TestCacheStatusWithoutCache(t *testing.T) {
	h := newHarness(t)
	for _, target := range []string{"/?resource=items&q=harbour", "/?resource=categories&type=photo"} {
		if got := h.get(target).Header().Get("Cache-Status"); got != "mediagw; fwd=bypass" {
			t.Errorf("%s: Cache-Status %q, want mediagw; fwd=bypass", target, got)
		}
	}
	if got := h.get("/?resource=items&page=0").Header().Get("Cache-Status"); got != "" {
		t.Errorf("a request refused before the engine is asked: Cache-Status %q, want none", got)
	}
	h = newHarness(t, withBackend(func(b search.Backend) search.Backend { return searchtest.Failing{Backend: b, Err: errDown} }))
	if got := h.get("/readyz").Header().Get("Cache-Status"); got != "" {
		t.Errorf("/readyz: Cache-Status %q, want none", got)
	}
}
