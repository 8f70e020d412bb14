package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/opensearch-project/opensearch-go/v4"

	"mediagw/catalogue"
	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/searchtest"
	"mediagw/search/spell"
	"mediagw/search/text"
)

// BenchmarkAuthors is the whole authors list over a generated catalogue of MEDIA_BENCH_ITEMS
// items (default 100,000: 13,541 authors): "terms" is Authors (the Counter's partitioned terms
// aggregations, decoding, folding, sorting); "composite" is the baseline it replaced, paging a
// composite aggregation 10,000 buckets at a time, then the same folding and sorting. "cold" clears
// the engine's request cache before each list, as a new index version does, "cached" does not:
//
//	go test -run '^$' -bench Authors -benchtime 20x ./search/elastic/
func BenchmarkAuthors(b *testing.B) {
	be := benchBackend(b, 100000)
	ways := []struct {
		name    string
		authors func(context.Context) ([]search.Author, error)
	}{
		{"terms", func(ctx context.Context) ([]search.Author, error) { return be.Authors(ctx, search.Query{}) }},
		{"composite", func(ctx context.Context) ([]search.Author, error) { return compositeAuthors(ctx, be, 10000) }},
	}
	n := 0
	for _, w := range ways {
		for _, cold := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/cold=%t", w.name, cold), func(b *testing.B) {
				for b.Loop() {
					if cold {
						b.StopTimer()
						clearRequestCache(b, be)
						b.StartTimer()
					}
					authors, err := w.authors(b.Context())
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

// compositeAnswer is one page of a composite aggregation.
type compositeAnswer struct {
	answerShards
	Aggregations struct {
		Groups struct {
			AfterKey map[string]any `json:"after_key"`
			Buckets  []struct {
				Key struct {
					Key string `json:"key"`
				} `json:"key"`
				DocCount int `json:"doc_count"`
			} `json:"buckets"`
		} `json:"groups"`
	} `json:"aggregations"`
}

// compositeAuthors is the authors list by paging a composite aggregation, the baseline of
// BenchmarkAuthors.
func compositeAuthors(ctx context.Context, be *Backend, pageSize int) ([]search.Author, error) {
	out := []search.Author{}
	var after map[string]any
	for {
		comp := obj{"size": pageSize, "sources": []any{obj{"key": obj{"terms": obj{"field": "author"}}}}}
		if after != nil {
			comp["after"] = after
		}
		body, err := json.Marshal(obj{"size": 0, "track_total_hits": false, "aggs": obj{"groups": obj{"composite": comp}}})
		var page compositeAnswer
		if err := be.doSearch(ctx, "authors", body, err, &page); err != nil {
			return nil, err
		}
		g := page.Aggregations.Groups
		for _, bk := range g.Buckets {
			out = append(out, search.Author{Name: bk.Key.Key, Count: bk.DocCount})
		}
		if len(g.Buckets) < pageSize || g.AfterKey == nil {
			search.SortAuthors(out)
			return out, nil
		}
		after = g.AfterKey
	}
}

// typicalSearches are the searches the benchmarks time: text alone, with filters, none.
var typicalSearches = []struct {
	name string
	q    search.Query
}{
	{"text", search.Query{Text: "harbour", Sort: search.SortRelevance, Page: 1, PerPage: 20}},
	{"text+type", search.Query{Text: "street market night", Type: search.TypePhoto, Sort: search.SortRelevance, Page: 2, PerPage: 20}},
	{"browse", search.Query{Sort: search.SortDownloads, Page: 1, PerPage: 50}},
	{"text+dates", search.Query{Text: "river", From: "1990-01-01", To: "2005-12-31", Sort: search.SortNewest, Page: 3, PerPage: 20}},
}

// benchBackend is the backend the benchmarks but the loads' search: over MEDIA_BENCH_ALIAS, an
// alias already loaded (mediactl load) that the benchmark leaves as it is, so that repeated runs
// on a large catalogue skip its load; else over an alias of its own holding a generated catalogue
// of MEDIA_BENCH_ITEMS items (default def).
func benchBackend(b *testing.B, def int) *Backend {
	alias := os.Getenv("MEDIA_BENCH_ALIAS")
	if alias == "" {
		be := newBackend(b, Config{Keep: -1})
		loadGenerated(b, be, benchItems(b, def))
		return be
	}
	be, err := New(Config{URLs: []string{engineURL(b)}, Product: Product(servicetest.TestEngine(b).Product), Alias: alias})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { be.Close() })
	return be
}

// BenchmarkSearch is one page of a typical search through the backend over a generated
// catalogue of MEDIA_BENCH_ITEMS items (default 20,000): the engine's time, and the backend's
// own cost in -benchmem's figures (building the body, decoding the answer).
func BenchmarkSearch(b *testing.B) {
	be := benchBackend(b, 20000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := be.Search(b.Context(), search.NewRequest(typicalSearches[i%len(typicalSearches)].q)); err != nil {
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
//	MEDIA_BENCH_CATALOGUE=var/bench/catalogue-100000-1.ndjson.gz go test -run '^$' -bench LoadCatalogue -benchtime 1x ./search/elastic/
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

// BenchmarkExtras compares the search-box extras over a generated catalogue of MEDIA_BENCH_ITEMS
// items (default 100,000) or MEDIA_BENCH_ALIAS: "search/plain" is a few typical searches,
// "search/facets" the very same with all four facets (the ratio of the two is what asking for
// facets costs), and "search/<name>/plain" and "search/<name>/facets" each of them alone, as
// the facets of each are counted differently (with text or not, with filters or not); "complete" is
// completions of prefixes as a person types them; "search/neighbours" the plain searches asking for
// their words' neighbours too, "totals" a correction's count of its alternatives, "related" the
// rest:
//
//	go test -run '^$' -bench Extras -benchtime 200x ./search/elastic/
func BenchmarkExtras(b *testing.B) {
	be := benchBackend(b, 100000)
	var all search.FacetSet
	for _, f := range search.Facets {
		all |= search.FacetSet(f)
	}
	// Warm the engine's caches for both kinds first, so neither pays for the load's.
	for range 5 {
		for _, s := range typicalSearches {
			for _, facets := range []search.FacetSet{0, all} {
				q := s.q
				q.Facets = facets
				if _, err := be.Search(b.Context(), search.NewRequest(q)); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, facets := range []search.FacetSet{0, all} {
		name := "search/plain"
		if facets != 0 {
			name = "search/facets"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				q := typicalSearches[i%len(typicalSearches)].q
				q.Facets = facets
				if _, err := be.Search(b.Context(), search.NewRequest(q)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, s := range typicalSearches {
		for _, facets := range []search.FacetSet{0, all} {
			name := "search/" + s.name + "/plain"
			if facets != 0 {
				name = "search/" + s.name + "/facets"
			}
			b.Run(name, func(b *testing.B) {
				q := s.q
				q.Facets = facets
				for b.Loop() {
					if _, err := be.Search(b.Context(), search.NewRequest(q)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	texts := []string{"h", "ha", "harb", "the l", "the lighthouse", "keynote: type", "lettere da v", "без"}
	b.Run("complete", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := be.Complete(b.Context(), texts[i%len(texts)], search.DefaultCompletions); err != nil {
				b.Fatal(err)
			}
		}
	})
	q := search.Query{Text: "harbuor lighthose keynot"}
	sp := spell.New(be, spell.Options{})
	neighbours, err := sp.Neighbours(b.Context(), text.Words(q.Text))
	if err != nil {
		b.Fatal(err)
	}
	var alts []search.Alternative
	words := text.Words(q.Text)
	for w, near := range neighbours {
		for _, n := range near {
			alts = append(alts, search.Alternative{Word: w, With: n})
			words = append(words, n)
		}
	}
	matches, err := sp.Matches(b.Context(), words)
	if err != nil {
		b.Fatal(err)
	}
	// The engine expanding each word's allowance itself, then counting by the matches listed.
	for _, m := range []struct {
		name string
		m    search.Matches
	}{{"totals-expanding", nil}, {"totals", matches}} {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := be.Totals(b.Context(), search.NewRequest(q), alts, m.m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	first, err := be.Search(b.Context(), search.NewRequest(search.Query{Sort: search.SortDownloads, Page: 1, PerPage: 20}))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("related", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := be.Related(b.Context(), first.Items[i%len(first.Items)].ID, search.DefaultRelated); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWalk is searchtest.BenchWalk on a generated catalogue of MEDIA_BENCH_ITEMS items
// (default 100,000): a full cursor walk in the default order against as many first pages.
//
//	go test -run '^$' -bench Walk -benchtime 1x ./search/elastic/
func BenchmarkWalk(b *testing.B) {
	be := benchBackend(b, 100000)
	for _, q := range []search.Query{{Sort: search.SortNewest}, {Sort: search.SortAZ}} {
		b.Run(string(q.Sort), func(b *testing.B) { searchtest.BenchWalk(b, be, q) })
	}
}

// BenchmarkDecodePage decodes an engine's answer of a page of 20 hits (testdata/page-answer.json,
// 100,000 generated items): "answer" as the backend does (decodeBody), "encoding/json" the
// standard library's decoding it replaced:
//
//	go test -run '^$' -bench DecodePage ./search/elastic/
func BenchmarkDecodePage(b *testing.B) {
	body, err := os.ReadFile("testdata/page-answer.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, way := range []struct {
		name   string
		decode func(*pageAnswer) error
	}{
		{"answer", func(a *pageAnswer) error {
			return decodeBody(&opensearch.Response{Body: io.NopCloser(bytes.NewReader(body))}, a)
		}},
		{"encoding/json", func(a *pageAnswer) error { return json.Unmarshal(body, a) }},
	} {
		b.Run(way.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var a pageAnswer
				if err := way.decode(&a); err != nil {
					b.Fatal(err)
				}
				if len(a.Hits.Hits) != 20 {
					b.Fatalf("%d hits, want 20", len(a.Hits.Hits))
				}
			}
		})
	}
}
