package gateway_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"mediagw/gateway"
	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/elastic"
	"mediagw/search/searchtest"
)

// listBody is the body of resource=categories (slug, name, count) or resource=authors (name, count).
type listBody struct {
	Data []struct {
		Slug  string `json:"slug"`
		Name  string `json:"name"`
		Count int    `json:"count"`
	} `json:"data"`
	Total       int    `json:"total"`
	Attribution string `json:"attribution"`
}

// counts is a list body as slug (categories) or name (authors) -> count.
func (b listBody) counts() map[string]int {
	out := map[string]int{}
	for _, d := range b.Data {
		key := d.Slug
		if key == "" {
			key = d.Name
		}
		out[key] = d.Count
	}
	return out
}

// wantLists are the categories and authors bodies of items, as counts.
func wantLists(items []search.Item) map[string]map[string]int {
	want := map[string]map[string]int{"categories": {}, "authors": {}}
	for _, it := range items {
		if it.Category != "" {
			want["categories"][it.Category]++
		}
		if it.Author != "" {
			want["authors"][it.Author]++
		}
	}
	return want
}

// indexed is an engine serving items, how to reindex it with other items, and how to rebuild
// the live index from itself (mediactl reindex).
type indexed struct {
	backend search.Backend
	reindex func(ctx context.Context, items []search.Item) error
	rebuild func(ctx context.Context) error
}

// bleveIndex is the embedded index: a reindex is a load beside the live index and a Reload.
func bleveIndex(t *testing.T, ctx context.Context, items []search.Item) indexed {
	dir := t.TempDir()
	b, err := bleve.NewFromItems(ctx, dir, items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	reload := func(ctx context.Context, _ search.LoadStats, err error) error {
		if err != nil {
			return err
		}
		if switched, err := b.Reload(ctx); err != nil || !switched {
			return fmt.Errorf("reload: switched %v, %w", switched, err)
		}
		return nil
	}
	return indexed{backend: b, reindex: func(ctx context.Context, items []search.Item) error {
		st, err := bleve.NewLoader(dir, 2).Load(ctx, search.Values(items))
		return reload(ctx, st, err)
	}, rebuild: func(ctx context.Context) error {
		st, err := bleve.NewLoader(dir, 2).Reindex(ctx, search.ReindexOptions{})
		return reload(ctx, st, err)
	}}
}

// openSearchIndex is an alias of its own on the engine MEDIA_BACKEND names: a reindex loads a new index and moves the alias.
func openSearchIndex(t *testing.T, ctx context.Context, items []search.Item) indexed {
	e, _ := engineOf()
	b, closeIt, err := engineBackend(ctx, e, items)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := closeIt(); err != nil {
			t.Error(err)
		}
	})
	return indexed{backend: b, reindex: func(ctx context.Context, items []search.Item) error {
		_, err := b.(search.Loader).Load(ctx, search.Values(items))
		return err
	}, rebuild: func(ctx context.Context) error {
		_, err := b.(*elastic.Backend).Reindex(ctx, search.ReindexOptions{})
		return err
	}}
}

// withoutCategory is items without those of the first item's category, which it names.
func withoutCategory(items []search.Item) (rest []search.Item, gone string) {
	gone = items[0].Category
	for _, it := range items {
		if it.Category != gone {
			rest = append(rest, it)
		}
	}
	return rest, gone
}

// TestListsFollowReindex: the categories and authors bodies, kept encoded between requests, are
// those of the index served now. Once the backend answers from a new index, no client gets the
// old list, nor a 304 for its old copy, whether or not the backend answers are cached.
func TestListsFollowReindex(t *testing.T) {
	before := searchtest.Fixture(t)
	// The new catalogue drops a category and credits one item to a new author.
	after, _ := withoutCategory(before)
	after[0].Author = "Zuzana Nováková (new)"

	open, engine := bleveIndex, "bleve"
	if e, ok := engineOf(); ok {
		open, engine = openSearchIndex, e.Name
	}
	for _, cached := range []bool{true, false} {
		name := engine + "/uncached"
		if cached {
			name = engine + "/cached"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			idx := open(t, ctx, before)
			reg := prometheus.NewRegistry()
			// Every body compressible, so the kept compressed forms are checked too.
			h := newHarness(t, withBackend(func(search.Backend) search.Backend { return idx.backend }), withMetrics(reg),
				withChain(quickLive(cached)), withConfig(func(c *gateway.Config) { c.GzipMinSize = 1 }))

			old := map[string]string{}
			for _, res := range []string{"categories", "authors"} {
				old[res] = checkList(t, h, res, wantLists(before)[res])
				// Served again from the kept body: the same bytes and ETag.
				if again := checkList(t, h, res, wantLists(before)[res]); again != old[res] {
					t.Errorf("%s: ETag %s, then %s for the same list", res, old[res], again)
				}
			}

			if err := idx.reindex(ctx, after); err != nil {
				t.Fatal(err)
			}
			// A chain over OpenSearch notices the alias move at its next version check, and the
			// lists it keeps are the old ones until the new ones are built.
			for !strings.Contains(h.get("/?resource=authors").Body.String(), after[0].Author) {
				if ctx.Err() != nil {
					t.Fatal("the new list is never served")
				}
				time.Sleep(10 * time.Millisecond)
			}

			for _, res := range []string{"categories", "authors"} {
				etag := checkList(t, h, res, wantLists(after)[res])
				if etag == old[res] {
					t.Errorf("%s: the ETag %s of the old list survived the reindex", res, etag)
				}
				if rec := h.get("/?resource="+res, "If-None-Match", old[res]); rec.Code != http.StatusOK {
					t.Errorf("%s: the old copy revalidated with %d after the reindex, want 200", res, rec.Code)
				}
				if rec := h.get("/?resource="+res, "If-None-Match", etag); rec.Code != http.StatusNotModified {
					t.Errorf("%s: the current copy revalidated with %d, want 304", res, rec.Code)
				}
			}
			want := `
# HELP mediagw_http_not_modified_total Requests answered 304 Not Modified because the client's cached copy was current, by resource.
# TYPE mediagw_http_not_modified_total counter
mediagw_http_not_modified_total{resource="authors"} 1
mediagw_http_not_modified_total{resource="categories"} 1
mediagw_http_not_modified_total{resource="item"} 0
mediagw_http_not_modified_total{resource="items"} 0
mediagw_http_not_modified_total{resource="openapi"} 0
mediagw_http_not_modified_total{resource="qr"} 0
`
			if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "mediagw_http_not_modified_total"); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkList fetches a list resource plain and in each coding, checks them against want and each
// other, and returns its ETag.
func checkList(t *testing.T, h *harness, res string, want map[string]int) string {
	t.Helper()
	plain := h.get("/?resource=" + res)
	if plain.Code != http.StatusOK {
		t.Fatalf("%s: status %d", res, plain.Code)
	}
	body := decode[listBody](t, plain)
	if got := body.counts(); body.Total != len(want) || !maps.Equal(got, want) {
		t.Errorf("%s: got %d entries %v, want %v", res, body.Total, got, want)
	}
	etag := plain.Header().Get("ETag")
	for _, coding := range []string{"gzip", "br", "zstd"} {
		zipped := h.get("/?resource="+res, "Accept-Encoding", coding)
		if zipped.Code != http.StatusOK {
			t.Fatalf("%s: status %d (%s)", res, zipped.Code, coding)
		}
		if zipped.Header().Get("ETag") != etag || etag == "" {
			t.Errorf("%s: ETag %q plain, %q in %s", res, etag, zipped.Header().Get("ETag"), coding)
		}
		if got := zipped.Header().Get("Content-Encoding"); got != coding {
			t.Errorf("%s: Content-Encoding %q, want %s", res, got, coding)
		}
		if got := zipped.Header().Get("Content-Length"); got != itoa(zipped.Body.Len()) {
			t.Errorf("%s: Content-Length %s for %d bytes", res, got, zipped.Body.Len())
		}
		if !bytes.Equal(decompress(t, zipped), plain.Body.Bytes()) {
			t.Errorf("%s: the %s body is not the plain one", res, coding)
		}
	}
	return etag
}
