package elastic

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"mediagw/search"
	"mediagw/search/cache"
	"mediagw/search/chain"
	"mediagw/search/curation"
	"mediagw/search/live"
)

// TestUnreadableRules: behind its chain, the backend's rules are read beside the version, an
// unchanged set by its digest alone and never decoded again; when the rules document answers 403
// (a role without <alias>_rules), the version stays known and the set read before is served, the
// cache keeps answering from memory, the failure is counted and the readiness detail says so,
// until the document reads again.
func TestUnreadableRules(t *testing.T) {
	var deny atomic.Bool
	var searches, digestReads, wholeReads atomic.Int32
	b := newBackend(t, Config{Now: stepClock(), Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		switch {
		case strings.Contains(r.URL.Path, "_rules/_doc/") && r.Method == http.MethodGet:
			if deny.Load() {
				return &http.Response{StatusCode: http.StatusForbidden, Request: r, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(`{"error":{"type":"security_exception","reason":"action [indices:data/read/get] is unauthorized"},"status":403}`))}, nil
			}
			if strings.Contains(r.URL.RawQuery, "_source_includes="+curation.StoredDigest) {
				digestReads.Add(1)
			} else {
				wholeReads.Add(1)
			}
		case strings.HasSuffix(r.URL.Path, "/_search") || strings.HasSuffix(r.URL.Path, "/_msearch"):
			searches.Add(1)
		}
		return http.DefaultTransport.RoundTrip(r)
	})})
	load(t, b, []search.Item{
		{ID: "a", Title: "Harbour at dawn", Type: search.TypePhoto, Category: "harbours", Date: "2024-01-01"},
		{ID: "b", Title: "Harbour at noon", Type: search.TypePhoto, Category: "harbours", Date: "2024-01-02"},
	})
	rules, err := curation.Parse(curation.Files{Synonyms: "harbour, port\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyRules(t.Context(), rules); err != nil {
		t.Fatalf("ApplyRules: %v", err)
	}
	const every = time.Minute
	var clk atomic.Int64
	clk.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	now := func() time.Time { return time.Unix(0, clk.Load()) }
	reg := prometheus.NewRegistry()
	c, err := chain.New(b, chain.Options{Live: live.Options{Every: every, Now: now}, Cache: &cache.Options{TTL: time.Hour}, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	tagged, err := c.Live.Ask(t.Context())
	if err != nil || !strings.HasSuffix(tagged, "+rules-"+rules.Digest()) {
		t.Fatalf("the owner holds %q, %v; want the version tagged with the rules", tagged, err)
	}
	held := c.Live.Snapshot().Rules
	// tick moves the clock past Every and waits for the owner's question in the background.
	tick := func() {
		clk.Add(int64(every))
		c.Live.Named()
		for c.Live.Asking() {
			time.Sleep(time.Millisecond)
		}
	}
	q := search.Query{Text: "port", Sort: search.SortRelevance, PerPage: 10}
	q.Normalize()
	port := func(what string) {
		t.Helper()
		if res, err := c.Search(t.Context(), search.NewRequest(q)); err != nil || res.Total != 2 {
			t.Fatalf("%s: port finds %d items, %v; want both harbours", what, res.Total, err)
		}
	}
	port("with the set read")

	wholeBefore := wholeReads.Load()
	tick()
	if got := c.Live.Snapshot().Rules; got != held || wholeReads.Load() != wholeBefore || digestReads.Load() == 0 {
		t.Errorf("an unchanged set: %d whole reads after %d, %d of its digest, decoded again %v; want its digest read alone",
			wholeReads.Load(), wholeBefore, digestReads.Load(), got != held)
	}

	deny.Store(true)
	tick()
	s := c.Live.Snapshot()
	if s.Version != tagged || s.Rules != held || s.RulesErr == nil {
		t.Errorf("rules unreadable: version %q (want %q), the set held %v, error %v", s.Version, tagged, s.Rules == held, s.RulesErr)
	}
	if d := c.ReadinessDetail(); !strings.Contains(d, "cannot be read") || !strings.Contains(d, rules.Digest()) {
		t.Errorf("readiness detail %q", d)
	}
	want := `# HELP mediagw_rules_read_failures_total Reads of the operators' synonyms and pins that failed; the set read before stays served.
# TYPE mediagw_rules_read_failures_total counter
mediagw_rules_read_failures_total 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "mediagw_rules_read_failures_total"); err != nil {
		t.Errorf("the failure metric: %v", err)
	}
	before := searches.Load()
	port("rules unreadable")
	if searches.Load() != before {
		t.Errorf("rules unreadable: a repeated search reached the engine %d times, want none (the cache answers)", searches.Load()-before)
	}

	deny.Store(false)
	tick()
	if d := c.ReadinessDetail(); d != "" || c.Live.Snapshot().RulesErr != nil {
		t.Errorf("readable again: detail %q", d)
	}
}
