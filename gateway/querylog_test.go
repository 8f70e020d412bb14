package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/querylog"
	"mediagw/ratelimit"
)

// TestQueryLogAcrossReplicas: two gateways on one Redis record the searches they answer, first
// pages only, under their folded text as typed (operators included), each visitor's once, and list
// those querylog.MinVisitors visitors searched, those that found nothing as such. With that Redis
// stopped they keep answering 200, hold their counts in process and count the failed sends; once
// a Redis answers there again, the held counts arrive. The metrics carry no text.
func TestQueryLogAcrossReplicas(t *testing.T) {
	redis := startRedisServer(t)
	backend, items := testBackend(t)
	found := querylog.Normalize(strings.Fields(items[0].Title)[0])
	const nothing = "qqqzzzxxxvvv"
	const operators = `"forest path" -night`
	opt := querylog.Options{Window: time.Hour, Top: 50, Timeout: limiterTimeout, FlushInterval: time.Hour}
	var urls []string
	var recs []*querylog.Recorder
	var regs []*prometheus.Registry
	for range 2 {
		rec, err := querylog.New(redisClient(t, redis.url), opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rec.Close() })
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(rec)
		cfg := gateway.DefaultConfig()
		cfg.PublicURL = publicURL
		cfg.TrustedProxies = loopback
		cfg.RatePolicy = ratelimit.Policy{Limit: 1 << 20, Window: time.Minute}
		cfg.Queries = rec
		gw, err := gateway.New(cfg, backend, ratelimit.NewMemory(cfg.RatePolicy, nil), zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gw)
		t.Cleanup(srv.Close)
		urls, recs, regs = append(urls, srv.URL), append(recs, rec), append(regs, reg)
	}
	zero := map[string]bool{} // by text, from the answers' totals
	// search sends q for visitor number v, always to the same replica of the two.
	search := func(v int, q string, extra string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, urls[v%2]+"/?resource=items&q="+url.QueryEscape(q)+extra, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("192.0.2.%d", v))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Pagination struct{ Total int } `json:"pagination"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("q=%s%s: %d, %v", q, extra, resp.StatusCode, err)
		}
		zero[querylog.Normalize(q)] = body.Pagination.Total == 0
	}
	flush := func(wantErr bool) {
		t.Helper()
		for i, rec := range recs {
			if err := rec.Flush(t.Context()); (err != nil) != wantErr {
				t.Fatalf("replica %d: flush error %v, want one: %v", i, err, wantErr)
			}
		}
	}
	check := func(want querylog.Report) {
		t.Helper()
		if !zero[nothing] || zero[found] {
			t.Fatalf("%q found nothing: %v; %q found nothing: %v: want true, false", nothing, zero[nothing], found, zero[found])
		}
		rep, err := querylog.Read(t.Context(), redisClient(t, redis.url), opt, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		want.From = rep.From
		if !reflect.DeepEqual(rep, want) {
			t.Errorf("report %+v, want %+v", rep, want)
		}
	}

	for v := range 4 {
		search(v, found, "")
		search(v, found, "&page=2")     // the same search read further: not recorded
		search(v, found, "&cursor=%2A") // a walk's first page: recorded, the visitor's second
		search(v, "  "+nothing+" ", "") // folded, trimmed
	}
	// Operators as typed, in one normal form; the fourth visitor's twice counts once.
	search(1, operators, "")
	search(2, strings.ToUpper(operators), "")
	search(3, operators, "")
	search(3, "  "+operators, "")
	search(0, "only one visitor's", "")
	flush(false)
	opFound := zero[operators]
	want := querylog.Report{Searches: 4*3 + 4 + 1, NoResults: 4,
		Top:          []querylog.Count{{Text: found, N: 4}, {Text: nothing, N: 4}, {Text: operators, N: 3}},
		TopNoResults: []querylog.Count{{Text: nothing, N: 4}}}
	if opFound {
		want.NoResults += 4
		want.TopNoResults = append(want.TopNoResults, querylog.Count{Text: operators, N: 3})
	}
	if zero["only one visitor's"] {
		want.NoResults++
	}
	check(want)
	// The test's Redis keeps nothing on disk: what it held goes with it.
	redis.stop()
	for v := 4; v < 7; v++ {
		search(v, strings.ToUpper(found), "")
		search(v, nothing, "")
	}
	flush(true)
	for i, reg := range regs {
		if n := metricValue(t, reg, "mediagw_querylog_flush_failures_total"); n != 1 {
			t.Errorf("replica %d: %v failed flushes, want 1", i, n)
		}
	}
	redis.start()
	flush(false)

	check(querylog.Report{Searches: 3 * 2, NoResults: 3,
		Top:          []querylog.Count{{Text: found, N: 3}, {Text: nothing, N: 3}},
		TopNoResults: []querylog.Count{{Text: nothing, N: 3}}})
	for i, reg := range regs {
		families, err := reg.Gather()
		if err != nil || len(families) != 4 {
			t.Fatalf("replica %d: %d metrics (%v), want the query log's 4 counters", i, len(families), err)
		}
		for _, f := range families {
			if m := f.GetMetric(); len(m) != 1 || len(m[0].GetLabel()) != 0 {
				t.Errorf("replica %d: %s has labels or several series: %v", i, f.GetName(), m)
			}
		}
	}
}
