package elastic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
	"mediagw/search/pace"
)

// Reindex builds a new index "<alias>-<UTC time>" from the index definition opts.Definition
// (nil: the configured one) with the items of the live index, copied through this process on
// every engine line (the Elasticsearch distribution with core modules only has no _reindex):
// the live index is read in pages (see stored) while the previous pages are written by the
// load's bulk writer (fill: its batches, workers and retries), and each item becomes its
// document by NewDocument, as in a load, so the copy is made by this mediagw's rules whatever
// built the live one. opts.Rate caps the items copied per second (search/pace).
//
// The new index must hold as many documents as the live one; then the alias moves from the
// live index to it in one _aliases call. Older indices are kept and pruned as by Load, so
// Rollback brings the live one back. opts.Progress, when not nil, is called as bulk requests
// succeed with how many items the new index has taken (done) of the total the live one holds.
//
// A definition the backend cannot use fails before anything changes. If ctx ends or any step
// fails, the alias is left as it was and the new index deleted.
func (b *Backend) Reindex(ctx context.Context, opts search.ReindexOptions) (stats search.LoadStats, err error) {
	def := opts.Definition
	if def == nil {
		def = b.cfg.Mapping
	}
	refresh, err := b.checkDefinition(def)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	start := b.cfg.Now()
	live, err := b.aliasTargets(ctx)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	if len(live) != 1 {
		return stats, fmt.Errorf("reindex: alias %s points at %d indices, want one (mediactl load builds the first)", b.cfg.Alias, len(live))
	}
	source := live[0]
	want, err := b.count(ctx, source)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	page, err := b.pageSize(ctx, source)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	name := indexName(b.cfg.Alias, start)
	stats.Index = name
	if err := b.createIndex(ctx, name, def); err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	// isLive: the alias points at the new index (see Load).
	isLive := false
	defer func() {
		if err != nil && !isLive {
			err = errors.Join(err, b.discard(ctx, name))
		}
	}()

	n, err := b.fill(ctx, name, pace.Items(ctx, b.stored(ctx, source, page), opts.Rate), counter(opts.Progress, want))
	if err != nil {
		return stats, fmt.Errorf("reindex %s into %s: %w", source, name, err)
	}
	if int64(n) != want {
		return stats, fmt.Errorf("reindex %s into %s: read %d documents of the %d the live index holds", source, name, n, want)
	}
	count, err := b.seal(ctx, name, refresh)
	if err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	if count != want {
		return stats, fmt.Errorf("reindex %s into %s: the new index holds %d documents, the live one %d", source, name, count, want)
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("reindex %s: %w", name, err)
	}
	// From the live index only: if a load or rollback moved the alias meanwhile, this fails
	// rather than replace the newer index with a copy of the older.
	if err := b.moveAlias(ctx, []string{source}, name); err != nil {
		return stats, fmt.Errorf("reindex: %w", err)
	}
	isLive = true
	stats.Indexed = int(count)
	stats.Duration = b.cfg.Now().Sub(start)
	if err := b.prune(ctx, name); err != nil {
		return stats, fmt.Errorf("reindex %s is live, but %w: %w", name, search.ErrPrune, err)
	}
	return stats, nil
}

// counter adds up the items bulk requests wrote, which fill reports from several workers, and
// calls progress with the sum of total, one call at a time; nil when progress is.
func counter(progress func(done, total int64), total int64) func(written int) {
	if progress == nil {
		return nil
	}
	var mu sync.Mutex
	done := int64(0)
	return func(written int) {
		mu.Lock()
		defer mu.Unlock()
		done += int64(written)
		progress(done, total)
	}
}

// checkDefinition checks that def is an index definition the backend's queries can use, and
// returns its refresh interval.
func (b *Backend) checkDefinition(def []byte) (any, error) {
	if err := mappings.Check(def); err != nil {
		return nil, fmt.Errorf("index definition: %w", err)
	}
	meta, err := mappings.ReadMeta(def)
	if err != nil {
		return nil, err
	}
	if meta.Version < search.IndexVersion {
		return nil, fmt.Errorf("index definition: its _meta.mapping_version %d is older than this mediagw's %d: it lacks fields the queries read (start from mappings/items.json)",
			meta.Version, search.IndexVersion)
	}
	return mappings.RefreshInterval(def)
}

// defaultResultWindow is the engines' index.max_result_window where a definition sets none: the
// most documents one search returns.
const defaultResultWindow = 10000

// pageSize is how many documents a page of stored holds for index: five bulk requests' items,
// but no more than the index's max_result_window lets one search return. Much of what a page
// costs the engine does not grow with its size, so larger pages read the index in less of its
// time (docs/performance.md).
func (b *Backend) pageSize(ctx context.Context, index string) (int, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Indices.Settings.Get(ctx, &opensearchapi.SettingsGetReq{Indices: []string{index}, Settings: []string{"index.max_result_window"}})
	if err != nil {
		return 0, fmt.Errorf("settings of %s: %w", index, failed(ctx, b.name(), "get settings", resp, err))
	}
	var settings struct {
		Index struct {
			Window string `json:"max_result_window"`
		} `json:"index"`
	}
	// An index whose definition does not set it has no settings to show.
	if raw := resp.GetIndices()[index].Settings; len(raw) > 0 {
		if err := json.Unmarshal(raw, &settings); err != nil {
			return 0, fmt.Errorf("settings of %s: %w", index, err)
		}
	}
	window := defaultResultWindow
	if settings.Index.Window != "" {
		if window, err = strconv.Atoi(settings.Index.Window); err != nil || window < 1 {
			return 0, fmt.Errorf("settings of %s: max_result_window %q: want a positive number", index, settings.Index.Window)
		}
	}
	return min(5*b.cfg.BatchSize, window), nil
}

// stored yields every item of index, read in id order in pages of size (see readPages), each
// hit decoded as the reads decode it (searchResponse). A goroutine of its own reads the pages, one
// ahead of the caller: the next page is read and decoded while the caller hands the previous one
// to the bulk writers. Read in the caller's goroutine, 100,000 items took 5 to 7 s of reads and
// 2.3 s of waits for a free writer, one after the other, in copies of 8 to 10 s.
func (b *Backend) stored(ctx context.Context, index string, size int) iter.Seq2[search.Item, error] {
	return func(yield func(search.Item, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		pages := make(chan []search.Item, 1)
		var err error
		go func() {
			defer close(pages)
			err = b.readPages(ctx, index, size, func(page []search.Item) bool {
				select {
				case pages <- page:
					return true
				case <-ctx.Done():
					return false
				}
			})
		}()
		// The reader ends before stored returns, whether the caller read to the end or not.
		defer func() {
			cancel()
			for range pages {
			}
		}()
		for page := range pages {
			for _, it := range page {
				if !yield(it, nil) {
					return
				}
			}
		}
		if err != nil {
			yield(search.Item{}, fmt.Errorf("read %s: %w", index, err))
		}
	}
}

// readPages reads every item of index for stored, and passes them to emit in pages of size until
// emit returns false, when ctx has ended. The next page starts after the last id of the previous
// one (search_after on the unique id): a versioned index is never written once it is live, so
// this sees each document exactly once without a point in time to hold a view of the index,
// which the engine would have to keep open for the whole copy.
func (b *Backend) readPages(ctx context.Context, index string, size int, emit func([]search.Item) bool) error {
	var after []any
	for {
		body, err := storedPage(size, after)
		if err != nil {
			return err
		}
		// A page read changes nothing: one the engine turns away for being busy is sent again
		// like a bulk request.
		var page searchResponse
		if err := b.withRetries(ctx, func() error {
			page = searchResponse{}
			return b.doSearchIn(ctx, index, "reindex read", body, &page)
		}); err != nil {
			return err
		}
		hits := page.Hits.Hits
		items := make([]search.Item, len(hits))
		for i, h := range hits {
			items[i] = h.Source
		}
		if !emit(items) {
			return context.Cause(ctx)
		}
		if len(hits) < size {
			return nil
		}
		if after, err = sortValues(hits[len(hits)-1].Sort); err != nil {
			return err
		}
	}
}

// storedPage is the body of a page of stored: size documents in id order after the sort values
// after (from the start when nil).
func storedPage(size int, after []any) ([]byte, error) {
	body := obj{
		"query":            obj{"match_all": obj{}},
		"size":             size,
		"sort":             []any{obj{"id": "asc"}},
		"track_total_hits": false,
	}
	if after != nil {
		body["search_after"] = after
	}
	return json.Marshal(body)
}
