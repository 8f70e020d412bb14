package gateway

import (
	"bytes"
	"testing"

	"mediagw/catalogue"
	"mediagw/search"
)

// The gateway's own cost per request, without the engine: reading the query string, building
// the envelope and encoding it. Run with -benchmem; the engine's part is measured by mediactl bench.

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
		rq := splitQuery(raw)
		if _, errs := parseResource(rq); errs != nil {
			b.Fatal(errs)
		}
		if _, errs := parseItems(rq); errs != nil {
			b.Fatal(errs)
		}
	}
}

// envelopeItems is one page of generated items.
func envelopeItems(b *testing.B, n int) []search.Item {
	b.Helper()
	var buf bytes.Buffer
	if err := catalogue.Generate(&buf, max(n, 10), 1); err != nil {
		b.Fatal(err)
	}
	r := catalogue.NewReader(&buf)
	out := make([]search.Item, 0, n)
	for len(out) < n {
		it, err := r.Next()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// BenchmarkItemsEnvelope builds and encodes the body of a 20-item page, with its Link header and
// ETag, as the items handler does after the engine answers.
func BenchmarkItemsEnvelope(b *testing.B) {
	items := envelopeItems(b, 20)
	g := &Gateway{cfg: DefaultConfig(), baseURL: "https://media.example.org/"}
	q := search.Query{Text: "street market", Type: "photo", Sort: search.SortRelevance, Page: 2, PerPage: 20}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		l, totalPages := g.pageLinks(q, 1234)
		body := itemsBody{
			Data:        make([]itemSummary, 0, len(items)),
			Pagination:  pagination{Page: q.Page, PerPage: q.PerPage, Total: 1234, TotalPages: totalPages},
			Links:       l,
			Attribution: g.cfg.Attribution,
		}
		for _, it := range items {
			body.Data = append(body.Data, g.summary(it))
		}
		_ = linkHeader(l)
		raw, err := encodeJSON(body)
		if err != nil {
			b.Fatal(err)
		}
		_ = weakETag(raw)
		size = len(raw)
	}
	b.ReportMetric(float64(size), "body-bytes")
}

// BenchmarkGzipEnvelope compresses an encoded 20-item page, as a response to a client that
// accepts gzip.
func BenchmarkGzipEnvelope(b *testing.B) {
	items := envelopeItems(b, 20)
	g := &Gateway{cfg: DefaultConfig(), baseURL: "https://media.example.org/"}
	body := itemsBody{Data: []itemSummary{}}
	for _, it := range items {
		body.Data = append(body.Data, g.summary(it))
	}
	raw, err := encodeJSON(body)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := gzipBytes(raw); err != nil {
			b.Fatal(err)
		}
	}
}
