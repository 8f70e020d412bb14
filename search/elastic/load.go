package elastic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
)

// cleanupTimeout bounds removing a failed load's index, which runs after ctx may have ended.
const cleanupTimeout = 30 * time.Second

// Load builds a new index "<alias>-<UTC time>" from the configured index definition, fills it in
// concurrent bulk requests, checks it holds every item, and then points the alias at it in one
// atomic _aliases call. Older indices beyond Config.Keep are removed (an error wrapping
// search.ErrPrune says that failed; the load itself succeeded). If items yields an error,
// ctx ends or any step fails, the alias is left as it was and the new index is deleted.
func (b *Backend) Load(ctx context.Context, items iter.Seq2[search.Item, error]) (search.LoadStats, error) {
	return b.LoadGuarded(ctx, items, search.Unguarded)
}

// LoadGuarded is Load that points the alias at the new index only if g finds it no worse than
// the live one.
func (b *Backend) LoadGuarded(ctx context.Context, items iter.Seq2[search.Item, error], g search.Guard) (stats search.LoadStats, err error) {
	start := b.cfg.Now()
	name := indexName(b.cfg.Alias, start)
	stats.Index = name
	if err := b.createIndex(ctx, name, b.cfg.Mapping); err != nil {
		return stats, err
	}
	// live: the alias points at the new index; from then on an error (a failed prune) must not
	// remove it.
	live := false
	defer func() {
		if err != nil && !live {
			err = errors.Join(err, b.discard(ctx, name))
		}
	}()

	n, err := b.fill(ctx, name, items, nil)
	if err != nil {
		return stats, fmt.Errorf("load %s: %w", name, err)
	}
	count, err := b.seal(ctx, name, b.refreshInterval)
	if err != nil {
		return stats, err
	}
	if count != int64(n) {
		return stats, fmt.Errorf("load %s: the index holds %d items, but %d were accepted (duplicate ids?)", name, count, n)
	}
	liveDocs, err := b.liveDocs(ctx)
	if err != nil {
		return stats, fmt.Errorf("load %s: %w", name, err)
	}
	if err := g.Check(count, liveDocs); err != nil {
		return stats, fmt.Errorf("load %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("load %s: %w", name, err)
	}
	if err := b.pointAlias(ctx, name); err != nil {
		return stats, err
	}
	live = true
	stats.Indexed = n
	stats.Duration = b.cfg.Now().Sub(start)
	if err := b.prune(ctx, name); err != nil {
		// The load itself succeeded: report, but do not remove what is now live.
		return stats, fmt.Errorf("load %s is live, but %w: %w", name, search.ErrPrune, err)
	}
	return stats, nil
}

// liveDocs counts the items behind the alias; -1 when it points at no index.
func (b *Backend) liveDocs(ctx context.Context) (int64, error) {
	live, err := b.aliasTargets(ctx)
	if err != nil || len(live) == 0 {
		return -1, err
	}
	return b.count(ctx, b.cfg.Alias)
}

// discard removes the index name that a load or reindex began and did not make live; it runs
// after ctx may have ended, since the partial index goes even when ctx is what ended the build.
func (b *Backend) discard(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	// An _aliases call can take effect and still fail for the client (a timeout): the index
	// is then live, and stays. If the alias cannot be read, the index stays too: an unneeded
	// index is removed by a later load, a deleted live one takes the API down.
	targets, err := b.aliasTargets(ctx)
	if err != nil || slices.Contains(targets, name) {
		return err
	}
	if err := b.deleteIndices(ctx, name); err != nil {
		return fmt.Errorf("remove partial index %s: %w", name, err)
	}
	return nil
}

// seal ends the filling of index name: it turns refresh back on (to the definition's interval,
// or the engine's default when nil), which marks the index finished, refreshes it once and
// returns how many documents it holds.
func (b *Backend) seal(ctx context.Context, name string, refresh any) (int64, error) {
	// Each step may find a shard briefly without a copy (a node lost, a replica being promoted):
	// they change nothing twice, so they are sent again like bulk requests.
	if err := b.withRetries(ctx, func() error {
		return b.putSettings(ctx, name, obj{"index": obj{"refresh_interval": refresh}})
	}); err != nil {
		return 0, err
	}
	if err := b.withRetries(ctx, func() error { return b.refresh(ctx, name) }); err != nil {
		return 0, err
	}
	var count int64
	err := b.withRetries(ctx, func() (err error) { count, err = b.count(ctx, name); return err })
	return count, err
}

// createIndex creates index name from the index definition def, stamped with its hash (see
// mappings.Stamp) and with refresh off until seal.
func (b *Backend) createIndex(ctx context.Context, name string, def []byte) error {
	def, err := mappings.Stamp(def)
	if err == nil {
		def, err = mappings.WithoutRefresh(def)
	}
	if err != nil {
		return err
	}
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	resp, err := b.client.Indices.Create(ctx, opensearchapi.IndicesCreateReq{Index: name, Body: bytes.NewReader(def)})
	if err != nil {
		return fmt.Errorf("create index %s: %w", name, failed(ctx, b.name(), "create index", resp, err))
	}
	return nil
}

func (b *Backend) putSettings(ctx context.Context, name string, settings obj) error {
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	resp, err := b.client.Indices.Settings.Put(ctx, opensearchapi.SettingsPutReq{Indices: []string{name}, Body: jsonBody(settings)})
	if err != nil {
		return fmt.Errorf("settings of %s: %w", name, failed(ctx, b.name(), "put settings", resp, err))
	}
	return nil
}

func (b *Backend) refresh(ctx context.Context, name string) error {
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	resp, err := b.client.Indices.Refresh(ctx, &opensearchapi.IndicesRefreshReq{Index: []string{name}})
	if err != nil {
		return fmt.Errorf("refresh %s: %w", name, failed(ctx, b.name(), "refresh", resp, err))
	}
	return nil
}

func (b *Backend) count(ctx context.Context, name string) (int64, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Indices.Count(ctx, &opensearchapi.IndicesCountReq{Indices: []string{name}})
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", name, failed(ctx, b.name(), "count", resp, err))
	}
	return int64(resp.Count), nil
}

func (b *Backend) deleteIndices(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	ctx, cancel := b.bound(ctx, b.cfg.BulkTimeout)
	defer cancel()
	// An index already gone is what was asked: on the 3-node cluster, a delete of an index that
	// existed when it was sent once came back 404 (index_not_found_exception).
	ignore := true
	resp, err := b.client.Indices.Delete(ctx, opensearchapi.IndicesDeleteReq{Indices: names,
		Params: opensearchapi.IndicesDeleteParams{IgnoreUnavailable: &ignore}})
	if err != nil {
		return fmt.Errorf("delete %s: %w", strings.Join(names, ","), failed(ctx, b.name(), "delete index", resp, err))
	}
	return nil
}
