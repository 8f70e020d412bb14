//go:build attack

package attacktest

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"mediagw/internal/servicetest"
	"mediagw/search/searchtest"
)

// TestCJKBurst: eight simultaneous searches of 190 random CJK ideographs from eight visitors, the
// searches whose engine queries passed every engine's clause limit, once answered 500 and opened
// the circuit breaker for everyone: each answers 200 (no 5xx), and then another visitor's search answers
// 200 and /readyz 200. On the embedded index, on OpenSearch, and on Elasticsearch when
// ELASTICSEARCH_URL is set, each holding the shared fixture.
func TestCJKBurst(t *testing.T) {
	fixture := searchtest.FixturePath()
	// Admission sheds some of eight costly searches at once (on two CPUs, or from a visitor whose
	// searches kept the engine busy): its own cases test that, this one what the searches' queries do.
	const admitAll = "MEDIA_MAX_INFLIGHT=32"
	t.Run("embedded", func(t *testing.T) {
		env := []string{"MEDIA_BACKEND=embedded", "MEDIA_INDEX_DIR=" + t.TempDir(), admitAll}
		run(t, env, filepath.Join(build(t), "mediactl"), "load", fixture)
		cjkBurst(t, start(t, env))
	})
	for i, e := range servicetest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			if i > 0 && os.Getenv(e.Var) == "" {
				t.Skipf("%s not configured: %s", e.Product, e.Start)
			}
			cjkBurst(t, start(t, append(engineLoaded(t, e, fixture), admitAll)))
		})
	}
}

// cjkBursts is how many bursts of eight are sent: past the circuit breaker's five failures in a row.
const cjkBursts = 3

func cjkBurst(t *testing.T, s *server) {
	ctx := context.Background()
	for burst := range cjkBursts {
		statuses := make([]int, 8)
		var wg sync.WaitGroup
		for v := range statuses {
			wg.Go(func() {
				c := s.client(10 + v)
				defer c.CloseIdleConnections()
				q := searchtest.Ideographs(uint64(burst*len(statuses)+v+1), 190)
				_, statuses[v] = get(ctx, c, s.url("/?resource=items&q="+url.QueryEscape(q)))
			})
		}
		wg.Wait()
		// Answered, not refused: a search past the engines' limits is cut to fit them.
		if slices.ContainsFunc(statuses, func(status int) bool { return status != 200 }) {
			t.Errorf("burst %d: the eight visitors got %v, want 200 each\n%s", burst+1, statuses, s.logTail())
		}
	}
	c := s.client(40)
	defer c.CloseIdleConnections()
	for _, target := range []string{"/?resource=items&q=harbour", "/readyz"} {
		if _, status := get(ctx, c, s.url(target)); status != 200 {
			t.Errorf("another visitor after the bursts: %s answered %d, want 200\n%s", target, status, s.logTail())
		}
	}
}
