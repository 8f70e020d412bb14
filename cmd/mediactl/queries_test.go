package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mediagw/bench"
	"mediagw/catalogue"
	"mediagw/gateway"
	"mediagw/internal/servicetest"
	"mediagw/params"
	"mediagw/querylog"
	"mediagw/ratelimit"
	"mediagw/redisconn"
	"mediagw/search"
	"mediagw/search/bleve"
)

// TestQueriesAfterTheBenchMix: the bench's request mix, sent by 20 visitors through two gateways
// that record their searches in one Redis, then mediactl queries: it counts every search with a
// text (first pages), lists the most frequent searches and those that found nothing of the texts
// querylog.MinVisitors visitors sent, with the number of visitors that sent each, within the error
// it states, and misses none that was sent by more than that allows.
func TestQueriesAfterTheBenchMix(t *testing.T) {
	redisURL := servicetest.RedisURL(t)
	ctx := t.Context()
	path := testCatalogue(t, 300)
	items, err := catalogue.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	backend, err := bleve.NewFromItems(ctx, t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	corpus, err := bench.ReadCorpus(path)
	if err != nil {
		t.Fatal(err)
	}
	mix, err := bench.BuildMix(corpus, bench.MixOptions{Seed: 7, Distinct: 200, Length: 2000})
	if err != nil {
		t.Fatal(err)
	}

	// A window of the test's own: its bucket length is in the keys' names, apart from other runs'.
	bucket := 600 + rand.IntN(3000)
	window := time.Duration(querylog.Buckets*bucket) * time.Second
	const top = 40
	envs := map[string]string{"REDIS_URL": redisURL, "MEDIA_QUERY_LOG_WINDOW": window.String(), "MEDIA_QUERY_LOG_TOP": strconv.Itoa(top)}
	client, err := redisconn.Open(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	servicetest.WaitForRedis(t, client)
	t.Cleanup(func() {
		keys, _ := client.Keys(context.Background(), fmt.Sprintf("%s{%d:*", querylog.DefaultPrefix, bucket)).Result()
		for _, k := range keys {
			client.Del(context.Background(), k)
		}
	})

	// Visitor v sends its requests to replica v%2 alone: a visitor through two replicas counts
	// on each.
	const visitors = 20
	targets := make([]*bench.Gateway, visitors)
	var recorders []*querylog.Recorder
	for replica := range 2 {
		rec, err := querylog.New(client, querylog.Options{Window: window, Top: top, Timeout: 5 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := gateway.DefaultConfig()
		cfg.PublicURL = "http://127.0.0.1"
		cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		cfg.RatePolicy = ratelimit.Policy{Limit: 1 << 20, Window: time.Minute}
		cfg.Queries = rec
		gw, err := gateway.New(cfg, backend, ratelimit.NewMemory(cfg.RatePolicy, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gw)
		defer srv.Close()
		for v := replica; v < visitors; v += 2 {
			client := &http.Client{Transport: forwardedFor{fmt.Sprintf("192.0.2.%d", v), srv.Client().Transport}}
			targets[v] = bench.NewGateway("replica", srv.URL, client, 0)
		}
		recorders = append(recorders, rec)
	}

	// sent and zero count each text's visitors: those that sent it, and those it found nothing for,
	// of each visitor's first querylog.MaxVisitorTexts texts.
	sent, zero := map[string]int64{}, map[string]int64{}
	pairs := map[string]bool{}
	texts := map[int]int{}
	var searches, zeros int64
	// First, a query with operators from three visitors: it is listed as typed.
	const operators = `"forest path" -night`
	typed := &bench.Request{Kind: bench.KindItems, Query: "resource=items&q=" + url.QueryEscape(operators)}
	seq := append([]*bench.Request{typed, typed, typed}, mix.Seq...)
	for i, r := range seq {
		if status, _, err := targets[i%visitors].Do(ctx, r, uint64(i)); err != nil || status != 200 {
			t.Fatalf("%s: status %d, %v", r.Query, status, err)
		}
		if r.Kind != bench.KindItems {
			continue
		}
		req, errs := params.ParseItems(params.Split(r.Query))
		if errs != nil {
			continue
		}
		q := req.Query
		if q.Given == "" || q.Page != 1 || (q.Cursor != "" && q.Cursor != search.StartCursor) {
			continue // not a search with a text, or not its first page
		}
		res, err := backend.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		text := querylog.Normalize(q.Given)
		searches++
		if res.Total == 0 {
			zeros++
		}
		if pair := fmt.Sprint(i%visitors, text); !pairs[pair] && texts[i%visitors] < querylog.MaxVisitorTexts {
			pairs[pair] = true
			texts[i%visitors]++
			sent[text]++
			if res.Total == 0 {
				zero[text]++
			}
		}
	}
	for _, rec := range recorders {
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if len(sent) <= top || zeros == 0 {
		t.Fatalf("the mix sent %d texts, %d searches finding nothing: want more than %d texts and some finding nothing", len(sent), zeros, top)
	}

	const n = 15
	stdout, stderr, err := mediactl(t, envs, "queries", "-n", strconv.Itoa(n))
	if err != nil {
		t.Fatalf("queries: %v\n%s", err, stderr)
	}
	t.Log(stdout)
	if want := fmt.Sprintf("%d searches, %d of them found nothing", searches, zeros); !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q", want)
	}
	lists := parseQueries(t, stdout)
	if len(lists) != 2 {
		t.Fatalf("%d lists, want 2", len(lists))
	}
	for i, truth := range []map[string]int64{sent, zero} {
		l := lists[i]
		if len(l.counts) == 0 {
			t.Errorf("%s: none listed", l.title)
		}
		listed := map[string]bool{}
		least := int64(-1)
		for _, c := range l.counts {
			listed[c.Text] = true
			if truth[c.Text] < querylog.MinVisitors {
				t.Errorf("%s: %q listed, sent by %d visitors", l.title, c.Text, truth[c.Text])
			}
			if d := c.N - truth[c.Text]; d > l.err || d < -l.err {
				t.Errorf("%s: %q counted %d, sent by %d visitors: more than %d apart", l.title, c.Text, c.N, truth[c.Text], l.err)
			}
			least = c.N
		}
		// A text left out was counted at most as often as the last one listed, or lost its
		// visitors to the sketch's evictions (at most the error, and the few it kept).
		for text, sent := range truth {
			if !listed[text] && sent >= querylog.MinVisitors && sent > l.err+querylog.MinVisitors-1 && (len(l.counts) < n || sent > least+l.err) {
				t.Errorf("%s: %q sent by %d visitors, not listed; the last listed has %d (error %d)", l.title, text, sent, least, l.err)
			}
		}
	}
	// It finds nothing in the fixture, so it leads no list but that one.
	if zero[operators] != 3 || !slices.Contains(lists[1].counts, querylog.Count{Text: operators, N: 3}) {
		t.Errorf("%s: %q sent by 3 visitors is not listed as typed, counted 3", lists[1].title, operators)
	}
	if !strings.Contains(usage, fmt.Sprintf("%d visitors", querylog.MinVisitors)) {
		t.Errorf("the usage does not say a query is listed once %d visitors sent it", querylog.MinVisitors)
	}
}

// forwardedFor sends every request as from visitor, through a proxy the gateway trusts.
type forwardedFor struct {
	visitor string
	next    http.RoundTripper
}

func (f forwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.visitor)
	return f.next.RoundTrip(r)
}

type queryList struct {
	title  string
	err    int64
	counts []querylog.Count
}

var (
	listTitle = regexp.MustCompile(`^(.+) \(each count within (\d+) of the true one\):$`)
	listRow   = regexp.MustCompile(`^\s*(\d+)\s+(".*")$`)
)

// parseQueries reads mediactl queries' lists.
func parseQueries(t *testing.T, out string) []queryList {
	t.Helper()
	var lists []queryList
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := listTitle.FindStringSubmatch(line); m != nil {
			e, _ := strconv.ParseInt(m[2], 10, 64)
			lists = append(lists, queryList{title: m[1], err: e})
			continue
		}
		if m := listRow.FindStringSubmatch(line); m != nil && len(lists) > 0 {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			text, err := strconv.Unquote(m[2])
			if err != nil {
				t.Fatalf("row %q: %v", line, err)
			}
			l := &lists[len(lists)-1]
			l.counts = append(l.counts, querylog.Count{Text: text, N: n})
		}
	}
	return lists
}
