package bleve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
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
	return l.replace(ctx, start, "load", items)
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
	return l.replace(ctx, start, "rebuild", search.Paced(ctx, allItems(src, opts.Progress), opts.Rate))
}

// replace builds a new index from items beside the live one, checks it holds every item, makes
// it live and prunes the old ones; the caller holds the directory's lock. On any error, or when
// ctx ends, the partial index is removed and `current` is left alone.
func (l *Loader) replace(ctx context.Context, start time.Time, op string, items iter.Seq2[search.Item, error]) (stats search.LoadStats, err error) {
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

// build writes items into a new index at path and returns how many it holds.
func build(ctx context.Context, path string, items iter.Seq2[search.Item, error]) (int, error) {
	m, err := newMapping()
	if err != nil {
		return 0, err
	}
	idx, err := blevesearch.New(path, m)
	if err != nil {
		return 0, fmt.Errorf("create index: %w", err)
	}
	n, err := fill(ctx, idx, items)
	if err == nil {
		err = compact(ctx, idx)
	}
	if cerr := idx.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close index: %w", cerr)
	}
	return n, err
}

// compact merges the index into one segment: it is never written again, and every query (fuzzy
// term lookups most) pays for each segment it has to visit.
func compact(ctx context.Context, idx blevesearch.Index) error {
	adv, err := idx.Advanced()
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	if err := s.ForceMerge(ctx, nil); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	return nil
}

func fill(ctx context.Context, idx blevesearch.Index, items iter.Seq2[search.Item, error]) (int, error) {
	agg := newAggregates()
	batch := idx.NewBatch()
	n := 0
	flush := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if batch.Size() == 0 {
			return nil
		}
		if err := idx.Batch(batch); err != nil {
			return fmt.Errorf("index batch: %w", err)
		}
		batch.Reset()
		return nil
	}
	for it, err := range items {
		if err != nil {
			return 0, err
		}
		doc, err := document(it)
		if err != nil {
			return 0, err
		}
		if err := batch.Index(it.ID, doc); err != nil {
			return 0, fmt.Errorf("item %s: %w", it.ID, err)
		}
		agg.add(it)
		n++
		if batch.Size() >= batchSize {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	count, err := idx.DocCount()
	if err != nil {
		return 0, fmt.Errorf("count documents: %w", err)
	}
	if int(count) != n {
		return 0, fmt.Errorf("index holds %d documents for %d items (duplicate ids?)", count, n)
	}
	for key, v := range map[string]any{string(keyCategories): agg.categories(), string(keyAuthors): agg.authors()} {
		raw, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		if err := idx.SetInternal([]byte(key), raw); err != nil {
			return 0, fmt.Errorf("store %s: %w", key, err)
		}
	}
	if err := idx.SetInternal(keyFormat, []byte(format)); err != nil {
		return 0, fmt.Errorf("store %s: %w", keyFormat, err)
	}
	return n, nil
}

// aggregates counts categories and authors while loading: the index is immutable once built,
// so counting once here is exact and keeps Categories and Authors cheap.
type aggregates struct {
	cats map[string]*search.Category
	// names counts, per category, the items giving each name.
	names    map[string]map[string]int
	byAuthor map[string]int
}

func newAggregates() *aggregates {
	return &aggregates{cats: map[string]*search.Category{}, names: map[string]map[string]int{}, byAuthor: map[string]int{}}
}

func (a *aggregates) add(it search.Item) {
	if it.Category != "" {
		c := a.cats[it.Category]
		if c == nil {
			c = &search.Category{Slug: it.Category}
			a.cats[it.Category] = c
		}
		c.Count++
		if it.CategoryName != "" {
			if a.names[it.Category] == nil {
				a.names[it.Category] = map[string]int{}
			}
			a.names[it.Category][it.CategoryName]++
		}
	}
	if it.Author != "" {
		a.byAuthor[it.Author]++
	}
}

func (a *aggregates) categories() []search.Category {
	out := make([]search.Category, 0, len(a.cats))
	for _, c := range a.cats {
		c.Name = search.PickCategoryName(c.Slug, a.names[c.Slug])
		out = append(out, *c)
	}
	slices.SortFunc(out, func(x, y search.Category) int { return cmp.Compare(x.Slug, y.Slug) })
	return out
}

func (a *aggregates) authors() []search.Author {
	out := make([]search.Author, 0, len(a.byAuthor))
	for name, n := range a.byAuthor {
		out = append(out, search.Author{Name: name, Count: n})
	}
	search.SortAuthors(out)
	return out
}

// switchCurrent points dir/current at name atomically: readers see the old or the new index, never none.
func switchCurrent(dir, name string) error {
	tmp := filepath.Join(dir, fmt.Sprintf(".%s-%d", currentLink, time.Now().UnixNano()))
	if err := os.Symlink(name, tmp); err != nil {
		return fmt.Errorf("link %s: %w", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, currentLink)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("switch %s to %s: %w", currentLink, name, err)
	}
	return nil
}

// prune deletes the indexes older than live beyond the l.keep newest (search.Retain).
func (l *Loader) prune(live string) error {
	r, err := l.retention(live)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range r.Remove {
		if err := os.RemoveAll(filepath.Join(l.dir, n)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// retention is search.Retain over the built indexes, with live the live one: every index
// listed is finished, since one being built has another prefix until it is.
func (l *Loader) retention(live string) (search.Retention, error) {
	names, err := indexNames(l.dir)
	if err != nil {
		return search.Retention{}, err
	}
	vs := make([]search.StoredVersion, len(names))
	for i, n := range names {
		vs[i] = search.StoredVersion{Name: n}
	}
	return search.Retain(vs, live, l.keep), nil
}

// indexNames lists the built indexes in dir, oldest first.
func indexNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), indexPrefix) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
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

// Status lists the indexes in the directory, oldest first, with their document counts, layout
// versions and which one is live. Indexes still being built are not listed; a directory no load
// has made yet holds none.
func (l *Loader) Status(context.Context) ([]search.IndexInfo, error) {
	names, err := indexNames(l.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cur, err := currentName(l.dir)
	if err != nil && !errors.Is(err, search.ErrUnavailable) {
		return nil, err
	}
	out := make([]search.IndexInfo, 0, len(names))
	for _, n := range names {
		info := search.IndexInfo{Name: n, Live: n == cur}
		info.Docs, info.Version, info.Err = describe(filepath.Join(l.dir, n))
		info.Outdated = info.Err == nil && info.Version < search.IndexVersion
		out = append(out, info)
	}
	return out, nil
}

// describe reads an index's document count and layout version (0 when it has none).
func describe(path string) (docs int64, version int, err error) {
	idx, err := blevesearch.OpenUsing(path, map[string]interface{}{"read_only": true, "bolt_timeout": boltTimeout})
	if err != nil {
		return 0, 0, fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer idx.Close()
	n, err := idx.DocCount()
	if err != nil {
		return 0, 0, fmt.Errorf("count %s: %w", filepath.Base(path), err)
	}
	raw, err := idx.GetInternal(keyFormat)
	if err != nil {
		return 0, 0, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	version, _ = strconv.Atoi(string(raw))
	return int64(n), version, nil
}

// Rollback makes the newest index older than the live one live again and returns its name.
// Servers pick it up on their next Reload. It fails while a load runs in the directory.
func (l *Loader) Rollback(context.Context) (string, error) {
	dir := l.dir
	unlock, err := lockDir(dir)
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	defer unlock()
	cur, err := currentName(dir)
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	r, err := l.retention(cur)
	if err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	prev := r.Rollback
	if prev == "" {
		return "", fmt.Errorf("rollback: no index older than %s is kept in %s", cur, dir)
	}
	if err := switchCurrent(dir, prev); err != nil {
		return "", fmt.Errorf("rollback: %w", err)
	}
	return prev, nil
}

// Close releases nothing: a Loader holds no index open between calls.
func (l *Loader) Close() error { return nil }
