package bleve

import (
	"context"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// BenchmarkFacets compares searches with and without every facet on a generated catalogue: the
// ratio is what facets cost.
func BenchmarkFacets(b *testing.B) {
	items := searchtest.Generated(b, benchItems, 1)
	be := benchBackend(b, items)
	all := search.FacetSet(0)
	for _, f := range search.Facets {
		all |= search.FacetSet(f)
	}
	word := strings.Fields(items[0].Title)[0]
	for _, bb := range []struct {
		name string
		q    search.Query
	}{
		{"newest", search.Query{Sort: search.SortNewest}},
		{"filter", search.Query{Type: search.TypePhoto, Sort: search.SortNewest}},
		{"text", search.Query{Text: word, Sort: search.SortRelevance}},
		{"text with filters", search.Query{Text: word, Type: search.ListOf(items[0].Type), From: "1990-01-01", Sort: search.SortRelevance}},
	} {
		for _, facets := range []search.FacetSet{0, all} {
			q := bb.q
			q.Page, q.PerPage, q.Facets = 1, 20, facets
			name := bb.name + "/plain"
			if facets != 0 {
				name = bb.name + "/facets"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := be.Search(context.Background(), search.NewRequest(q)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkReuse compares searches with and without the filters of reuse (licences, uses,
// formats, durations, what an item has; comma lists among them) and the licence, format and
// duration facets on a generated catalogue: each ratio to plain is what they cost.
func BenchmarkReuse(b *testing.B) {
	items := searchtest.Generated(b, benchItems, 1)
	be := benchBackend(b, items)
	facets := search.FacetSet(search.FacetLicense) | search.FacetSet(search.FacetFormat) | search.FacetSet(search.FacetDuration)
	word := strings.Fields(items[0].Title)[0]
	for _, base := range []struct {
		name string
		q    search.Query
	}{
		{"newest", search.Query{Sort: search.SortNewest}},
		{"text", search.Query{Text: word, Sort: search.SortRelevance}},
	} {
		for _, r := range []struct {
			name string
			with func(*search.Query)
		}{
			{"plain", func(*search.Query) {}},
			{"licences", func(q *search.Query) { q.License = "by,by-sa,cc0,noc-us,pdm" }},
			{"uses and thumbnail", func(q *search.Query) { q.Reuse, q.Has = "commercial,modification", "thumbnail" }},
			{"formats and durations", func(q *search.Query) { q.Format, q.Duration = "jpeg,mp4,png", "medium,short" }},
		} {
			q := base.q
			q.Page, q.PerPage = 1, 20
			r.with(&q)
			if r.name != "plain" {
				q.Facets = facets
			}
			b.Run(base.name+"/"+r.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := be.Search(context.Background(), search.NewRequest(q)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkComplete measures completions as they are typed: one letter, three, a word, and a
// second word's first letter, which the popular titles may not answer.
func BenchmarkComplete(b *testing.B) {
	items := searchtest.Generated(b, benchItems, 1)
	be := benchBackend(b, items)
	words := strings.Fields(items[1].Title)
	texts := []string{words[0][:1], words[0][:3], words[0], strings.Join(words[:min(2, len(words))], " ")[:len(words[0])+2]}
	if typed, ok := searchtest.Swapped(words[0]); ok {
		// Through a typo: the titles as typed are too few, so the prefixes one edit away are looked up.
		texts = append(texts, typed)
	}
	for _, text := range texts {
		b.Run(text, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := be.Complete(context.Background(), text, search.DefaultCompletions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchItems is the size of the benchmarks' catalogue: large enough that per-item costs dominate.
const benchItems = 20_000

func benchBackend(b *testing.B, items []search.Item) *Backend {
	b.Helper()
	be, err := NewFromItems(context.Background(), b.TempDir(), items)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = be.Close() })
	return be
}

// BenchmarkOpen measures opening a built index, which reads what facets and completions keep
// in memory (every document's facet values, date and downloads; the most downloaded titles):
// the cost of each reload.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	be, err := NewFromItems(context.Background(), dir, searchtest.Generated(b, benchItems, 1))
	if err != nil {
		b.Fatal(err)
	}
	if err := be.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		be, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := be.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
