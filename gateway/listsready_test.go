package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/gateway"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/chain"
	"mediagw/search/searchtest"
)

// gatedLists is a backend whose whole authors list is not answered while its gate is shut; each
// such call says so on entered.
type gatedLists struct {
	search.Backend
	shut    atomic.Pointer[chan struct{}]
	entered chan struct{}
}

func newGatedLists(b search.Backend) *gatedLists {
	return &gatedLists{Backend: b, entered: make(chan struct{}, 1)}
}

// close shuts the gate, open opens it.
func (g *gatedLists) close() { ch := make(chan struct{}); g.shut.Store(&ch) }
func (g *gatedLists) open()  { close(*g.shut.Swap(nil)) }

func (g *gatedLists) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	if ch := g.shut.Load(); ch != nil && f == (search.Query{}) {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		select {
		case <-*ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Backend.Authors(ctx, f)
}

// eventually waits until cond holds, failing the test when ctx ends first.
func eventually(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if ctx.Err() != nil {
			t.Fatalf("%s: never", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReadyWaitsForLists: a replica that keeps the whole lists says it is not ready until it
// holds them, so that no visitor waits on their count, and ready once it does, serving them.
func TestReadyWaitsForLists(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	b, _ := testBackend(t)
	gated := newGatedLists(sharedBackend{b})
	gated.close()
	o := chainOptions()
	o.Lists = true
	c, err := chain.New(gated, o)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.DefaultConfig()
	cfg.PublicURL = publicURL
	g, err := gateway.New(cfg, c, ratelimit.NewMemory(cfg.RatePolicy, fixedNow), nil)
	if err != nil {
		t.Fatal(err)
	}
	get := func(target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.RemoteAddr = "203.0.113.10:40000"
		g.ServeHTTP(rec, req)
		return rec
	}
	// The first probe asks the version, which starts the count.
	get("/readyz")
	select {
	case <-gated.entered:
	case <-ctx.Done():
		t.Fatal("the whole lists are never counted")
	}
	if rec := get("/readyz"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "lists") {
		t.Errorf("/readyz while the lists are counted: %d %s, want 503 saying so", rec.Code, rec.Body)
	}
	gated.open()
	eventually(t, ctx, "/readyz once the lists are built", func() bool { return get("/readyz").Code == http.StatusOK })
	rec := get("/?resource=authors&per_page=5")
	if rec.Code != http.StatusOK || rec.Header().Get("Cache-Status") != "mediagw; hit" {
		t.Errorf("a page of authors once ready: %d, Cache-Status %q; want 200 from the lists held", rec.Code, rec.Header().Get("Cache-Status"))
	}
}

// TestListsServedUntilBuilt: after a reindex, the whole lists of the version served before are
// served until the new version's are built, then the new ones; a filtered list is counted on the
// index served meanwhile.
func TestListsServedUntilBuilt(t *testing.T) {
	before := searchtest.Fixture(t)
	after, gone := withoutCategory(before)
	open := bleveIndex
	if _, ok := engineOf(); ok {
		open = openSearchIndex
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	idx := open(t, ctx, before)
	gated := newGatedLists(idx.backend)
	h := newHarness(t, withBackend(func(search.Backend) search.Backend { return gated }), withChain(quickLive(true)),
		withConfig(func(c *gateway.Config) { c.GzipMinSize = 1 }))
	c := h.backend.(*chain.Chain)
	old := c.Live.Named()
	checkList(t, h, "categories", wantLists(before)["categories"])

	gated.close()
	if err := idx.reindex(ctx, after); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, "the new version seen", func() bool { v := c.Live.Named(); return v != "" && v != old })
	h.get("/?resource=items")
	select {
	case <-gated.entered:
	case <-ctx.Done():
		t.Fatal("the new version's lists are never counted")
	}
	checkList(t, h, "categories", wantLists(before)["categories"])
	if rec := h.get("/readyz"); rec.Code != http.StatusOK {
		t.Errorf("/readyz while a new version's lists are counted: %d, want 200", rec.Code)
	}
	filtered := decode[listBody](t, h.get("/?resource=categories&type="+before[0].Type))
	for _, e := range filtered.Data {
		if e.Slug == gone {
			t.Errorf("a filtered list while the new lists are counted holds %s, which the index served has not", gone)
		}
	}

	gated.open()
	eventually(t, ctx, "the new lists served", func() bool {
		return !strings.Contains(h.get("/?resource=categories").Body.String(), `"`+gone+`"`)
	})
	checkList(t, h, "categories", wantLists(after)["categories"])
}
