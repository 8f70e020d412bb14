package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/elastic"
)

// pingCounter counts the engine calls /readyz makes, failing them while failing is set.
type pingCounter struct {
	search.Backend
	pings   atomic.Int64
	failing atomic.Bool
}

func (b *pingCounter) Ping(ctx context.Context) error {
	b.pings.Add(1)
	if b.failing.Load() {
		return search.ErrUnavailable
	}
	return b.Backend.Ping(ctx)
}

// TestReadyzFromLastCheck: however many probes ask, /readyz asks the engine at most once a
// second, and answers from that check meanwhile, failure included.
func TestReadyzFromLastCheck(t *testing.T) {
	b := &pingCounter{}
	h := newHarness(t, withBackend(func(inner search.Backend) search.Backend { b.Backend = inner; return b }))
	for _, tc := range []struct {
		name    string
		failing bool
		want    int
	}{
		{"ready", false, http.StatusOK},
		{"engine down", true, http.StatusServiceUnavailable},
		{"engine back", false, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.failing.Store(tc.failing)
			// The last check, made under the previous case, goes stale.
			time.Sleep(1100 * time.Millisecond)
			before := b.pings.Load()
			var wg sync.WaitGroup
			codes := make([]int, 50)
			for i := range codes {
				wg.Go(func() { codes[i] = h.get("/readyz").Code })
			}
			wg.Wait()
			for _, code := range codes {
				if code != tc.want {
					t.Fatalf("/readyz: %d, want %d", code, tc.want)
				}
			}
			if n := b.pings.Load() - before; n != 1 {
				t.Errorf("50 probes within a second asked the engine %d times, want once", n)
			}
		})
	}
}

// TestReadyzNamesMissingIndex: on the real engine, an alias with no index behind it (a name
// nothing was loaded under) makes /readyz and searches 503 naming the alias and mediactl load,
// not an engine that cannot be reached.
func TestReadyzNamesMissingIndex(t *testing.T) {
	e := servicetest.TestEngine(t)
	missing, err := elastic.New(elastic.Config{URLs: []string{e.URL(t)}, Product: elastic.Product(e.Product), Alias: servicetest.NewAlias() + "-missing"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { missing.Close() })
	h := newHarness(t, withBackend(func(search.Backend) search.Backend { return missing }))
	for _, target := range []string{"/readyz", "/?resource=items&q=harbour"} {
		p := expectProblem(t, h.get(target), http.StatusServiceUnavailable, "unavailable")
		if want := fmt.Sprintf("the search index %q does not exist", missing.Alias()); !strings.Contains(p.Detail, want) || !strings.Contains(p.Detail, "mediactl load") {
			t.Errorf("%s: detail %q, want it to say %s and how to load one", target, p.Detail, want)
		}
	}
}
