package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/catalogue/gen"
	"mediagw/search"
	"mediagw/search/admintest"
	"mediagw/search/elastic/mappings"
	"mediagw/search/searchtest"
)

// TestLoadWhileReading: readers see the old index or the new one during a swap, never an error
// and never an empty page.
func TestLoadWhileReading(t *testing.T) {
	b := newBackend(t, Config{BatchSize: 250, Keep: 1})
	first, second := searchtest.Generated(t, 3000, 1), searchtest.Generated(t, 2000, 2)
	load(t, b, first)

	ctx, stop := context.WithCancel(t.Context())
	var (
		reads    atomic.Int64
		mu       sync.Mutex
		problems []string
		wg       sync.WaitGroup
	)
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	for _, q := range []search.Query{
		{Sort: search.SortNewest, Page: 1, PerPage: 20},
		{Sort: search.SortAZ, Page: 3, PerPage: 50},
		{Text: "the", Sort: search.SortRelevance, Page: 1, PerPage: 20},
	} {
		wg.Go(func() {
			for ctx.Err() == nil {
				cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := b.Search(cctx, search.NewRequest(q))
				cancel()
				reads.Add(1)
				switch {
				case err != nil:
					report("Search(%+v): %v", q, err)
				case len(res.Items) == 0:
					report("Search(%+v): empty page, total %d", q, res.Total)
				case q.Text == "" && res.Total != len(first) && res.Total != len(second):
					report("Search(%+v): total %d, want %d or %d", q, res.Total, len(first), len(second))
				}
			}
		})
	}
	load(t, b, second)
	load(t, b, first)
	load(t, b, second)
	stop()
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	if reads.Load() == 0 {
		t.Error("the readers never ran")
	}
	res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1}))
	if err != nil || res.Total != len(second) {
		t.Errorf("after the last load: total %d, %v; want %d", res.Total, err, len(second))
	}
	st, err := b.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || !st[1].Live || st[1].Docs != int64(len(second)) || st[0].Docs != int64(len(first)) {
		t.Errorf("Status = %+v, want the live index and one kept older one", st)
	}
}

// versionNames lists b's versioned indices, oldest first.
func versionNames(t *testing.T, b *Backend) ([]string, error) {
	vs, err := b.versions(t.Context())
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.name
	}
	return names, err
}

// TestFailedPruneKeepsTheNewIndexLive: when removing old indices fails after the alias moved,
// the load reports search.ErrPrune and the new index stays live and searchable.
func TestFailedPruneKeepsTheNewIndexLive(t *testing.T) {
	deletes := &failingTransport{match: func(r *http.Request) bool { return r.Method == http.MethodDelete }}
	b := newBackend(t, Config{Keep: -1, Now: stepClock(), Transport: deletes})
	items := searchtest.Fixture(t)
	load(t, b, items[:10])
	deletes.mu.Lock()
	deletes.statuses = []int{http.StatusInternalServerError}
	deletes.mu.Unlock()
	st, err := b.Load(t.Context(), search.Values(items[:20]))
	if !errors.Is(err, search.ErrPrune) || st.Indexed != 20 {
		t.Fatalf("Load = %+v, %v; want 20 items and an error wrapping search.ErrPrune", st, err)
	}
	if v, err := b.Version(t.Context()); err != nil || v != st.Index {
		t.Errorf("alias points at %q, %v; want the new %s", v, err, st.Index)
	}
	if res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1})); err != nil || res.Total != 20 {
		t.Errorf("search after the failed prune: total %d, %v; want 20", res.Total, err)
	}
}

// lostAnswer sends every request on, and loses the answer to the ones match picks, as a timeout
// after the engine acted would.
type lostAnswer struct{ match func(*http.Request) bool }

func (l lostAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && l.match(r) {
		resp.Body.Close()
		return nil, errors.New("answer lost")
	}
	return resp, err
}

// TestAliasMovedDespiteAnError: when the _aliases call takes effect but its answer is lost, the
// load fails, and the index the alias now points at stays.
func TestAliasMovedDespiteAnError(t *testing.T) {
	b := newBackend(t, Config{Keep: -1, Now: stepClock(), Transport: lostAnswer{func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/_aliases")
	}}})
	st, err := b.Load(t.Context(), search.Values(searchtest.Fixture(t)[:10]))
	if err == nil {
		t.Fatal("Load succeeded though the answer to _aliases was lost")
	}
	if v, err := b.Version(t.Context()); err != nil || v != st.Index {
		t.Errorf("alias points at %q, %v; want %s, which it was moved to", v, err, st.Index)
	}
	if res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1})); err != nil || res.Total != 10 {
		t.Errorf("search: total %d, %v; want 10", res.Total, err)
	}
}

// TestAdminConformance holds the engine backend to search/admintest.
func TestAdminConformance(t *testing.T) {
	admintest.Run(t, admintest.Harness{
		Open: func(t *testing.T, keep int) search.Admin { return newBackend(t, Config{Keep: keep, Now: stepClock()}) },
		Unfinished: func(t *testing.T, a search.Admin, before string, by time.Duration) string {
			b := a.(*Backend)
			at, err := time.Parse("20060102-150405-000", strings.TrimPrefix(before, b.Alias()+"-"))
			if err != nil {
				t.Fatal(err)
			}
			// As createIndex leaves an index before the load fills it: refresh off.
			name := indexName(b.Alias(), at.Add(-by))
			if err := b.createIndex(t.Context(), name, b.cfg.Mapping); err != nil {
				t.Fatal(err)
			}
			return name
		},
		Serve: func(_ *testing.T, a search.Admin) search.Backend { return a.(*Backend) },
	})
}

// TestRollbackServed: searches answer from the version a rollback made live.
func TestRollbackServed(t *testing.T) {
	items := searchtest.Fixture(t)
	b := newBackend(t, Config{Keep: 1, Now: stepClock()})
	prev := load(t, b, items[:10])
	load(t, b, items[:20])
	if got, err := b.Rollback(t.Context()); err != nil || got != prev.Index {
		t.Fatalf("Rollback = %q, %v; want %q", got, err, prev.Index)
	}
	if res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 50})); err != nil || res.Total != 10 {
		t.Errorf("after Rollback: total %d, %v; want 10", res.Total, err)
	}
	if v, err := b.Version(t.Context()); err != nil || v != prev.Index {
		t.Errorf("after Rollback the alias points at %q, %v; want %q", v, err, prev.Index)
	}
}

// TestRefusedItem: a load with an item the engine refuses fails naming it, leaves the live index
// as it was and removes what it built (the other failures: search/admintest).
func TestRefusedItem(t *testing.T) {
	items := searchtest.Fixture(t)
	b := newBackend(t, Config{BatchSize: 10, Now: stepClock()})
	live := load(t, b, items)
	bad := slices.Clone(items[:20])
	bad[7].Date = "not-a-date"
	st, err := b.Load(t.Context(), search.Values(bad))
	if err == nil || !strings.Contains(err.Error(), bad[7].ID) {
		t.Errorf("Load = %+v, %v; want an error naming item %s", st, err, bad[7].ID)
	}
	if v, err := b.Version(t.Context()); err != nil || v != live.Index {
		t.Errorf("alias points at %q, %v; want %q", v, err, live.Index)
	}
	if names, err := versionNames(t, b); err != nil || !slices.Equal(names, []string{live.Index}) {
		t.Errorf("indices %v, %v; want only %s", names, err, live.Index)
	}
	if res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1})); err != nil || res.Total != len(items) {
		t.Errorf("after the failed load: total %d, %v; want %d", res.Total, err, len(items))
	}
}

// failingTransport answers the first bulk requests itself with an error status, standing for an
// engine under pressure, and passes everything else to the real engine.
// failingTransport answers the requests match picks (bulk requests when match is nil) with
// statuses, one each, then lets them through.
type failingTransport struct {
	statuses []int
	match    func(*http.Request) bool
	mu       sync.Mutex
	failed   int
}

func (f *failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.match != nil && f.match(r) || f.match == nil && strings.HasSuffix(r.URL.Path, "/_bulk") {
		f.mu.Lock()
		var status int
		if f.failed < len(f.statuses) {
			status = f.statuses[f.failed]
			f.failed++
		}
		f.mu.Unlock()
		if status != 0 {
			if r.Body != nil {
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
			}
			body := fmt.Sprintf(`{"error":{"type":"rejected_execution_exception","reason":"injected"},"status":%d}`, status)
			return &http.Response{
				StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header:  http.Header{"Content-Type": {"application/json"}},
				Body:    io.NopCloser(strings.NewReader(body)),
				Request: r,
			}, nil
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestBulkRetries: bulk requests the engine turns away for being busy or failing are sent again;
// one it refuses for a bad request fails the load at once.
func TestBulkRetries(t *testing.T) {
	items := searchtest.Fixture(t)
	busy := &failingTransport{statuses: []int{429, 503, 429}}
	b := newBackend(t, Config{Transport: busy, BatchSize: 20, RetryBackoff: time.Millisecond})
	load(t, b, items)
	if busy.failed != 3 {
		t.Errorf("%d bulk requests were turned away, want 3", busy.failed)
	}
	if res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1})); err != nil || res.Total != len(items) {
		t.Errorf("after retries: total %d, %v; want %d", res.Total, err, len(items))
	}

	refused := &failingTransport{statuses: []int{400}}
	r := newBackend(t, Config{Transport: refused, RetryBackoff: time.Millisecond})
	if _, err := r.Load(t.Context(), search.Values(items)); err == nil {
		t.Error("Load with a refused bulk request succeeded")
	}
	if refused.failed != 1 {
		t.Errorf("a refused bulk request was sent %d times, want once", refused.failed)
	}
	if names, err := versionNames(t, r); err != nil || len(names) != 0 {
		t.Errorf("after the failed first load: indices %v, %v; want none", names, err)
	}
}

// BenchmarkLoadRealData loads the real catalogue and reports items/s.
func BenchmarkLoadRealData(b *testing.B) {
	path, ok := searchtest.RealDataPath()
	if !ok {
		b.Skip("no real catalogue beside the module root")
	}
	items, _, err := catalogue.ReadAll(path, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	be := newBackend(b, Config{Keep: -1})
	b.ResetTimer()
	for b.Loop() {
		load(b, be, items)
	}
	b.ReportMetric(float64(len(items)*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkLoadGenerated streams a generated catalogue of MEDIA_BENCH_ITEMS items (default
// 20,000) into a new index and reports items/s, generation and parsing included:
//
//	MEDIA_BENCH_ITEMS=1000000 go test -run '^$' -bench LoadGenerated -benchtime 1x ./search/elastic/
func BenchmarkLoadGenerated(b *testing.B) {
	n := benchItems(b, 20000)
	be := newBackend(b, Config{Keep: -1})
	for b.Loop() {
		loadGenerated(b, be, n)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
}

// benchItems is MEDIA_BENCH_ITEMS, or def.
func benchItems(b *testing.B, def int) int {
	s := os.Getenv("MEDIA_BENCH_ITEMS")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("MEDIA_BENCH_ITEMS=%q: want a positive number", s)
	}
	return n
}

// loadGenerated loads a generated catalogue of n items (seed 1) into be, streaming it.
func loadGenerated(b *testing.B, be *Backend, n int) {
	b.Helper()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(gen.Generate(pw, n, 1)) }()
	defer pr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	st, err := be.Load(ctx, catalogue.Items(catalogue.NewReader(pr), nil))
	if err != nil || st.Indexed != n {
		b.Fatalf("Load: %d items, %v; want %d", st.Indexed, err, n)
	}
}

// TestBulkLines: the bulk body is, item by item, the action and the document as json.Marshal
// encodes them (what a plain _bulk upload sends), each on one line.
func TestBulkLines(t *testing.T) {
	items := append(searchtest.Generated(t, 200, 7), searchtest.Fixture(t)...)
	items = append(items, search.Item{ID: "odd\n\"<id>&\u2028", Title: "Ünïcode <b>&</b>\u2028", Type: search.TypePhoto})
	var enc bulkEncoder
	enc.reset()
	var want []byte
	for _, it := range items {
		if err := enc.add(it); err != nil {
			t.Fatal(err)
		}
		action, err := json.Marshal(map[string]any{"index": map[string]any{"_id": it.ID}})
		if err != nil {
			t.Fatal(err)
		}
		src, err := json.Marshal(NewDocument(it))
		if err != nil {
			t.Fatal(err)
		}
		want = append(append(append(append(want, action...), '\n'), src...), '\n')
	}
	got, lines := enc.body()
	if !bytes.Equal(got, want) {
		t.Errorf("bulk body differs from json.Marshal's lines:\n%.500s\nwant\n%.500s", got, want)
	}
	if len(lines) != len(items) || !bytes.Equal(bytes.Join(lines, nil), want) {
		t.Fatalf("%d lines for %d items, or they do not make up the body", len(lines), len(items))
	}
	for i, l := range lines {
		if bytes.Count(l, []byte("\n")) != 2 || !bytes.HasSuffix(l, []byte("\n")) {
			t.Errorf("item %d: %q is not two lines", i, l)
		}
	}
}

// TestStatusOutdated: an index built from a mapping older than the backend's is reported, so an
// operator knows to load again after an upgrade; the load's new index is current.
func TestStatusOutdated(t *testing.T) {
	items := searchtest.Fixture(t)
	meta, err := mappings.ReadMeta(mappings.Items)
	if v := meta.Version; err != nil || v != search.IndexVersion {
		t.Fatalf("mappings.ReadMeta(Items).Version = %d, %v; want search.IndexVersion, %d", v, err, search.IndexVersion)
	}
	v := meta.Version
	older := bytes.Replace(mappings.Items, []byte(fmt.Sprintf(`"mapping_version": %d`, v)), []byte(fmt.Sprintf(`"mapping_version": %d`, v-1)), 1)
	clock := stepClock()
	old := newBackend(t, Config{Mapping: older, Keep: 1, Now: clock})
	first := load(t, old, items)
	// Outdated by the version this code reads (search.IndexVersion), not by the definition a
	// backend was configured with: the one that built the index from the older file says so too.
	if st, err := old.Status(t.Context()); err != nil || len(st) != 1 || !st[0].Outdated || st[0].Version != v-1 {
		t.Errorf("Status of the backend configured with the older definition = %+v, %v; want its index outdated", st, err)
	}
	b := newBackend(t, Config{Alias: old.Alias(), Keep: 1, Now: clock})
	st, err := b.Status(t.Context())
	st = undated(t, st)
	if want := stamped(t, older, []search.IndexInfo{{Name: first.Index, Docs: int64(len(items)), Live: true, Version: v - 1, Outdated: true}}); err != nil || !slices.Equal(st, want) {
		t.Errorf("Status = %+v, %v; want %+v", st, err, want)
	}
	second := load(t, b, items)
	st, err = b.Status(t.Context())
	st = undated(t, st)
	want := append(stamped(t, older, []search.IndexInfo{{Name: first.Index, Docs: int64(len(items)), Version: v - 1, Outdated: true}}),
		stamped(t, mappings.Items, []search.IndexInfo{{Name: second.Index, Docs: int64(len(items)), Live: true, Version: v}})...)
	if err != nil || !slices.Equal(st, want) {
		t.Errorf("after a load: Status = %+v, %v; want %+v", st, err, want)
	}
}

// undated returns infos with Created zeroed, for a comparison with what a test builds, once
// each says when it was made (the time the index name holds, on the test's clock).
func undated(t *testing.T, infos []search.IndexInfo) []search.IndexInfo {
	t.Helper()
	for i := range infos {
		if infos[i].Created.IsZero() {
			t.Errorf("Status: %s says nothing of when it was made", infos[i].Name)
		}
		infos[i].Created = time.Time{}
	}
	return infos
}

// stamped returns infos with the MappingHash Status reports of indices built from the
// definition def.
func stamped(t *testing.T, def []byte, infos []search.IndexInfo) []search.IndexInfo {
	t.Helper()
	h, err := mappings.Hash(def)
	if err != nil {
		t.Fatal(err)
	}
	for i := range infos {
		infos[i].MappingHash = h
	}
	return infos
}
