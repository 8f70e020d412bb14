package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/chain"
	"mediagw/search/curation"
	"mediagw/search/live"
	"mediagw/search/searchtest"
)

// chainHarness is a gateway over b behind the chain cmd/mediagw builds (search/chain).
func chainHarness(t *testing.T, b search.Backend) (*harness, *chain.Chain) {
	t.Helper()
	opts := chain.Options{}
	if _, ok := engineOf(); ok {
		opts.Live.Every = live.DefaultEvery
	}
	c, err := chain.New(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.DefaultConfig()
	cfg.PublicURL = publicURL
	cfg.RatePolicy = ratelimit.Policy{Limit: 1000, Window: 10 * time.Minute}
	h, err := gateway.New(cfg, c, ratelimit.NewMemory(cfg.RatePolicy, fixedNow), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, h: h, cfg: cfg, backend: c}, c
}

// TestSynonymsHighlighted: with `zzqwood => harbour` applied, a search of zzqwood with
// highlight=true marks the harbours it finds.
func TestSynonymsHighlighted(t *testing.T) {
	b := backendOf(t, searchtest.Fixture(t))
	store, ok := b.(curation.Store)
	if !ok {
		t.Fatalf("the backend %T stores no rules", b)
	}
	r, err := curation.Parse(curation.Files{Synonyms: "zzqwood => harbour\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.ApplyRules(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	h, c := chainHarness(t, b)
	if _, err := c.Live.Ask(t.Context()); err != nil {
		t.Fatal(err)
	}
	rec := h.get("/?resource=items&q=zzqwood&highlight=true")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	body := decode[struct {
		Data []struct {
			ID      string            `json:"id"`
			Matched map[string]string `json:"matched"`
		} `json:"data"`
	}](t, rec)
	if len(body.Data) == 0 {
		t.Fatal("zzqwood finds nothing")
	}
	for _, it := range body.Data {
		marked := false
		for _, s := range it.Matched {
			marked = marked || strings.Contains(s, "<mark>")
		}
		if !marked {
			t.Errorf("%s: matched %v marks nothing", it.ID, it.Matched)
		}
	}
}

// detailed is a backend that says what it serves short of what it should.
type detailed struct {
	search.Backend
	detail string
}

func (d detailed) ReadinessDetail() string { return d.detail }

// TestReadyzDetail: /readyz passes with the backend's detail when it has one, and without a
// detail when it has none.
func TestReadyzDetail(t *testing.T) {
	b, _ := testBackend(t)
	for _, detail := range []string{"", "the operators' synonyms and pins cannot be read"} {
		cfg := gateway.DefaultConfig()
		cfg.PublicURL = publicURL
		h, err := gateway.New(cfg, detailed{b, detail}, ratelimit.NewMemory(cfg.RatePolicy, fixedNow), zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		hr := &harness{t: t, h: h}
		rec := hr.get("/readyz")
		got := decode[map[string]string](t, rec)
		if rec.Code != http.StatusOK || got["status"] != "ok" || got["detail"] != detail {
			t.Errorf("detail %q: /readyz %d %v", detail, rec.Code, got)
		}
		if _, has := got["detail"]; has && detail == "" {
			t.Errorf("/readyz without a detail says %v", got)
		}
	}
}
