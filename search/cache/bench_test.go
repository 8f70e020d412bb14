package cache

import (
	"context"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/live"
	"mediagw/search/searchtest"
)

// BenchmarkCache compares each operation on a generated 20,000-item catalogue, straight from the
// engine and through the cache, asking the same question repeatedly as popular pages do. The
// OpenSearch part runs when OPENSEARCH_URL is set.
func BenchmarkCache(b *testing.B) {
	items := searchtest.Generated(b, 20_000, 1)
	ops := []struct {
		name string
		call func(ctx context.Context, b search.Backend) error
	}{
		{"categories", func(ctx context.Context, b search.Backend) error {
			_, err := b.Categories(ctx, search.Query{})
			return err
		}},
		{"authors", func(ctx context.Context, b search.Backend) error {
			_, err := b.Authors(ctx, search.Query{})
			return err
		}},
		{"search", func(ctx context.Context, b search.Backend) error {
			_, err := b.Search(ctx, search.NewRequest(search.Query{Text: items[0].Title, Sort: search.SortRelevance, Page: 1, PerPage: 20}))
			return err
		}},
		{"item", func(ctx context.Context, b search.Backend) error { _, err := b.Item(ctx, items[1].ID); return err }},
	}
	engines := []struct {
		name string
		open func(b *testing.B) search.Backend
		// every is how often the cache asks the version: at every read of the embedded index.
		every time.Duration
	}{
		{"bleve", func(b *testing.B) search.Backend { return openBleve(b, items) }, 0},
		{"opensearch", func(b *testing.B) search.Backend {
			engine := newOpenSearch(b)
			loadOpenSearch(b, engine, items)
			return engine
		}, live.DefaultEvery},
	}
	ctx := context.Background()
	for _, en := range engines {
		b.Run(en.name, func(b *testing.B) {
			engine := en.open(b)
			backends := []struct {
				name string
				b    search.Backend
			}{{"uncached", engine}, {"cached", New(engine, Options{Live: live.New(engine.Version, live.Options{Every: en.every})})}}
			for _, op := range ops {
				for _, be := range backends {
					b.Run(op.name+"/"+be.name, func(b *testing.B) {
						b.ReportAllocs()
						for b.Loop() {
							if err := op.call(ctx, be.b); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		})
	}
}
