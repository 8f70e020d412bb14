package gateway

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"go.uber.org/zap"

	"mediagw/params"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/searchtest"
)

// The gateway's own cost per request, without the engine: reading the query string, building
// the envelope and encoding it. Run with -benchmem; the engine's part is measured by mediabench run.

// typicalQueries are query strings a search box sends, from the bench mix's shapes.
var typicalQueries = []string{
	"resource=items&q=harbour",
	"resource=items&q=street+market+night&type=photo&page=2",
	"resource=items&category=places&language=en&sort=downloads&per_page=50",
	"resource=items&q=lisbon&from=1990-01-01&to=2005-12-31&sort=newest&page=7",
}

func BenchmarkParseItemsQuery(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		raw := typicalQueries[i%len(typicalQueries)]
		rq := params.Split(raw)
		if _, errs := params.ParseResource(rq); errs != nil {
			b.Fatal(errs)
		}
		if _, errs := params.ParseItems(rq); errs != nil {
			b.Fatal(errs)
		}
	}
}

// BenchmarkItemsEnvelope builds and encodes the body of a 20-item page, with its Link header and
// ETag, as the items handler does after the engine answers.
func BenchmarkItemsEnvelope(b *testing.B) {
	items := searchtest.Generated(b, 20, 1)
	g := &Gateway{cfg: DefaultConfig(), baseURL: "https://media.example.org/"}
	r := search.NewRequest(search.Query{Text: "street market", Type: "photo", Sort: search.SortRelevance, Page: 2, PerPage: 20})
	b.ReportAllocs()
	var size int
	for b.Loop() {
		body := g.itemsEnvelope(r, search.Result{Items: items, Total: 1234})
		_ = linkHeader(body.Links)
		buf := getBuffer()
		if err := encodeJSON(buf, body); err != nil {
			b.Fatal(err)
		}
		_ = weakETag(buf.Bytes())
		size = buf.Len()
		putBuffer(buf)
	}
	b.ReportMetric(float64(size), "body-bytes")
}

// BenchmarkCompressEnvelope compresses an encoded page of results of about 20 KB, as a response
// to a client that accepts each coding: the gateway's (zstd, br, gzip), and for comparison the
// standard library's gzip, brotli's classic encoder and a slower brotli level. compressed-bytes is
// the size sent.
func BenchmarkCompressEnvelope(b *testing.B) {
	items := searchtest.Generated(b, 50, 1)
	g := &Gateway{cfg: DefaultConfig(), baseURL: "https://media.example.org/"}
	body := itemsBody{Data: []itemSummary{}}
	var strs nullables
	for _, it := range items {
		body.Data = append(body.Data, g.summary(it, &strs))
		if len(body.Data) >= 20 {
			var probe bytes.Buffer
			if encodeJSON(&probe, body) == nil && probe.Len() >= 20<<10 {
				break
			}
		}
	}
	var raw bytes.Buffer
	if err := encodeJSON(&raw, body); err != nil {
		b.Fatal(err)
	}
	// Each comparison reuses one writer, as the gateway's pools do.
	reused := func(w resetWriter) func(*bytes.Buffer, []byte) error {
		return func(buf *bytes.Buffer, p []byte) error {
			w.Reset(buf)
			if _, err := w.Write(p); err != nil {
				return err
			}
			return w.Close()
		}
	}
	stdlib := func(level int) func(*bytes.Buffer, []byte) error {
		zw, _ := stdgzip.NewWriterLevel(nil, level) // a valid level: no error
		return reused(zw)
	}
	gateway := func(e encoding) func(*bytes.Buffer, []byte) error {
		return func(buf *bytes.Buffer, p []byte) error { return compressTo(buf, e, p) }
	}
	for _, bc := range []struct {
		name     string
		compress func(*bytes.Buffer, []byte) error
	}{
		{"zstd", gateway(encZstd)},
		{"br", gateway(encBrotli)},
		{"gzip", gateway(encGzip)},
		{"stdlib-gzip", stdlib(stdgzip.BestSpeed)},
		{"stdlib-gzip-default", stdlib(stdgzip.DefaultCompression)},
		{"br-classic-level-1", reused(brotli.NewWriterLevel(nil, 1))},
		{"br-level-3", reused(brotli.NewWriterV2(nil, 3))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(raw.Len()))
			var size int
			for b.Loop() {
				buf := getBuffer()
				if err := bc.compress(buf, raw.Bytes()); err != nil {
					b.Fatal(err)
				}
				size = buf.Len()
				putBuffer(buf)
			}
			b.ReportMetric(float64(size), "compressed-bytes")
			b.ReportMetric(float64(raw.Len()), "body-bytes")
		})
	}
}

// listBackend answers categories and authors with the same slices on every call, as search/cache
// does for one index version; the other operations are not used by the list benchmarks.
type listBackend struct {
	search.Backend
	cats    []search.Category
	authors []search.Author
}

func (b listBackend) Categories(context.Context, search.Query) ([]search.Category, error) {
	return b.cats, nil
}
func (b listBackend) Authors(context.Context, search.Query) ([]search.Author, error) {
	return b.authors, nil
}

// discardWriter is a ResponseWriter that keeps the headers and counts the body, so a benchmark
// measures the gateway and not a recorder's copy of the body.
type discardWriter struct {
	h    http.Header
	n    int
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// benchLists is a backend with n authors (some with accented names, as the catalogue has) and
// the categories of the generated catalogue.
func benchLists(n int) listBackend {
	b := listBackend{authors: make([]search.Author, n)}
	for i := range b.authors {
		name := fmt.Sprintf("Author %06d", i)
		if i%7 == 0 {
			name = fmt.Sprintf("Zoë Ångström-Müller %06d", i)
		}
		b.authors[i] = search.Author{Name: name, Count: 1 + i%97}
	}
	for i := range 40 {
		b.cats = append(b.cats, search.Category{Slug: fmt.Sprintf("category-%02d", i), Name: fmt.Sprintf("Category %02d", i), Count: 1000 + i})
	}
	return b
}

// BenchmarkListRequest serves whole categories and authors requests (100,000 authors) whose
// backend answer is already cached: with and without gzip, and a revalidation (304).
func BenchmarkListRequest(b *testing.B) {
	backend := benchLists(100_000)
	g := listGateway(b, backend)
	for _, resource := range []string{params.ResourceCategories, params.ResourceAuthors} {
		target := "/?resource=" + resource
		probe := &discardWriter{h: http.Header{}}
		g.ServeHTTP(probe, httptest.NewRequest(http.MethodGet, target, nil))
		etag := probe.h.Get("ETag")
		for _, tc := range []struct {
			name    string
			headers []string
			status  int
		}{
			{"identity", nil, http.StatusOK},
			{"gzip", []string{"Accept-Encoding", "gzip"}, http.StatusOK},
			{"not-modified", []string{"Accept-Encoding", "gzip", "If-None-Match", etag}, http.StatusNotModified},
		} {
			b.Run(resource+"/"+tc.name, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, target, nil)
				for i := 0; i+1 < len(tc.headers); i += 2 {
					req.Header.Set(tc.headers[i], tc.headers[i+1])
				}
				w := serveLoop(b, g, req, tc.status)
				b.ReportMetric(float64(w.n), "body-bytes")
			})
		}
	}
}

// BenchmarkListQuery serves the list queries a picker sends over 111,824 authors (a 1,000,000-item
// catalogue's) whose backend answer is already cached: pages of 50 by name and by count, a deep
// page, name searches; and "first" the first of them after a reindex, which also builds the list's
// index (folds every name once, orders by count).
//
//	go test -run '^$' -bench ListQuery -benchtime 200x ./gateway/
func BenchmarkListQuery(b *testing.B) {
	backend := benchLists(111_824)
	g := listGateway(b, &backend)
	lists := [2][]search.Author{backend.authors, slices.Clone(backend.authors)}
	lists[1][0].Count++
	for _, tc := range []struct {
		name, query string
		first       bool
	}{
		{"name", "per_page=50", false},
		{"count", "per_page=50&sort=count", false},
		{"deep", "page=2000&per_page=50", false},
		{"search", "per_page=50&q=zo", false},
		{"search-two-words", "per_page=50&q=zoe+angstrom-m", false},
		{"first/count", "per_page=50&sort=count", true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/?resource=authors&"+tc.query, nil)
			alternate := lists[:1]
			if tc.first {
				alternate = lists[:]
			}
			serveLists(b, g, req, &backend, alternate)
		})
	}
}

// BenchmarkAuthorsAfterReindex serves the first authors request after each reindex (100,000
// authors): the backend answers a different list every time, so the gateway encodes it (and
// gzips it) again. What the first visitor waits for on top of the engine.
func BenchmarkAuthorsAfterReindex(b *testing.B) {
	backend := benchLists(100_000)
	lists := [2][]search.Author{backend.authors, slices.Clone(backend.authors)}
	lists[1][0].Count++
	g := listGateway(b, &backend)
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/?resource=authors", nil)
			if enc == "gzip" {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			b.ReportAllocs()
			serveLists(b, g, req, &backend, lists[:])
		})
	}
}

// listGateway is a gateway in front of backend that never limits a visitor.
func listGateway(b *testing.B, backend search.Backend) *Gateway {
	b.Helper()
	cfg := DefaultConfig()
	cfg.PublicURL = "https://media.example.org"
	cfg.RatePolicy = ratelimit.Policy{Limit: 1 << 30, Window: time.Hour}
	g, err := New(cfg, backend, ratelimit.NewMemory(cfg.RatePolicy, time.Now), zap.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// serveLists serves req in a loop, the backend answering each of lists in turn, and reports the
// body's size.
func serveLists(b *testing.B, g *Gateway, req *http.Request, backend *listBackend, lists [][]search.Author) {
	w := &discardWriter{}
	for i := 0; b.Loop(); i++ {
		backend.authors = lists[i%len(lists)]
		w.h, w.n, w.code = http.Header{}, 0, 0
		g.ServeHTTP(w, req)
	}
	if w.code != http.StatusOK {
		b.Fatalf("status %d", w.code)
	}
	b.ReportMetric(float64(w.n), "body-bytes")
}

// fixedLimiter answers every request with the same decision.
type fixedLimiter struct{ allowed bool }

func (l fixedLimiter) Allow(context.Context, string) (ratelimit.Decision, error) {
	if l.allowed {
		return ratelimit.Decision{Allowed: true, Limit: 100, Remaining: 99, ResetAfter: time.Second}, nil
	}
	return ratelimit.Decision{Limit: 100, RetryAfter: time.Minute, ResetAfter: time.Minute}, nil
}

// BenchmarkOversizedQuery serves about 1 MB of query string, 150,000 distinct keys (what net/http
// lets through with its default MaxHeaderBytes), to a visitor within the limit and to one over
// it: what an attacker costs the gateway per request, which the query bounds (params.MaxBytes,
// params.MaxParams) keep small.
func BenchmarkOversizedQuery(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("/?resource=items")
	for i := range 150_000 {
		sb.WriteString("&" + strconv.FormatInt(int64(i), 36) + "=1")
	}
	req := httptest.NewRequest(http.MethodGet, sb.String(), nil)
	cfg := DefaultConfig()
	cfg.PublicURL = "https://media.example.org"
	for _, tc := range []struct {
		name    string
		allowed bool
		status  int
	}{
		{"within-limit", true, http.StatusRequestURITooLong},
		{"over-limit", false, http.StatusTooManyRequests},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g, err := New(cfg, listBackend{}, fixedLimiter{tc.allowed}, zap.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			serveLoop(b, g, req, tc.status)
		})
	}
}

// serveLoop serves req with g in the benchmark's loop and checks the status of the last answer.
func serveLoop(b *testing.B, g http.Handler, req *http.Request, status int) *discardWriter {
	b.Helper()
	b.ReportAllocs()
	w := &discardWriter{}
	for b.Loop() {
		w.h, w.n, w.code = http.Header{}, 0, 0
		g.ServeHTTP(w, req)
	}
	if w.code != status {
		b.Fatalf("status %d, want %d", w.code, status)
	}
	return w
}
