package bleve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	blevesearch "github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
	"mediagw/search/pace"
)

const (
	currentLink = "current"
	indexPrefix = "index-"
	// buildingPrefix marks an index still being built; Status and Rollback never see it.
	buildingPrefix = ".building-"
	lockFile       = ".load.lock"
	// stampLayout sorts by time as a string, to the nanosecond, so quick successive loads differ.
	stampLayout = "20060102T150405.000000000Z"
	batchSize   = 1000
)

// Loader is the embedded index's search.Admin: it builds versioned indexes in a directory,
// switches its `current` link to each new one, lists them and rolls back.
type Loader struct {
	dir  string
	keep int
}

var _ search.Admin = (*Loader)(nil)

// NewLoader returns a Loader for dir whose loads keep the keep most recent replaced indexes besides
// the live one, for Rollback, and delete older ones; 0 or less keeps none (see search.Admin).
func NewLoader(dir string, keep int) *Loader {
	return &Loader{dir: dir, keep: max(keep, 0)}
}

// Load builds a new index from items beside the live one, checks it holds every item, and makes it
// live. On any error, or when ctx ends, the partial index is removed and `current` is left alone.
// Only one load runs in a directory at a time.
func (l *Loader) Load(ctx context.Context, items iter.Seq2[search.Item, error]) (search.LoadStats, error) {
	return l.LoadGuarded(ctx, items, search.Unguarded)
}

// LoadGuarded is Load that makes the new index live only if g finds it no worse than the live one.
func (l *Loader) LoadGuarded(ctx context.Context, items iter.Seq2[search.Item, error], g search.Guard) (search.LoadStats, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return search.LoadStats{}, fmt.Errorf("load: %w", err)
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return search.LoadStats{}, fmt.Errorf("index dir: %w", err)
	}
	unlock, err := lockDir(l.dir)
	if err != nil {
		return search.LoadStats{}, err
	}
	defer unlock()
	return l.replace(ctx, start, "load", items, g)
}

// Reindex builds a new index from the items stored in the live one, with this mediagw's
// mapping, and makes it live as Load does, with the same checks, keep rule and rollback: how an
// index built by an older mediagw, or before a change to the mapping, is brought up to date
// without the catalogue file. The mapping is built in: a definition is refused
// (search.ErrDefinitionFixed). opts.Progress, when not nil, is called as the items are read
// with how many were (done) of the total the live index holds; opts.Rate paces the reading.
func (l *Loader) Reindex(ctx context.Context, opts search.ReindexOptions) (search.LoadStats, error) {
	if opts.Definition != nil {
		return search.LoadStats{}, fmt.Errorf("rebuild: %w", search.ErrDefinitionFixed)
	}
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return search.LoadStats{}, fmt.Errorf("rebuild: %w", err)
	}
	unlock, err := lockDir(l.dir)
	if err != nil {
		return search.LoadStats{}, fmt.Errorf("rebuild: %w", err)
	}
	defer unlock()
	live, err := currentName(l.dir)
	if err != nil {
		return search.LoadStats{}, fmt.Errorf("rebuild: %w", err)
	}
	// Only its stored items are read, which every layout has: an index this mediagw no longer
	// serves can be rebuilt.
	src, err := blevesearch.OpenUsing(filepath.Join(l.dir, live), map[string]interface{}{"read_only": true, "bolt_timeout": boltTimeout})
	if err != nil {
		return search.LoadStats{}, fmt.Errorf("rebuild: open %s: %w", live, err)
	}
	defer src.Close()
	return l.replace(ctx, start, "rebuild", pace.Items(ctx, allItems(src, opts.Progress), opts.Rate), search.Unguarded)
}

// replace builds a new index from items beside the live one, checks it holds every item and
// that g finds it no worse, makes it live and prunes the old ones; the caller holds the
// directory's lock. On any error, or when ctx ends, the partial index is removed and `current`
// is left alone.
func (l *Loader) replace(ctx context.Context, start time.Time, op string, items iter.Seq2[search.Item, error], g search.Guard) (stats search.LoadStats, err error) {
	// Under the lock, a building directory can only be left over from a crashed load.
	if err := removeMatching(l.dir, buildingPrefix); err != nil {
		return stats, err
	}
	name := l.newName()
	building := filepath.Join(l.dir, buildingPrefix+name)
	defer func() {
		if err != nil {
			_ = os.RemoveAll(building)
		}
	}()
	n, err := build(ctx, building, items)
	if err != nil {
		return stats, fmt.Errorf("%s %s: %w", op, name, err)
	}
	live, err := l.liveDocs()
	if err != nil {
		return stats, fmt.Errorf("%s %s: %w", op, name, err)
	}
	if err := g.Check(int64(n), live); err != nil {
		return stats, fmt.Errorf("%s %s: %w", op, name, err)
	}
	if err := os.Rename(building, filepath.Join(l.dir, name)); err != nil {
		return stats, fmt.Errorf("%s %s: %w", op, name, err)
	}
	if err := switchCurrent(l.dir, name); err != nil {
		_ = os.RemoveAll(filepath.Join(l.dir, name))
		return stats, fmt.Errorf("%s %s: %w", op, name, err)
	}
	stats = search.LoadStats{Indexed: n, Index: name, Duration: time.Since(start)}
	if err := l.prune(name); err != nil {
		return stats, fmt.Errorf("%s %s is live, but %w: %w", op, name, search.ErrPrune, err)
	}
	return stats, nil
}

// liveDocs counts the live index's items; -1 when none is live.
func (l *Loader) liveDocs() (int64, error) {
	if _, err := os.Lstat(filepath.Join(l.dir, currentLink)); errors.Is(err, os.ErrNotExist) {
		return -1, nil
	}
	cur, err := currentName(l.dir)
	if err != nil {
		return 0, err
	}
	docs, _, err := describe(filepath.Join(l.dir, cur))
	return docs, err
}

// allItems yields every item stored in idx, in no particular order, and then an error if
// they were fewer than the index holds: a rebuild must not go live short.
func allItems(idx blevesearch.Index, progress func(done, total int64)) iter.Seq2[search.Item, error] {
	return func(yield func(search.Item, error) bool) {
		total, err := idx.DocCount()
		if err != nil {
			yield(search.Item{}, fmt.Errorf("count the live items: %w", err))
			return
		}
		n, stopped, err := visitStored(idx, func(it search.Item, n int64) bool {
			if progress != nil && (n%batchSize == 0 || n == int64(total)) {
				progress(n, int64(total))
			}
			return yield(it, nil)
		})
		switch {
		case err != nil:
			yield(search.Item{}, fmt.Errorf("read the live items: %w", err))
		case !stopped && uint64(n) != total:
			yield(search.Item{}, fmt.Errorf("read %d items of the %d the live index holds", n, total))
		}
	}
}

// visitStored calls f with each item stored in idx and how many were read so far, until f
// returns false (stopped), and returns how many it read.
func visitStored(idx blevesearch.Index, f func(search.Item, int64) bool) (n int64, stopped bool, err error) {
	adv, err := idx.Advanced()
	if err != nil {
		return 0, false, err
	}
	r, err := adv.Reader()
	if err != nil {
		return 0, false, err
	}
	defer r.Close()
	ids, err := r.DocIDReaderAll()
	if err != nil {
		return 0, false, err
	}
	defer ids.Close()
	for {
		iid, err := ids.Next()
		if err != nil || iid == nil {
			return n, false, err
		}
		id, err := r.ExternalID(iid)
		if err != nil {
			return n, false, err
		}
		doc, err := r.Document(id)
		if err != nil {
			return n, false, fmt.Errorf("item %q: %w", id, err)
		}
		var raw []byte
		doc.VisitFields(func(fl index.Field) {
			if fl.Name() == fieldStored {
				raw = fl.Value()
			}
		})
		var it search.Item
		if err := json.Unmarshal(raw, &it); err != nil {
			return n, false, fmt.Errorf("item %q: decode stored item: %w", id, err)
		}
		n++
		if !f(it, n) {
			return n, true, nil
		}
	}
}

func (l *Loader) newName() string {
	t := time.Now().UTC()
	for {
		name := indexPrefix + t.Format(stampLayout)
		if _, err := os.Lstat(filepath.Join(l.dir, name)); errors.Is(err, os.ErrNotExist) {
			return name
		}
		t = t.Add(time.Nanosecond)
	}
}

func removeMatching(dir, prefix string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list %s: %w", dir, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove leftover %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}

// lockDir takes an exclusive lock on dir for a load, failing at once when another load holds it.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("another load is running in %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

// Close releases nothing: a Loader holds no index open between calls.
func (l *Loader) Close() error { return nil }
