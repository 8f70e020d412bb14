package bench

import (
	"bytes"
	"context"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/catalogue/gen"
	"mediagw/gateway"
	"mediagw/internal/servicetest"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/chain"
	"mediagw/search/elastic"
)

// fixture is a generated catalogue shared by the tests: its file, corpus and items.
var fixture struct {
	once   sync.Once
	dir    string
	path   string
	corpus *Corpus
	items  []search.Item
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

func testCatalogue(t testing.TB) (string, *Corpus, []search.Item) {
	t.Helper()
	fixture.once.Do(func() {
		if fixture.dir, fixture.err = os.MkdirTemp("", "bench-test-"); fixture.err != nil {
			return
		}
		fixture.path = filepath.Join(fixture.dir, "catalogue.ndjson")
		var buf bytes.Buffer
		if fixture.err = gen.Generate(&buf, 400, 7); fixture.err != nil {
			return
		}
		if fixture.err = os.WriteFile(fixture.path, buf.Bytes(), 0o600); fixture.err != nil {
			return
		}
		if fixture.corpus, fixture.err = ReadCorpus(fixture.path); fixture.err != nil {
			return
		}
		fixture.items, fixture.err = catalogue.ReadFile(fixture.path)
	})
	if fixture.err != nil {
		t.Fatalf("fixture: %v", fixture.err)
	}
	return fixture.path, fixture.corpus, fixture.items
}

func TestBuildMixIsDeterministic(t *testing.T) {
	_, c, _ := testCatalogue(t)
	opt := MixOptions{Seed: 3, Distinct: 500, Length: 5000, Alias: "a"}
	a, err := BuildMix(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildMix(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Seq {
		if a.Seq[i].Query != b.Seq[i].Query || !bytes.Equal(a.Seq[i].Direct.Body, b.Seq[i].Direct.Body) {
			t.Fatalf("request %d differs with the same seed: %q vs %q", i, a.Seq[i].Query, b.Seq[i].Query)
		}
	}
	opt.Seed = 4
	d, err := BuildMix(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i := range a.Seq {
		if a.Seq[i].Query == d.Seq[i].Query {
			same++
		}
	}
	if same == len(a.Seq) {
		t.Error("another seed gave the same sequence")
	}
}

func TestMixProportions(t *testing.T) {
	_, c, _ := testCatalogue(t)
	m, err := BuildMix(c, MixOptions{Seed: 1, Length: 100000})
	if err != nil {
		t.Fatal(err)
	}
	n := m.Count()
	for _, tc := range []struct {
		kind     Kind
		perMille int
	}{{KindItems, shareItems}, {KindItem, shareItem}, {KindCategories, shareCategories}, {KindAuthors, shareAuthors}} {
		got := 1000 * float64(n[tc.kind]) / float64(len(m.Seq))
		if d := got - float64(tc.perMille); d < -10 || d > 10 {
			t.Errorf("%s: %.1f per mille, want %d ± 10", tc.kind, got, tc.perMille)
		}
	}
	// Popular requests repeat: the sequence is far longer than its distinct requests.
	if m.Distinct >= len(m.Seq)/2 {
		t.Errorf("%d distinct requests in %d: the mix hardly repeats", m.Distinct, len(m.Seq))
	}
	var text, browse int
	for _, r := range m.Seq {
		if r.Kind != KindItems {
			continue
		}
		v, err := url.ParseQuery(r.Query)
		if err != nil {
			t.Fatalf("%q: %v", r.Query, err)
		}
		if v.Get("q") != "" {
			text++
		} else {
			browse++
		}
	}
	if text < 2*browse {
		t.Errorf("searches with text %d, without %d: a search box mostly sends text", text, browse)
	}
}

func TestMixWithout(t *testing.T) {
	_, c, _ := testCatalogue(t)
	without, err := ParseKinds("authors, categories")
	if err != nil {
		t.Fatal(err)
	}
	m, err := BuildMix(c, MixOptions{Seed: 1, Length: 5000, Without: without})
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Count(); n[KindAuthors] != 0 || n[KindCategories] != 0 || n[KindItems] == 0 || n[KindItem] == 0 {
		t.Errorf("counts %v without authors and categories", n)
	}
	if _, err := ParseKinds("items,nope"); err == nil {
		t.Error("an unknown resource was accepted")
	}
	all, _ := ParseKinds("items,item,categories,authors")
	if _, err := BuildMix(c, MixOptions{Seed: 1, Length: 10, Without: all}); err == nil {
		t.Error("a mix without any resource was built")
	}
}

// recorder is the embedded backend, noting the last question the gateway asked it.
type recorder struct {
	search.Backend
	mu  sync.Mutex
	req *search.Request
	id  string
}

func (r *recorder) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	r.mu.Lock()
	r.req = req
	r.mu.Unlock()
	return r.Backend.Search(ctx, req)
}

func (r *recorder) Item(ctx context.Context, id string) (search.Item, error) {
	r.mu.Lock()
	r.id = id
	r.mu.Unlock()
	return r.Backend.Item(ctx, id)
}

// TestDirectRequestsAreWhatTheGatewayAsks checks that a mix request's direct form is exactly the
// OpenSearch request the backend would send for what the gateway parsed from its query string,
// with what its chain adds (the languages held).
func TestDirectRequestsAreWhatTheGatewayAsks(t *testing.T) {
	_, c, items := testCatalogue(t)
	ctx := context.Background()
	b, err := bleve.NewFromItems(ctx, t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	rec := &recorder{Backend: b}
	ch, err := chain.New(rec, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Live.Ask(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ch.Live.Asking() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	srv := newGateway(t, ch, 100000)

	m, err := BuildMix(c, MixOptions{Seed: 9, Distinct: 300, Length: 3000, Alias: "x"})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGateway("gateway", srv.URL, NewClient(1, 10*time.Second), 50)
	seen := map[*Request]bool{}
	for i, r := range m.Seq {
		if seen[r] {
			continue
		}
		seen[r] = true
		status, _, err := g.Do(ctx, r, uint64(i))
		if err != nil || status != http.StatusOK {
			t.Fatalf("%s: status %d, %v", r.Query, status, err)
		}
		if r.Direct.Path != "/x/_search" || r.Direct.Method != http.MethodPost {
			t.Fatalf("%s: direct %s %s", r.Query, r.Direct.Method, r.Direct.Path)
		}
		var want []byte
		switch r.Kind {
		case KindItems:
			var req elastic.SearchRequest
			req, err = elastic.NewSearchRequest(rec.req)
			want = req.Body
		case KindItem:
			want, err = elastic.ItemRequest(rec.id)
		case KindCategories, KindAuthors:
			want := elastic.ListAuthors
			if r.Kind == KindCategories {
				want = elastic.ListCategories
			}
			if r.Direct.List == nil || *r.Direct.List != want || r.Direct.Body != nil {
				t.Errorf("%s: direct list %v, body %q; want the %s exchange", r.Query, r.Direct.List, r.Direct.Body, want)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, r.Direct.Body) {
			t.Errorf("%s:\n direct body %s\n backend's   %s", r.Query, r.Direct.Body, want)
		}
	}
	if len(seen) < 200 {
		t.Errorf("only %d distinct requests checked", len(seen))
	}
}

func newGateway(t *testing.T, b search.Backend, limit int) *httptest.Server {
	t.Helper()
	cfg := gateway.DefaultConfig()
	cfg.PublicURL = "http://127.0.0.1"
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	cfg.RatePolicy = ratelimit.Policy{Limit: limit, Window: time.Minute}
	g, err := gateway.New(cfg, b, ratelimit.NewMemory(cfg.RatePolicy, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv
}

func TestRunReportsEveryRequest(t *testing.T) {
	_, c, items := testCatalogue(t)
	b, err := bleve.NewFromItems(context.Background(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	m, err := BuildMix(c, MixOptions{Seed: 2, Distinct: 100, Length: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		qps      float64
		visitors int
		// limit is each visitor's requests a minute; limited says whether answers past it are
		// expected. One request a minute makes the second request of one visitor a 429 however
		// few requests a slow machine makes in the run (every target makes at least two).
		limit   int
		limited bool
	}{
		{"closed loop, many visitors", 0, 1000, 20, false},
		{"open loop, many visitors", 40, 1000, 20, false},
		{"closed loop, one visitor past the limit", 0, 0, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newGateway(t, b, tc.limit)
			targets := []Target{
				NewGateway("a", srv.URL, NewClient(2, 10*time.Second), tc.visitors),
				NewGateway("b", srv.URL+"/", NewClient(2, 10*time.Second), tc.visitors),
			}
			res, err := Run(context.Background(), m, targets, RunOptions{QPS: tc.qps, Concurrency: 2, Duration: 600 * time.Millisecond, Rounds: 2})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 2 || res[0].Target != "a" || res[1].Target != "b" {
				t.Fatalf("results %v, want a then b", res)
			}
			for _, r := range res {
				var n int64
				for _, c := range r.Status {
					n += c
				}
				var byKind int
				for _, l := range r.ByKind {
					byKind += l.N
				}
				if r.Requests == 0 || n != r.Requests || int64(byKind) != r.Requests {
					t.Errorf("%s: %d requests, %d by status, %d by kind", r.Target, r.Requests, n, byKind)
				}
				if r.Latency.P50 > r.Latency.P99 || r.Latency.P99 > r.Latency.Max {
					t.Errorf("%s: percentiles out of order: %+v", r.Target, r.Latency)
				}
				if _, ok := r.CPU["harness"]; !ok {
					t.Errorf("%s: the harness's CPU is not accounted: %v", r.Target, r.CPU)
				}
				if len(r.Rounds) != 2 || slices.Contains(r.Rounds, 0) {
					t.Errorf("%s: rounds' rates %v, want 2 measured", r.Target, r.Rounds)
				}
				if _, ok := machineCPU(); ok && r.Elsewhere+r.Idle <= 0 {
					t.Errorf("%s: the machine's CPU beside the watched processes is not accounted", r.Target)
				}
				if got := r.Status[http.StatusTooManyRequests] > 0; got != tc.limited {
					t.Errorf("%s: statuses %v; limited answers expected: %v", r.Target, r.Status, tc.limited)
				}
			}
			var out bytes.Buffer
			if err := WriteTable(&out, res); err != nil {
				t.Fatal(err)
			}
			if _, ok := machineCPU(); ok && !bytes.Contains(out.Bytes(), []byte("the rest of the machine")) {
				t.Errorf("table does not say where the rest of the machine's CPU went:\n%s", out.String())
			}
			if !regexp.MustCompile(`b vs a: throughput ratio [0-9.]+x \(rounds [0-9.]+x to [0-9.]+x\)`).Match(out.Bytes()) {
				t.Errorf("table has no ratio line with the rounds' spread:\n%s", out.String())
			}
		})
	}
}

func TestCompareRounds(t *testing.T) {
	res := func(throughput float64, rounds ...float64) *Result {
		return &Result{Throughput: throughput, Rounds: rounds}
	}
	for _, tc := range []struct {
		name               string
		base, r            *Result
		throughput         float64
		roundMin, roundMax float64
	}{
		{"paired rounds", res(100, 90, 110), res(90, 72, 108), 0.9, 0.8, 0.98181818},
		{"one round: no spread", res(100, 100), res(90, 90), 0.9, 0, 0},
		{"rounds unpaired", res(100, 90, 110), res(90, 90), 0.9, 0, 0},
		{"a baseline round without answers", res(100, 0, 100), res(90, 80, 100), 0.9, 0, 0},
		{"no baseline", res(0), res(90, 80, 100), 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.base, tc.r)
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
			if !near(c.Throughput, tc.throughput) || !near(c.RoundMin, tc.roundMin) || !near(c.RoundMax, tc.roundMax) {
				t.Errorf("Compare = %.4f (rounds %.4f to %.4f), want %.4f (rounds %.4f to %.4f)",
					c.Throughput, c.RoundMin, c.RoundMax, tc.throughput, tc.roundMin, tc.roundMax)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	ds := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.9, 9}, {0.99, 10}, {0.01, 1}, {1, 10}} {
		if got := quantile(ds, tc.q); got != tc.want {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestReadRSS(t *testing.T) {
	kib, err := ReadRSS(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if kib <= 0 {
		t.Errorf("RSS %d KiB", kib)
	}
	if cpu, err := ReadCPU(os.Getpid()); err != nil || cpu < 0 {
		t.Errorf("ReadCPU = %v, %v", cpu, err)
	}
	w := WatchRSS("self", os.Getpid(), time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	r := w.Stop()
	if r.N == 0 || r.Min > r.Max || r.Err != nil {
		t.Errorf("report %+v", r)
	}
}

// TestOpenSearchTargetAndLoad loads the fixture both ways, then replays every distinct request
// of a mix straight to the engine: each must be answered, and categories and authors must page
// to their end as the backend does.
func TestOpenSearchTargetAndLoad(t *testing.T) {
	u := servicetest.EngineURL(t)
	path, c, items := testCatalogue(t)
	ctx := context.Background()
	b := servicetest.OpenEngine(t, func(e servicetest.Engine, url, alias string) (*elastic.Backend, error) {
		return elastic.New(elastic.Config{URLs: []string{url}, Product: elastic.Product(e.Product), Alias: alias})
	})
	alias := b.Alias()

	docs, err := BulkDocs(path)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := PlainBulk{Client: NewClient(2, time.Minute), URL: u, Index: alias + "-plain", Batch: 100, Workers: 2}.Run(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := Loaded(ctx, "load", b, path)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Items != len(items) || loaded.Items != len(items) {
		t.Errorf("plain bulk %d items, load %d, catalogue %d", plain.Items, loaded.Items, len(items))
	}
	resp, err := http.Get(u + "/" + alias + "-plain")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the plain bulk index is left behind: status %d", resp.StatusCode)
	}

	m, err := BuildMix(c, MixOptions{Seed: 5, Distinct: 200, Length: 2000, Alias: alias})
	if err != nil {
		t.Fatal(err)
	}
	direct := NewOpenSearch("opensearch", u, NewClient(1, 10*time.Second))
	seen := map[*Request]bool{}
	for _, r := range m.Seq {
		if seen[r] {
			continue
		}
		seen[r] = true
		status, n, err := direct.Do(ctx, r, 0)
		if err != nil || status != http.StatusOK || n == 0 {
			t.Fatalf("%s: status %d, %d bytes, %v", r.Query, status, n, err)
		}
	}
	// The direct exchange reaches every author the backend lists, with the same counts.
	authors, err := b.Authors(ctx, search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, a := range authors {
		want[a.Name] = a.Count
	}
	counter := elastic.NewCounter(elastic.ListAuthors)
	for done := false; !done; {
		body, err := counter.Request()
		if err != nil {
			t.Fatal(err)
		}
		status, raw, err := direct.post(ctx, Direct{Method: http.MethodPost, Path: "/" + alias + "/_search"}, body, "", false)
		if err != nil || status != http.StatusOK {
			t.Fatalf("direct list request: status %d, %v", status, err)
		}
		if done, err = counter.Answer(raw); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]int{}
	for _, v := range counter.Values() {
		got[search.AuthorName(v.Value)] = v.Count
	}
	if !maps.Equal(got, want) {
		t.Errorf("the direct exchange counted %d authors, the backend lists %d, or their counts differ", len(got), len(want))
	}
}

func TestRunRefusesCountsFortioCannotKeep(t *testing.T) {
	m := &Mix{Seq: []*Request{{Kind: KindItems}}}
	for _, tc := range []struct {
		name string
		opt  RunOptions
		want string
	}{
		{"open loop", RunOptions{Requests: 16, QPS: 10, Concurrency: 4, Rounds: 2}, "closed loop only"},
		{"a remainder", RunOptions{Requests: 17, Concurrency: 4, Rounds: 2}, "do not split into 2 rounds of at least 4"},
		{"fewer than one a connection", RunOptions{Requests: 6, Concurrency: 4, Rounds: 2}, "do not split into 2 rounds of at least 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), m, []Target{&seqTarget{name: "a"}}, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// seqTarget answers at once, or after delay, and records the positions of the requests it was sent.
type seqTarget struct {
	name  string
	delay time.Duration
	mu    sync.Mutex
	seqs  []uint64
}

func (s *seqTarget) Name() string { return s.name }

func (s *seqTarget) Do(_ context.Context, _ *Request, seq uint64) (int, int64, error) {
	time.Sleep(s.delay)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seqs = append(s.seqs, seq)
	return http.StatusOK, 1, nil
}

// TestRunByCountReplaysTheSameRequests: with Requests set, a slow target and a fast one answer
// exactly that many requests each, warm-up and measured alike, and the very same ones.
func TestRunByCountReplaysTheSameRequests(t *testing.T) {
	m := &Mix{Seq: make([]*Request, 1000)}
	for i := range m.Seq {
		m.Seq[i] = &Request{Kind: KindItems}
	}
	fast, slow := &seqTarget{name: "fast"}, &seqTarget{name: "slow", delay: 2 * time.Millisecond}
	res, err := Run(context.Background(), m, []Target{fast, slow},
		RunOptions{Concurrency: 4, Rounds: 2, Requests: 60, Warmup: 100 * time.Millisecond, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Requests != 60 {
			t.Errorf("%s measured %d requests, want 60", r.Target, r.Requests)
		}
	}
	slices.Sort(fast.seqs)
	slices.Sort(slow.seqs)
	if len(fast.seqs) != 90 || !slices.Equal(fast.seqs, slow.seqs) {
		t.Errorf("fast was sent %d requests, slow %d; want the same 90, a round's 30 to warm up", len(fast.seqs), len(slow.seqs))
	}
}

// TestMixForms: a mix of Forms searches only words the catalogue also holds in another form.
func TestMixForms(t *testing.T) {
	_, c, _ := testCatalogue(t)
	formed := c.Formed()
	if len(formed) == 0 || len(formed) == len(c.Words) {
		t.Fatalf("%d of %d words have another form: want some, not all", len(formed), len(c.Words))
	}
	m, err := BuildMix(c, MixOptions{Seed: 1, Length: 2000, Forms: true, Without: []Kind{KindItem, KindCategories, KindAuthors}})
	if err != nil {
		t.Fatal(err)
	}
	texts := 0
	for _, r := range m.Seq {
		v, err := url.ParseQuery(r.Query)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.Fields(v.Get("q")) {
			texts++
			// The mix's typos change a word's letters, not its length.
			if !slices.ContainsFunc(formed, func(f string) bool { return f == w || len(f) == len(w) && typoOf(f, w) }) {
				t.Fatalf("%q: %q has no other form in the catalogue", r.Query, w)
			}
		}
	}
	if texts == 0 {
		t.Error("no search with words")
	}
}

// typoOf reports whether w is word with two neighbouring letters swapped (typo).
func typoOf(word, w string) bool {
	a, b := []rune(word), []rune(w)
	for i := 0; i+1 < len(a); i++ {
		if a[i] != b[i] {
			a[i], a[i+1] = a[i+1], a[i]
			return string(a) == w
		}
	}
	return false
}
