package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/cache"
	"mediagw/search/chain"
)

// holding is a backend whose search of "hold" runs until released, holding its admission slot.
type holding struct {
	search.Backend
	started, release chan struct{}
}

func (h *holding) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	if q.Text == "hold" {
		close(h.started)
		<-h.release
	}
	return h.Backend.Search(ctx, search.NewRequest(q))
}

// TestAdmission: with the engine's one slot taken, a search the cache cannot answer gets 503
// unavailable with Retry-After: 1 within a generous bound; a cached search, an item, /healthz and
// /readyz are answered as usual.
func TestAdmission(t *testing.T) {
	hold := &holding{started: make(chan struct{}), release: make(chan struct{})}
	h := newHarness(t, withBackend(func(b search.Backend) search.Backend { hold.Backend = b; return hold }),
		withChain(func(o *chain.Options) {
			o.Admit = admit.Options{Limit: 1, Wait: 10 * time.Millisecond}
			o.Cache = &cache.Options{TTL: time.Hour}
		}))

	// Asked until the cache holds it: on OpenSearch, the cache learns the index version in the
	// background and keeps nothing until then.
	const cached = "/?resource=items&q=thames"
	for end := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		rec := h.get(cached)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d before the slot was taken", cached, rec.Code)
		}
		if rec.Header().Get("Cache-Status") == "mediagw; hit" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%s: never served from the cache", cached)
		}
	}
	done := make(chan error, 1)
	go func() {
		// Down the chain, which the cache cannot answer: it takes the one slot.
		_, err := h.backend.Search(context.Background(), search.NewRequest(search.Query{Text: "hold", Page: 1, PerPage: 1}))
		done <- err
	}()
	<-hold.started

	start := time.Now()
	rec := h.get("/?resource=items&q=harbour")
	took := time.Since(start)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("search past the limit: %d, Retry-After %q, %s; want 503, 1, problem+json", rec.Code, rec.Header().Get("Retry-After"), rec.Header().Get("Content-Type"))
	}
	p := decode[problemBody](t, rec)
	if p.Type != publicURL+"/problems/unavailable" || p.Status != http.StatusServiceUnavailable || !strings.Contains(p.Detail, "limit of searches in progress") {
		t.Errorf("problem %+v", p)
	}
	if took > time.Second {
		t.Errorf("refused after %v, want about the 10ms wait", took)
	}
	// Load shed as designed is a warning, not an error (search.KindOverloaded).
	refusals := h.logs.FilterField(zap.Int("status", http.StatusServiceUnavailable)).All()
	if len(refusals) != 1 || refusals[0].Level != zapcore.WarnLevel {
		t.Errorf("admission refusal logged as %+v, want one warning", refusals)
	}
	for _, target := range []string{cached, "/?resource=item&id=" + h.all[0].ID, "/healthz", "/readyz"} {
		if rec := h.get(target); rec.Code != http.StatusOK {
			t.Errorf("%s while the engine is full: %d, want 200", target, rec.Code)
		}
	}
	close(hold.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rec := h.get("/?resource=items&q=harbour"); rec.Code != http.StatusOK {
		t.Errorf("search once the slot is free: %d", rec.Code)
	}
}
