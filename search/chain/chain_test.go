package chain_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/breaker"
	"mediagw/search/cache"
	"mediagw/search/chain"
)

// recorder is a backend that counts the calls it is asked, by method; a search of "hold" waits
// until release is closed.
type recorder struct {
	search.Backend // nil: the tests ask nothing else of it
	held, release  chan struct{}
	mu             sync.Mutex
	calls          map[string]int
	live           search.LiveVersion
}

func newRecorder() *recorder {
	return &recorder{held: make(chan struct{}), release: make(chan struct{}), calls: map[string]int{}}
}

func (r *recorder) count(op string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[op]++
}

func (r *recorder) asked(op string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[op]
}

func (r *recorder) Search(_ context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	if q.Text == "" {
		// The live owner's question of the languages held, asked in the background.
		return search.Result{}, nil
	}
	r.count("search")
	if q.Text == "hold" {
		close(r.held)
		<-r.release
	}
	return search.Result{Total: 1}, nil
}

func (r *recorder) Version(context.Context) (string, error) {
	r.count("version")
	return "v1", nil
}

func (r *recorder) ReadVersionFrom(v search.LiveVersion) { r.live = v }

// layerMetric is a metric each layer registers, by the layer's name in Chain.Layers.
var layerMetric = map[string]string{
	"breaker": "mediagw_breaker_state",
	"admit":   "mediagw_admission_limit",
	"meter":   "mediagw_backend_duration_seconds",
	"cache":   "mediagw_cache_entries",
}

// TestLayers: New builds the layers the options ask for in the one order, the outermost first,
// and registers each one's metrics.
func TestLayers(t *testing.T) {
	tests := []struct {
		name string
		opts chain.Options
		want []string
	}{
		{"no cache", chain.Options{}, []string{"spell", "meter", "admit"}},
		{"cache", chain.Options{Cache: &cache.Options{}}, []string{"spell", "cache", "meter", "admit"}},
		{"engine", chain.Options{Cache: &cache.Options{}, Breaker: &breaker.Options{}}, []string{"spell", "cache", "meter", "admit", "breaker"}},
		{"engine without cache", chain.Options{Breaker: &breaker.Options{}}, []string{"spell", "meter", "admit", "breaker"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			tt.opts.Metrics = reg
			c, err := chain.New(newRecorder(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Layers, tt.want) {
				t.Errorf("layers %v, want %v", c.Layers, tt.want)
			}
			if (c.Cache != nil) != slices.Contains(tt.want, "cache") {
				t.Errorf("Chain.Cache %v with layers %v", c.Cache, tt.want)
			}
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for layer, metric := range layerMetric {
				has := slices.ContainsFunc(families, func(f *dto.MetricFamily) bool { return f.GetName() == metric })
				if has != slices.Contains(tt.want, layer) {
					t.Errorf("%s registered: %v, with layers %v", metric, has, tt.want)
				}
			}
		})
	}
}

// TestWhatEachLayerIsAsked: a repeated search is answered by the cache; a search the cache
// cannot answer takes an admission slot, and with none free it is refused; the version is asked
// below admission, so that it never waits behind searches; and a backend that reads its version
// reads it from the chain's owner.
func TestWhatEachLayerIsAsked(t *testing.T) {
	r := newRecorder()
	c, err := chain.New(r, chain.Options{Cache: &cache.Options{TTL: time.Hour}, Breaker: &breaker.Options{},
		Admit: admit.Options{Limit: 1, Queue: 1, Wait: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if r.live != c.Live {
		t.Errorf("the backend reads its version from %v, want the chain's owner", r.live)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	q := search.Query{Text: "harbour", Page: 1, PerPage: 10}
	for range 2 {
		if _, err := c.Search(ctx, search.NewRequest(q)); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.asked("search"); n != 1 {
		t.Errorf("the backend searched %d times for two equal searches, want once: the cache answers the second", n)
	}

	held := make(chan error, 1)
	go func() {
		_, err := c.Search(ctx, search.NewRequest(search.Query{Text: "hold", Page: 1, PerPage: 10}))
		held <- err
	}()
	<-r.held
	versions := r.asked("version")
	if v, err := c.Live.Ask(ctx); err != nil || v != "v1" {
		t.Errorf("version with the one slot taken: %q, %v; want v1", v, err)
	}
	if r.asked("version") == versions {
		t.Error("the version was not asked of the backend")
	}
	if _, err := c.Search(ctx, search.NewRequest(search.Query{Text: "forest", Page: 1, PerPage: 10})); !errors.Is(err, search.ErrOverloaded) {
		t.Errorf("a search with the one slot taken: %v, want ErrOverloaded", err)
	}
	close(r.release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
}
