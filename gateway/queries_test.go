package gateway_test

import (
	"encoding/json"
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
// pages only, under their folded text, and those that found nothing as such. With that Redis
// stopped they keep answering 200, hold their counts in process and count the failed sends; once
// a Redis answers there again, the held counts arrive. The metrics carry no text.
func TestQueryLogAcrossReplicas(t *testing.T) {
	redis := startRedisServer(t)
	backend, items := testBackend(t)
	found := querylog.Normalize(strings.Fields(items[0].Title)[0])
	const nothing = "qqqzzzxxxvvv"
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
	sent := 0
	search := func(q string, extra string) {
		t.Helper()
		resp, err := http.Get(urls[sent%2] + "/?resource=items&q=" + url.QueryEscape(q) + extra)
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
		sent++
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

	for range 4 {
		search(found, "")
		search(found, "&page=2")     // the same search read further: not counted
		search(found, "&cursor=%2A") // a walk's first page: counted
		search("  "+nothing+" ", "") // folded, trimmed
	}
	search(found, "&per_page=5")
	flush(false)
	check(querylog.Report{Searches: 4*3 + 1, NoResults: 4,
		Top:          []querylog.Count{{Text: found, N: 4*2 + 1}, {Text: nothing, N: 4}},
		TopNoResults: []querylog.Count{{Text: nothing, N: 4}}})
	// The test's Redis keeps nothing on disk: what it held goes with it.
	redis.stop()
	for range 3 {
		search(strings.ToUpper(found), "")
		search(nothing, "")
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
