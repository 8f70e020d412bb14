package bench

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"mediagw/gateway"
	"mediagw/params"
	"mediagw/ratelimit"
	"mediagw/search/bleve"
)

func TestBuildCompletionsIsDeterministicAndTyped(t *testing.T) {
	_, c, _ := testCatalogue(t)
	a, err := BuildCompletions(c, CompletionOptions{Seed: 3, Distinct: 200, Length: 2000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := BuildCompletions(c, CompletionOptions{Seed: 3, Distinct: 200, Length: 2000})
	if len(a.Seq) != 2000 || a.Distinct == 0 || a.Distinct > 200 {
		t.Fatalf("%d requests, %d distinct", len(a.Seq), a.Distinct)
	}
	words := map[string]bool{}
	for _, w := range c.Words {
		words[w] = true
	}
	for i, r := range a.Seq {
		if r.Query != b.Seq[i].Query {
			t.Fatalf("request %d differs between two builds: %q, %q", i, r.Query, b.Seq[i].Query)
		}
		v, err := url.ParseQuery(r.Query)
		if err != nil || r.Kind != KindSuggest || v.Get("resource") != "suggest" {
			t.Fatalf("request %d: %v %q", i, r.Kind, r.Query)
		}
		// What is typed so far: whole words, then the start of one, at least two letters of it.
		fields := strings.Fields(v.Get("q"))
		last := fields[len(fields)-1]
		if len(fields) > 2 || utf8.RuneCountInString(last) < 2 || !words[fields[0]] && len(fields) == 2 {
			t.Fatalf("request %d: q %q", i, v.Get("q"))
		}
	}
}

func TestQuoteQ(t *testing.T) {
	for query, want := range map[string]string{
		"resource=items&q=forest+path&page=2":     "resource=items&q=%22forest+path%22&page=2",
		"q=thames&resource=items":                 "q=%22thames%22&resource=items",
		"resource=items&q=%C3%A9lan&type=photo":   "resource=items&q=%22%C3%A9lan%22&type=photo",
		"resource=items&type=photo":               "resource=items&type=photo",
		"resource=items&q=&sort=az":               "resource=items&q=&sort=az",
		"resource=items&q=%20&sort=az":            "resource=items&q=%20&sort=az",
		"resource=items&sq=thames&q=ice&facets=a": "resource=items&sq=thames&q=%22ice%22&facets=a",
	} {
		if got := quoteQ(query); got != want {
			t.Errorf("quoteQ(%q) = %q, want %q", query, got, want)
		}
	}
}

// metered is a gateway on the fixture's embedded index with its metrics served, as mediagw does.
func metered(t *testing.T) (api, metrics string) {
	t.Helper()
	_, _, items := testCatalogue(t)
	b, err := bleve.NewFromItems(context.Background(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	reg := prometheus.NewRegistry()
	cfg := gateway.DefaultConfig()
	cfg.PublicURL = "http://127.0.0.1"
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	cfg.Metrics = reg
	g, err := gateway.New(cfg, b, ratelimit.NewMemory(cfg.RatePolicy, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	admin := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(admin.Close)
	return srv.URL, admin.URL + "/metrics"
}

// TestReuseQueriesAreValid: every search of the mix, with each of the reuse filters and facets
// added, is a query the API reads, asking for every filter and facet the addition names, and
// each search draws one of them, the same every time.
func TestReuseQueriesAreValid(t *testing.T) {
	_, c, _ := testCatalogue(t)
	mix, err := BuildMix(c, MixOptions{Seed: 5, Distinct: 300, Length: 1000, Without: []Kind{KindItem, KindCategories, KindAuthors}})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGateway("plain", "http://127.0.0.1/", nil, 0).WithReuse("plain" + ReuseSuffix)
	drawn := map[string]bool{}
	for _, r := range mix.Seq {
		extra := g.extraOf(r)
		if extra != g.extraOf(r) {
			t.Fatalf("%s: draws another addition when sent again", r.Query)
		}
		drawn[extra] = true
		for _, add := range reuseQueries {
			req, errs := params.ParseItems(params.Split(r.Query + add))
			if errs != nil {
				t.Fatalf("%s%s: %+v", r.Query, add, errs)
			}
			q := req.Query
			if q.Facets == 0 || q.License == "" && q.Reuse == "" && q.Format == "" && q.Duration == "" && q.Has == "" {
				t.Fatalf("%s%s: read as %+v, without the filters or facets", r.Query, add, q)
			}
		}
	}
	if len(drawn) != len(reuseQueries) {
		t.Errorf("the mix's searches drew %d of the %d additions", len(drawn), len(reuseQueries))
	}
}

// TestExtrasAndSuggestRuns replays searches with and without the extras, and completions, through
// a gateway whose metrics the run reads: every answer is a 200, and the gateway's own time covers
// every measured request and nothing else.
func TestExtrasAndSuggestRuns(t *testing.T) {
	_, c, _ := testCatalogue(t)
	api, metrics := metered(t)
	searches, err := BuildMix(c, MixOptions{Seed: 4, Distinct: 100, Length: 1000, Without: []Kind{KindItem, KindCategories, KindAuthors}})
	if err != nil {
		t.Fatal(err)
	}
	completions, err := BuildCompletions(c, CompletionOptions{Seed: 4, Distinct: 100, Length: 1000})
	if err != nil {
		t.Fatal(err)
	}
	plain := NewGateway("plain", api, NewClient(2, 10*time.Second), 100)
	extras := plain.WithExtras("plain" + ExtrasSuffix)
	phrase := plain.WithPhrase("plain" + PhraseSuffix)
	reuse := plain.WithReuse("plain" + ReuseSuffix)
	opt := RunOptions{Concurrency: 2, Duration: 400 * time.Millisecond, Rounds: 2, Warmup: 100 * time.Millisecond,
		Metrics: map[string]string{"plain": metrics, "plain+extras": metrics, "plain+phrase": metrics, "plain+reuse": metrics}}
	for _, tc := range []struct {
		mix     *Mix
		targets []Target
		kind    Kind
	}{
		{searches, []Target{plain, extras, phrase, reuse}, KindItems},
		{completions, []Target{plain}, KindSuggest},
	} {
		res, err := Run(context.Background(), tc.mix, tc.targets, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Requests == 0 || r.Status[http.StatusOK] != r.Requests || r.ByKind[tc.kind].N != int(r.Requests) {
				t.Errorf("%s: %d requests, statuses %v", r.Target, r.Requests, r.Status)
			}
			if r.Gateway == nil || r.Gateway.Own.Count != float64(r.Requests) || r.Gateway.Limiter.Count != float64(r.Requests) {
				t.Errorf("%s: %d requests measured, gateway metrics %+v", r.Target, r.Requests, r.Gateway)
			}
		}
		var out bytes.Buffer
		if err := WriteTable(&out, res); err != nil {
			t.Fatal(err)
		}
		if len(res) == 4 {
			for _, c := range []ExtrasCost{CompareExtras(res[0], res[1], Extras), CompareExtras(res[0], res[2], Phrase), CompareExtras(res[0], res[3], Reuse)} {
				if err := WriteExtrasCost(&out, c); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, want := range []string{"gateway's own time while measuring plain", "rate-limit call"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("report without %q:\n%s", want, out.String())
			}
		}
		for _, want := range []string{"plain+extras (all four facets and highlight=true) costs over plain", `plain+phrase (q's words in quotes, a phrase) costs over plain`,
			"plain+reuse (licence, use, format, duration and has filters with their facets) costs over plain"} {
			if len(res) == 4 && !strings.Contains(out.String(), want) {
				t.Errorf("no cost line %q:\n%s", want, out.String())
			}
		}
	}
}

func TestGatewayStats(t *testing.T) {
	scrape := func(own, hits string) *GatewayStats {
		t.Helper()
		text := `# TYPE mediagw_gateway_own_seconds histogram
mediagw_gateway_own_seconds_bucket{resource="items",le="0.001"} ` + own + `
mediagw_gateway_own_seconds_bucket{resource="items",le="0.002"} 100
mediagw_gateway_own_seconds_bucket{resource="items",le="+Inf"} 100
mediagw_gateway_own_seconds_sum{resource="items"} 0.1
mediagw_gateway_own_seconds_count{resource="items"} 100
mediagw_gateway_own_seconds_bucket{resource="item",le="0.001"} 10
mediagw_gateway_own_seconds_bucket{resource="item",le="0.002"} 10
mediagw_gateway_own_seconds_bucket{resource="item",le="+Inf"} 10
mediagw_gateway_own_seconds_sum{resource="item"} 0.005
mediagw_gateway_own_seconds_count{resource="item"} 10
# TYPE mediagw_cache_requests_total counter
mediagw_cache_requests_total{op="search",result="hit"} ` + hits + `
mediagw_cache_requests_total{op="search",result="miss"} 10
# TYPE mediagw_http_request_duration_seconds histogram
mediagw_http_request_duration_seconds_bucket{resource="items",le="+Inf"} 80
mediagw_http_request_duration_seconds_sum{resource="items"} 1
mediagw_http_request_duration_seconds_count{resource="items"} 80
mediagw_http_request_duration_seconds_bucket{resource="item",le="+Inf"} 20
mediagw_http_request_duration_seconds_sum{resource="item"} 1
mediagw_http_request_duration_seconds_count{resource="item"} 20
mediagw_http_request_duration_seconds_bucket{resource="readyz",le="+Inf"} 500
mediagw_http_request_duration_seconds_sum{resource="readyz"} 1
mediagw_http_request_duration_seconds_count{resource="readyz"} 500
# TYPE mediagw_backend_duration_seconds histogram
mediagw_backend_duration_seconds_bucket{op="search",le="+Inf"} 80
mediagw_backend_duration_seconds_sum{op="search"} 1
mediagw_backend_duration_seconds_count{op="search"} 80
mediagw_backend_duration_seconds_bucket{op="totals",le="+Inf"} 10
mediagw_backend_duration_seconds_sum{op="totals"} 1
mediagw_backend_duration_seconds_count{op="totals"} 10
mediagw_backend_duration_seconds_bucket{op="item",le="+Inf"} 20
mediagw_backend_duration_seconds_sum{op="item"} 1
mediagw_backend_duration_seconds_count{op="item"} 20
mediagw_backend_duration_seconds_bucket{op="ping",le="+Inf"} 500
mediagw_backend_duration_seconds_sum{op="ping"} 1
mediagw_backend_duration_seconds_count{op="ping"} 500
`
		s, err := parseStats(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := scrape("50", "30")
	if s.Own.Count != 110 || s.Own.Counts[0] != 60 {
		t.Fatalf("own summed over resources: %+v", s.Own)
	}
	// 60 of 110 under 1 ms: the median is in the first bucket, linearly.
	if got, want := s.Own.Quantile(.5), 0.001*55/60; got < want-1e-12 || got > want+1e-12 {
		t.Errorf("p50 %v, want %v", got, want)
	}
	if got := s.Own.Quantile(.99); got <= 0.001 || got > 0.002 {
		t.Errorf("p99 %v, want in the second bucket", got)
	}
	if bound, n := s.Own.Over(0.0015); bound != 0.001 || n != 50 {
		t.Errorf("over 1.5 ms: %v above %v, want 50 above the 1 ms bound", n, bound)
	}
	if rate, n := s.HitRate("search"); rate != 0.75 || n != 40 {
		t.Errorf("hit rate %v of %v", rate, n)
	}
	// 110 calls for 100 requests, the health checks and their pings left out.
	if all, byOp := s.CallsPerRequest(); math.Abs(all-1.1) > 1e-9 || byOp["totals"] != 0.1 || byOp["search"] != 0.8 || len(byOp) != 3 {
		t.Errorf("calls per request %v, %v; want 1.1: search 0.8, item 0.2, totals 0.1", all, byOp)
	}
	// What happened between two scrapes: 20 more hits and no request.
	d := scrape("50", "50").Sub(s)
	if d.Own.Count != 0 || d.Own.Quantile(.5) != 0 {
		t.Errorf("no requests between the scrapes, got %+v", d.Own)
	}
	if all, _ := d.CallsPerRequest(); all != 0 {
		t.Errorf("no requests between the scrapes, %v calls per request", all)
	}
	if rate, n := d.HitRate("search"); rate != 1 || n != 20 {
		t.Errorf("hit rate between the scrapes %v of %v, want 1 of 20", rate, n)
	}
	if sum := d.Add(d); sum.Cache["search"]["hit"] != 40 {
		t.Errorf("two stretches: %v hits, want 40", sum.Cache["search"]["hit"])
	}
}
