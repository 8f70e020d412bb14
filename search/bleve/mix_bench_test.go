package bleve

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
)

// BenchmarkMix runs searches and item lookups shaped like the bench's mix (bench/mix.go: 1-3
// popular words, some with a typo, filters, sorts, pages 1-3 mostly), and the same searches with
// the four facets of the bench's extras, on the built index that MEDIA_BENCH_INDEX names, opened
// read-only; without it the benchmark skips.
//
//	MEDIA_BENCH_INDEX=$PWD/var/bench/index-100000-1 go test -run '^$' -bench Mix ./search/bleve/
func BenchmarkMix(b *testing.B) {
	dir := os.Getenv("MEDIA_BENCH_INDEX")
	if dir == "" {
		b.Skip("MEDIA_BENCH_INDEX names no built index")
	}
	be, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = be.Close() })
	h := be.cur
	rng := rand.New(rand.NewPCG(1, 2))
	qs := mixQueries(b, h, rng, 2000)
	waitRankings(b, be)
	ids := make([]string, 500)
	for i := range ids {
		res, err := be.Search(context.Background(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1 + rng.IntN(100), PerPage: 1}))
		if err != nil || len(res.Items) == 0 {
			b.Fatal(err)
		}
		ids[i] = res.Items[0].ID
	}
	searches := func(qs []search.Query) func(*testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU(b)
			i := 0
			for b.Loop() {
				if _, err := be.Search(context.Background(), search.NewRequest(qs[i%len(qs)])); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
		}
	}
	b.Run("search", searches(qs))
	// As the bench's extras ask: the same searches with the type, category, language and year facets.
	faceted := slices.Clone(qs)
	for i := range faceted {
		faceted[i].Facets = search.FacetSet(search.FacetType) | search.FacetSet(search.FacetCategory) |
			search.FacetSet(search.FacetLanguage) | search.FacetSet(search.FacetYear)
	}
	b.Run("facets", searches(faceted))
	b.Run("item", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := be.Item(context.Background(), ids[i%len(ids)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// mixQueries are n searches shaped like the bench's mix (see BenchmarkMix), drawn from rng.
func mixQueries(tb testing.TB, h *handle, rng *rand.Rand, n int) []search.Query {
	words := popularWords(tb, h, 5000)
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(words)-1))
	chance := func(perMille int) bool { return rng.IntN(1000) < perMille }
	pick := func(values []string) string { return values[rng.IntN(len(values))] }
	qs := make([]search.Query, n)
	for i := range qs {
		q := search.Query{PerPage: 20, Sort: search.SortNewest}
		if chance(750) {
			n := []int{1, 1, 1, 1, 1, 1, 2, 2, 2, 3}[rng.IntN(10)]
			ws := make([]string, n)
			for j := range ws {
				ws[j] = words[zipf.Uint64()]
			}
			if r := []rune(ws[0]); chance(30) && len(r) >= 5 {
				k := 1 + rng.IntN(len(r)-2)
				r[k], r[k+1] = r[k+1], r[k]
				ws[0] = string(r)
			}
			q.Text = strings.Join(ws, " ")
			q.Sort = search.SortRelevance
		}
		if chance(200) {
			q.Type = search.ListOf(pick(h.facets.values[0]))
		}
		if chance(180) {
			q.Category = search.ListOf(pick(h.facets.values[1]))
		}
		if chance(120) {
			q.Language = search.ListOf(pick(h.facets.values[2]))
		}
		if chance(50) {
			q.Author = h.authors[rng.IntN(min(len(h.authors), 200))].Name
		}
		if chance(80) {
			q.From = fmt.Sprintf("%04d-01-01", 1950+rng.IntN(70))
		}
		if chance(250) {
			q.Sort = []search.Sort{search.SortNewest, search.SortDownloads, search.SortAZ, search.SortOldest}[rng.IntN(4)]
		}
		if chance(150) {
			q.PerPage = 50
		}
		q.Page = []int{1, 1, 1, 1, 1, 1, 1, 2, 2, 3}[rng.IntN(10)]
		qs[i] = q
	}
	return qs
}

// popularWords are the n title terms of at least three letters in most documents.
func popularWords(tb testing.TB, h *handle, n int) []string {
	type term struct {
		t string
		n uint64
	}
	var terms []term
	err := withReader(h.idx, func(r index.IndexReader) error {
		return eachTerm(r, fieldTitle, func(t string, docs uint64) error {
			if len([]rune(t)) >= 3 {
				terms = append(terms, term{t, docs})
			}
			return nil
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.SortFunc(terms, func(a, b term) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.t, b.t)) })
	out := make([]string, 0, n)
	for _, t := range terms[:min(n, len(terms))] {
		out = append(out, t.t)
	}
	return out
}

// processCPU is the CPU time the process has used, in nanoseconds: on a shared machine the
// time a search takes moves with the others' load, its CPU far less.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
