package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/cache"
	"mediagw/search/chain"
	"mediagw/search/searchtest"
)

// fixedBackend answers every search with the same page at no cost, so that a benchmark of a
// request through the chain measures the gateway's own work: the engine's is mediabench's.
type fixedBackend struct {
	res   search.Result
	words []search.Word
}

func (b fixedBackend) Search(context.Context, *search.Request) (search.Result, error) {
	return b.res, nil
}
func (b fixedBackend) Totals(_ context.Context, _ *search.Request, alts []search.Alternative, _ search.Matches) ([]int, error) {
	out := make([]int, len(alts))
	for i := range out {
		out[i] = 3
	}
	return out, nil
}
func (b fixedBackend) Item(context.Context, string) (search.Item, error) {
	return search.Item{}, search.ErrNotFound
}
func (b fixedBackend) Categories(context.Context, search.Query) ([]search.Category, error) {
	return nil, nil
}
func (b fixedBackend) Authors(context.Context, search.Query) ([]search.Author, error) {
	return nil, nil
}
func (b fixedBackend) Ping(context.Context) error { return nil }
func (b fixedBackend) Complete(context.Context, string, int) ([]search.Completion, error) {
	return nil, nil
}
func (b fixedBackend) Related(context.Context, string, int) ([]search.Item, error) { return nil, nil }
func (b fixedBackend) Words(context.Context) ([]search.Word, error)                { return b.words, nil }
func (b fixedBackend) Version(context.Context) (string, error)                     { return "v1", nil }

// searchTargets are items requests a search box sends: plain words, filters, operators, a
// misspelt word the did-you-mean corrects, and a walk's first page.
var searchTargets = []string{
	"/?resource=items&q=harbour",
	"/?resource=items&q=street+market+night&type=photo&page=2",
	"/?resource=items&category=places&language=en&sort=downloads&per_page=50",
	"/?resource=items&q=%22forest+path%22+-night+lisbon&from=1990-01-01&to=2005-12-31",
	"/?resource=items&q=harbuor+lights&highlight=true",
	"/?resource=items&q=river&cursor=*",
}

// BenchmarkSearchRequest serves whole items requests through the chain chain.New builds (the
// speller, the cache when cached, the meter and admission) over a backend that answers at once:
// the gateway's own CPU and allocations a search, from the query string to the encoded body.
func BenchmarkSearchRequest(b *testing.B) {
	items := searchtest.Generated(b, 20, 1)
	backend := fixedBackend{
		res:   search.Result{Items: items, Total: 1234},
		words: []search.Word{{Text: "harbour", Items: 4000}, {Text: "harbuor", Items: 1}, {Text: "lights", Items: 900}, {Text: "river", Items: 700}},
	}
	for _, cached := range []bool{true, false} {
		name := "uncached"
		if cached {
			name = "cached"
		}
		b.Run(name, func(b *testing.B) {
			o := chain.Options{Admit: admit.Options{Limit: 64, Wait: time.Second}}
			if cached {
				o.Cache = &cache.Options{}
			}
			c, err := chain.New(backend, o)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Live.Ask(b.Context()); err != nil {
				b.Fatal(err)
			}
			cfg := gateway.DefaultConfig()
			cfg.PublicURL = publicURL
			cfg.RatePolicy = ratelimit.Policy{Limit: 1 << 30, Window: time.Hour}
			g, err := gateway.New(cfg, c, ratelimit.NewMemory(cfg.RatePolicy, time.Now), zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Warm(b.Context()); err != nil {
				b.Fatal(err)
			}
			reqs := make([]*http.Request, len(searchTargets))
			for i, t := range searchTargets {
				reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				w := httptest.NewRecorder()
				g.ServeHTTP(w, reqs[i%len(reqs)])
				if w.Code != http.StatusOK {
					b.Fatalf("%s: status %d: %s", searchTargets[i%len(reqs)], w.Code, w.Body)
				}
			}
		})
	}
}
