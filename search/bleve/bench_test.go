package bleve

import (
	"bytes"
	"context"
	"testing"

	"mediagw/catalogue"
	"mediagw/search"
)

// BenchmarkSearch measures typical queries on a generated catalogue of a few thousand items.
func BenchmarkSearch(b *testing.B) {
	var buf bytes.Buffer
	if err := catalogue.Generate(&buf, 5000, 1); err != nil {
		b.Fatal(err)
	}
	var items []search.Item
	for it, err := range catalogue.Items(catalogue.NewReader(&buf), nil) {
		if err != nil {
			b.Fatal(err)
		}
		items = append(items, it)
	}
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
