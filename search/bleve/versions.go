package bleve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	blevesearch "github.com/blevesearch/bleve/v2"

	"mediagw/search"
)

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
// listed is finished, since one being built has another prefix until it is. One that cannot be
// counted is taken to hold items.
func (l *Loader) retention(live string) (search.Retention, error) {
	names, err := indexNames(l.dir, "")
	if err != nil {
		return search.Retention{}, err
	}
	vs := make([]search.StoredVersion, len(names))
	for i, n := range names {
		docs, _, err := describe(filepath.Join(l.dir, n))
		vs[i] = search.StoredVersion{Name: n, Empty: err == nil && docs == 0}
	}
	return search.Retain(vs, live, l.keep), nil
}

// indexNames lists, oldest first, the indexes in dir whose directories are named prefix and
// the index's name: the built ones (prefix "") or those being built (buildingPrefix).
func indexNames(dir, prefix string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), prefix); ok && e.IsDir() && strings.HasPrefix(n, indexPrefix) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Status lists the indexes in the directory, oldest first, with their document counts, layout
// versions and which one is live, and those being built as unfinished (a load runs, or died:
// the next load removes them); a directory no load has made yet holds none.
func (l *Loader) Status(context.Context) ([]search.IndexInfo, error) {
	names, err := indexNames(l.dir, "")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	building, err := indexNames(l.dir, buildingPrefix)
	if err != nil {
		return nil, err
	}
	cur, err := currentName(l.dir)
	if err != nil && !errors.Is(err, search.ErrUnavailable) {
		return nil, err
	}
	out := make([]search.IndexInfo, 0, len(names)+len(building))
	for _, n := range names {
		info := search.IndexInfo{Name: n, Live: n == cur, Created: created(n)}
		info.Docs, info.Version, info.Err = describe(filepath.Join(l.dir, n))
		info.Outdated = info.Err == nil && info.Version < search.IndexVersion
		out = append(out, info)
	}
	// A load writing one holds it open: it is not read.
	for _, n := range building {
		out = append(out, search.IndexInfo{Name: n, Unfinished: true, Created: created(n)})
	}
	slices.SortFunc(out, func(a, b search.IndexInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// created is when the load that named index name began (Loader.newName).
func created(name string) time.Time {
	t, _ := time.Parse(stampLayout, strings.TrimPrefix(name, indexPrefix))
	return t
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

// Use makes the built index name live, older or newer than the live one. Servers pick it up on
// their next Reload. It fails while a load runs in the directory, and for an index that is not
// built, or built by an older mediagw (which servers refuse).
func (l *Loader) Use(_ context.Context, name string) error {
	unlock, err := lockDir(l.dir)
	if err != nil {
		return fmt.Errorf("use %s: %w", name, err)
	}
	defer unlock()
	names, err := indexNames(l.dir, "")
	if err != nil {
		return fmt.Errorf("use %s: %w", name, err)
	}
	if !slices.Contains(names, name) {
		return fmt.Errorf("use %s: no such index is kept in %s (mediactl status lists them)", name, l.dir)
	}
	_, version, err := describe(filepath.Join(l.dir, name))
	if err != nil {
		return fmt.Errorf("use %s: %w", name, err)
	}
	if version < search.IndexVersion {
		return fmt.Errorf("use %s: it was built by an older mediagw (layout %d, this one reads %d)", name, version, search.IndexVersion)
	}
	if err := switchCurrent(l.dir, name); err != nil {
		return fmt.Errorf("use %s: %w", name, err)
	}
	return nil
}
