package gateway_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/catalogue"
	"mediagw/gateway"
	"mediagw/internal/servicetest"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/bleve"
	"mediagw/search/breaker"
	"mediagw/search/cache"
	"mediagw/search/chain"
	"mediagw/search/elastic"
	"mediagw/search/live"
	"mediagw/search/searchtest"
	"mediagw/search/spell"
)

const publicURL = "https://media.example.org"

// shared is the backend every HTTP test runs against, built once per test binary.
var shared struct {
	once  sync.Once
	dir   string
	b     search.Backend
	close func() error
	items []search.Item
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.close != nil {
		if err := shared.close(); err != nil {
			fmt.Fprintln(os.Stderr, "close backend:", err)
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// testBackend is the one place that picks the backend of the HTTP tests, over the shared fixture:
// the embedded index, or the engine MEDIA_BACKEND names (opensearch, elasticsearch) at its URL.
func testBackend(t *testing.T) (search.Backend, []search.Item) {
	t.Helper()
	shared.once.Do(func() {
		shared.items, shared.err = catalogue.ReadFile(searchtest.FixturePath())
		if shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if e, ok := engineOf(); ok {
			shared.b, shared.close, shared.err = engineBackend(ctx, e, shared.items)
			return
		}
		shared.dir, shared.err = os.MkdirTemp("", "gateway-test-")
		if shared.err != nil {
			return
		}
		var b *bleve.Backend
		b, shared.err = bleve.NewFromItems(ctx, shared.dir, shared.items)
		if shared.err == nil {
			shared.b, shared.close = b, b.Close
		}
	})
	if shared.err != nil {
		t.Fatalf("test backend: %v", shared.err)
	}
	return shared.b, shared.items
}

// engineOf is the engine MEDIA_BACKEND names, false for the embedded index.
func engineOf() (servicetest.Engine, bool) {
	return servicetest.EngineNamed(os.Getenv("MEDIA_BACKEND"))
}

// engineBackend loads items into an alias of its own on e, dropped when the tests end.
func engineBackend(ctx context.Context, e servicetest.Engine, items []search.Item) (search.Backend, func() error, error) {
	url := os.Getenv(e.Var)
	if url == "" {
		return nil, nil, fmt.Errorf("MEDIA_BACKEND=%s needs %s: %s", e.Name, e.Var, e.Start)
	}
	b, err := elastic.New(elastic.Config{URLs: []string{url}, Product: elastic.Product(e.Product), Alias: servicetest.NewAlias()})
	if err != nil {
		return nil, nil, err
	}
	release := func() error { return servicetest.Release(b) }
	if _, err := b.Load(ctx, search.Values(items)); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("load the fixture into %s: %w", e.Product, err), release())
	}
	return b, release, nil
}

// backendOf builds a backend of its own holding items, on the engine the HTTP tests run on,
// removed when t ends.
func backendOf(t *testing.T, items []search.Item) search.Backend {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var (
		b     search.Backend
		close func() error
		err   error
	)
	if e, ok := engineOf(); ok {
		b, close, err = engineBackend(ctx, e, items)
	} else {
		var bb *bleve.Backend
		if bb, err = bleve.NewFromItems(ctx, t.TempDir(), items); err == nil {
			b, close = bb, bb.Close
		}
	}
	if err != nil {
		t.Fatalf("backend of %d items: %v", len(items), err)
	}
	t.Cleanup(func() {
		if err := close(); err != nil {
			t.Errorf("close backend: %v", err)
		}
	})
	return b
}

// harness is one gateway over the test backend, with its config, limiter and log.
type harness struct {
	t       *testing.T
	h       *gateway.Gateway
	cfg     gateway.Config
	backend search.Backend
	items   map[string]search.Item
	all     []search.Item
	logs    *observer.ObservedLogs
}

type option func(*setup)

type setup struct {
	cfg     gateway.Config
	backend search.Backend
	limiter ratelimit.Decider
	// chain is the layers chain.New builds in front of the backend, as cmd/mediagw asks for them.
	chain chain.Options
}

func withConfig(f func(*gateway.Config)) option { return func(s *setup) { f(&s.cfg) } }

func withBackend(f func(search.Backend) search.Backend) option {
	return func(s *setup) { s.backend = f(s.backend) }
}

func withLimiter(l ratelimit.Decider) option { return func(s *setup) { s.limiter = l } }

// fixedNow is the limiter's clock in tests: time never moves, so counts are exact.
func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func newHarness(t *testing.T, opts ...option) *harness {
	t.Helper()
	b, items := testBackend(t)
	s := setup{cfg: gateway.DefaultConfig(), backend: sharedBackend{b}, chain: chainOptions()}
	s.cfg.PublicURL = publicURL
	s.cfg.Attribution = "Fixture data, CC0"
	s.cfg.RatePolicy = ratelimit.Policy{Limit: 1000, Window: 10 * time.Minute}
	for _, o := range opts {
		o(&s)
	}
	c, err := chain.New(s.backend, s.chain)
	if err != nil {
		t.Fatalf("chain.New: %v", err)
	}
	// The version asked once before the first request, as a replica's first readiness check
	// (Ping) asks it; a test's failing backend leaves it unknown, as it would at a start.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = c.Live.Ask(ctx)
	if err != nil {
		t.Logf("the index version is unknown at the start: %v", err)
	}
	known := err == nil
	// And the languages the index holds and the whole lists, built in the background, before the
	// calls tests count, as a replica is ready only once it holds the lists (unless its backend
	// names no version, or cannot count them).
	for (c.Live.Asking() || known && !c.ListsSettled()) && ctx.Err() == nil {
		c.Lists()
		time.Sleep(time.Millisecond)
	}
	if s.limiter == nil {
		s.limiter = ratelimit.NewMemory(s.cfg.RatePolicy, fixedNow)
	}
	core, logs := observer.New(zapcore.DebugLevel)
	h, err := gateway.New(s.cfg, c, s.limiter, zap.New(core))
	if err != nil {
		t.Fatalf("gateway.New: %v", err)
	}
	byID := map[string]search.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	return &harness{t: t, h: h, cfg: s.cfg, backend: c, items: byID, all: items, logs: logs}
}

// chainOptions are the layers cmd/mediagw asks of chain.New (cmd/internal/backends) for the
// backend of the tests: for the embedded index, its version asked at every read (it knows it
// without a call) and no matches listed (it counts by its own terms); for an engine, its version
// asked in the background and a breaker. Admission is wide enough that only a test of it refuses.
func chainOptions() chain.Options {
	o := chain.Options{Admit: admit.Options{Limit: 64, Wait: time.Second}, Spell: spell.Options{NoMatches: true}, Lists: true}
	if _, ok := engineOf(); ok {
		o.Lists = false
		// One failure more than the default before the breaker opens: the live owner's background
		// question of the languages held is an engine call too, which a failing backend fails.
		o.Live.Every, o.Spell.NoMatches = live.DefaultEvery, false
		o.Breaker = &breaker.Options{Failures: breaker.DefaultFailures + 1}
	}
	return o
}

// quickLive asks an engine's version every 20ms, so that an alias move is noticed quickly, and
// puts a cache in the chain when cached.
func quickLive(cached bool) func(*chain.Options) {
	return func(o *chain.Options) {
		if o.Live.Every != 0 {
			o.Live.Every = 20 * time.Millisecond
		}
		if cached {
			o.Cache, o.Lists = &cache.Options{}, true
		}
	}
}

// sharedBackend is the backend every harness shares: of the search.Backend it serves, it shows a
// chain nothing more, so that no chain of one test has it read the version from its owner
// (search.VersionReader, for a backend one chain owns).
type sharedBackend struct{ search.Backend }

// keepLists has the chain keep the whole lists, as a replica with a cache or the embedded index does.
func keepLists(o *chain.Options) { o.Lists = true }

// noLists has the chain keep no whole lists, so that each list request is an engine call of its own.
func noLists(o *chain.Options) { o.Lists = false }

// withChain changes the layers in front of the backend.
func withChain(f func(*chain.Options)) option { return func(s *setup) { f(&s.chain) } }

// do sends one request from the default visitor; headers come in name, value pairs.
func (h *harness) do(method, target string, headers ...string) *httptest.ResponseRecorder {
	h.t.Helper()
	req := httptest.NewRequest(method, target, nil)
	req.RemoteAddr = "203.0.113.10:40000"
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.h.ServeHTTP(rec, req)
	return rec
}

func (h *harness) get(target string, headers ...string) *httptest.ResponseRecorder {
	h.t.Helper()
	return h.do(http.MethodGet, target, headers...)
}

// search asks the backend directly, for comparing with what the API answered.
func (h *harness) search(q search.Query) search.Result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 30*time.Second)
	defer cancel()
	res, err := h.backend.Search(ctx, search.NewRequest(q))
	if err != nil {
		h.t.Fatalf("backend search %+v: %v", q, err)
	}
	return res
}

// decompress is the body of a response, uncompressed as its Content-Encoding says.
func decompress(t *testing.T, rec *httptest.ResponseRecorder) []byte {
	t.Helper()
	var r io.Reader
	switch ce := rec.Header().Get("Content-Encoding"); ce {
	case "":
		return rec.Body.Bytes()
	case "gzip":
		return gunzip(t, rec)
	case "br":
		r = brotli.NewReader(bytes.NewReader(rec.Body.Bytes()))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(rec.Body.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("Content-Encoding %q", ce)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gunzip is the body of a gzipped response, uncompressed (by the standard library).
func gunzip(t *testing.T, rec *httptest.ResponseRecorder) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %T from %q: %v", v, rec.Body.String(), err)
	}
	return v
}

// Bodies as a client reads them.

type itemsBody struct {
	Data []struct {
		ID        string   `json:"id"`
		Type      string   `json:"type"`
		Title     string   `json:"title"`
		Author    *string  `json:"author"`
		Category  *string  `json:"category"`
		Language  *string  `json:"language"`
		Date      *string  `json:"date"`
		Downloads int64    `json:"downloads"`
		Tags      []string `json:"tags"`
		Permalink string   `json:"permalink"`
	} `json:"data"`
	Pagination struct {
		Page       int `json:"page"`
		PerPage    int `json:"per_page"`
		Total      int `json:"total"`
		TotalPages int `json:"total_pages"`
		// NextCursor is there on a walk's pages only.
		NextCursor *string `json:"next_cursor"`
	} `json:"pagination"`
	Links struct {
		Self, First string
		Prev, Next  *string
		// Last is "" when null, on a walk's pages.
		Last string
	} `json:"links"`
	Attribution string `json:"attribution"`
}

func (b itemsBody) ids() []string {
	ids := make([]string, len(b.Data))
	for i, d := range b.Data {
		ids[i] = d.ID
	}
	return ids
}

type problemBody struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id"`
	Errors    []struct {
		Parameter string  `json:"parameter"`
		Value     *string `json:"value"`
		Message   string  `json:"message"`
	} `json:"errors"`
}

func (p problemBody) params() []string {
	var ps []string
	for _, e := range p.Errors {
		ps = append(ps, e.Parameter)
	}
	return ps
}

func ids(items []search.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}
