package bleve

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// BenchmarkSearch measures typical queries on a generated catalogue of a few thousand items.
func BenchmarkSearch(b *testing.B) {
	items := searchtest.Generated(b, 5000, 1)
	be, err := NewFromItems(context.Background(), b.TempDir(), items)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = be.Close() })
	word := items[0].Title
	if f := bytes.Fields([]byte(word)); len(f) > 0 {
		word = string(f[0])
	}
	benches := []struct {
		name string
		q    search.Query
	}{
		{"newest", search.Query{Sort: search.SortNewest}},
		{"az deep page", search.Query{Sort: search.SortAZ, Page: 90}},
		{"filters", search.Query{Type: search.TypePhoto, Language: "en", From: "1990-01-01", Sort: search.SortDownloads}},
		{"text", search.Query{Text: word, Sort: search.SortRelevance}},
		{"text two words", search.Query{Text: items[1].Title, Sort: search.SortRelevance}},
		{"text with filters", search.Query{Text: word, Type: search.ListOf(items[0].Type), Sort: search.SortRelevance}},
	}
	for _, bb := range benches {
		q := bb.q
		q.Page = max(q.Page, 1)
		q.PerPage = 20
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := be.Search(context.Background(), search.NewRequest(q)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWalk is searchtest.BenchWalk on a generated catalogue of MEDIA_BENCH_ITEMS items
// (default 100,000): a full cursor walk in the default order against as many first pages.
//
//	go test -run '^$' -bench Walk -benchtime 1x ./search/bleve/
func BenchmarkWalk(b *testing.B) {
	n := 100000
	if s := os.Getenv("MEDIA_BENCH_ITEMS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 10 {
			b.Fatalf("MEDIA_BENCH_ITEMS=%q: want a number of at least 10", s)
		}
	}
	be, err := NewFromItems(context.Background(), b.TempDir(), searchtest.Generated(b, n, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = be.Close() })
	for _, q := range []search.Query{{Sort: search.SortNewest}, {Sort: search.SortAZ}} {
		b.Run(string(q.Sort), func(b *testing.B) { searchtest.BenchWalk(b, be, q) })
	}
}
