package opensearch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/search"
)

// BenchmarkAuthors is the whole authors list (every aggregation page, decoding, folding, sorting)
// over a generated catalogue of MEDIA_BENCH_ITEMS items (default 100,000: 13,541 authors), in
// pages of 1,000 buckets (the former size) and of CompositePageSize; "cold" clears the engine's
// request cache before each list, as a new index version does, "cached" does not:
//
//	go test -run '^$' -bench Authors -benchtime 20x ./search/opensearch/
func BenchmarkAuthors(b *testing.B) {
	be := newBackend(b, Config{Keep: -1})
	loadGenerated(b, be, benchItems(b, 100000))
	n := 0
	for _, size := range []int{1000, CompositePageSize} {
		be.pageSize = size
		for _, cold := range []bool{true, false} {
			b.Run(fmt.Sprintf("page=%d/cold=%t", size, cold), func(b *testing.B) {
				for b.Loop() {
					if cold {
						b.StopTimer()
						clearRequestCache(b, be)
						b.StartTimer()
					}
					authors, err := be.Authors(b.Context())
					if err != nil {
						b.Fatal(err)
					}
					n = len(authors)
				}
				b.ReportMetric(float64(n), "authors")
			})
		}
	}
}

// BenchmarkSearch is one page of a typical search through the backend over a generated
// catalogue of MEDIA_BENCH_ITEMS items (default 20,000): the engine's time, and the backend's
// own cost in -benchmem's figures (building the body, decoding the answer).
func BenchmarkSearch(b *testing.B) {
	be := newBackend(b, Config{Keep: -1})
	loadGenerated(b, be, benchItems(b, 20000))
	qs := []search.Query{
		{Text: "harbour", Sort: search.SortRelevance, Page: 1, PerPage: 20},
		{Text: "street market night", Type: search.TypePhoto, Sort: search.SortRelevance, Page: 2, PerPage: 20},
		{Sort: search.SortDownloads, Page: 1, PerPage: 50},
		{Text: "river", From: "1990-01-01", To: "2005-12-31", Sort: search.SortNewest, Page: 3, PerPage: 20},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := be.Search(b.Context(), qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func clearRequestCache(b *testing.B, be *Backend) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, engineURL(b)+"/"+be.Alias()+"/_cache/clear?request=true", nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("clear the request cache: %s", resp.Status)
	}
}

// BenchmarkLoadCatalogue loads the catalogue file named by MEDIA_BENCH_CATALOGUE (gzip or not)
// as `mediactl load` does, reading and validating included, and reports items/s; profile the
// loader with -cpuprofile:
//
//	MEDIA_BENCH_CATALOGUE=var/bench/catalogue-100000-1.ndjson.gz go test -run '^$' -bench LoadCatalogue -benchtime 1x ./search/opensearch/
func BenchmarkLoadCatalogue(b *testing.B) {
	path := os.Getenv("MEDIA_BENCH_CATALOGUE")
	if path == "" {
		b.Skip("MEDIA_BENCH_CATALOGUE is not set: name a catalogue file (mediactl gen makes one)")
	}
	be := newBackend(b, Config{Keep: -1})
	n := 0
	for b.Loop() {
		rc, err := catalogue.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		st, err := be.Load(b.Context(), catalogue.Items(catalogue.NewReader(rc), io.Discard))
		rc.Close()
		if err != nil {
			b.Fatal(err)
		}
		n += st.Indexed
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "items/s")
}
