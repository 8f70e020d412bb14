package bleve

import (
	"bytes"
	"context"
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
		{"text with filters", search.Query{Text: word, Type: items[0].Type, Sort: search.SortRelevance}},
	}
	for _, bb := range benches {
		q := bb.q
		q.Page = max(q.Page, 1)
		q.PerPage = 20
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := be.Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
