package bleve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	blevesearch "github.com/blevesearch/bleve/v2"

	"mediagw/search"
	"mediagw/search/admintest"
	"mediagw/search/searchtest"
)

func load(t *testing.T, l *Loader, items []search.Item) search.LoadStats {
	t.Helper()
	st, err := l.Load(t.Context(), search.Values(items))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if st.Indexed != len(items) {
		t.Fatalf("Load indexed %d, want %d", st.Indexed, len(items))
	}
	return st
}

func total(t *testing.T, b *Backend) int {
	t.Helper()
	res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1}))
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	return res.Total
}

func current(t *testing.T, dir string) string {
	t.Helper()
	name, err := currentName(dir)
	if err != nil {
		t.Fatalf("current: %v", err)
	}
	return name
}

// entries lists dir, so a test can tell that a failed load left nothing behind.
func entries(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// TestAdminConformance holds the Loader to search/admintest.
func TestAdminConformance(t *testing.T) {
	admintest.Run(t, admintest.Harness{
		Open: func(t *testing.T, keep int) search.Admin {
			// A directory no load has made yet: the first load makes it.
			return NewLoader(filepath.Join(t.TempDir(), "index"), keep)
		},
		Unfinished: func(t *testing.T, a search.Admin, before string, by time.Duration) string {
			at, err := time.Parse(stampLayout, strings.TrimPrefix(before, indexPrefix))
			if err != nil {
				t.Fatal(err)
			}
			// As a load that died left it: an index begun under the building prefix.
			name := indexPrefix + at.Add(-by).UTC().Format(stampLayout)
			m, err := newMapping()
			if err != nil {
				t.Fatal(err)
			}
			idx, err := blevesearch.New(filepath.Join(a.(*Loader).dir, buildingPrefix+name), m)
			if err != nil {
				t.Fatal(err)
			}
			if err := idx.Close(); err != nil {
				t.Fatal(err)
			}
			return name
		},
		Serve: func(t *testing.T, a search.Admin) search.Backend {
			b, err := Open(a.(*Loader).dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		},
		Exclusive: true,
	})
}

// TestRollbackServed: a server picks up a rollback on its next Reload.
func TestRollbackServed(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir, 2)
	a := load(t, l, admintest.Items("a", 3))
	load(t, l, admintest.Items("b", 4))
	srv, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if got, err := l.Rollback(t.Context()); err != nil || got != a.Index {
		t.Fatalf("Rollback = %s, %v; want %s", got, err, a.Index)
	}
	if switched, err := srv.Reload(t.Context()); err != nil || !switched || total(t, srv) != a.Indexed {
		t.Fatalf("Reload after rollback = %v, %v with %d items; want %d", switched, err, total(t, srv), a.Indexed)
	}
	if v, err := srv.Version(t.Context()); err != nil || v != a.Index {
		t.Errorf("after Reload the server serves %q, %v; want %s", v, err, a.Index)
	}
}

func TestOpenWithoutIndex(t *testing.T) {
	_, err := Open(t.TempDir())
	if !errors.Is(err, search.ErrUnavailable) {
		t.Fatalf("Open(empty dir): %v, want search.ErrUnavailable", err)
	}
}

func TestLoadSwitchesAndReload(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir, 2)
	first := load(t, l, admintest.Items("a", 30))
	if got := current(t, dir); got != first.Index {
		t.Fatalf("current = %s, want %s", got, first.Index)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if served(b) != first.Index || total(t, b) != 30 {
		t.Fatalf("serving %s with %d items, want %s with 30", served(b), total(t, b), first.Index)
	}
	if switched, err := b.Reload(t.Context()); err != nil || switched {
		t.Fatalf("Reload without a new index = %v, %v; want false, nil", switched, err)
	}

	second := load(t, l, admintest.Items("b", 45))
	if second.Index <= first.Index {
		t.Fatalf("new index %s does not sort after %s", second.Index, first.Index)
	}
	if total(t, b) != 30 {
		t.Fatal("the backend switched before Reload")
	}
	if switched, err := b.Reload(t.Context()); err != nil || !switched {
		t.Fatalf("Reload = %v, %v; want true, nil", switched, err)
	}
	if served(b) != second.Index || total(t, b) != 45 {
		t.Fatalf("after Reload serving %s with %d items, want %s with 45", served(b), total(t, b), second.Index)
	}
	cats, err := b.Categories(t.Context(), search.Query{})
	if err != nil || len(cats) != 0 {
		t.Fatalf("Categories = %v, %v", cats, err)
	}
}

func TestOneLoadAtATime(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir, 1)
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := l.Load(t.Context(), func(yield func(search.Item, error) bool) {
			close(started)
			<-release
			for _, it := range admintest.Items("a", 3) {
				if !yield(it, nil) {
					return
				}
			}
		})
		done <- err
	}()
	<-started
	if _, err := NewLoader(dir, 1).Load(t.Context(), search.Values(admintest.Items("b", 3))); err == nil {
		t.Error("a second load ran beside the first")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first load: %v", err)
	}
}

// TestReloadUnderLoad swaps indexes while queries run: none may fail, each sees one whole index.
func TestReloadUnderLoad(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir, 1)
	load(t, l, admintest.Items("a", 40))
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := b.Search(context.Background(), search.NewRequest(search.Query{Text: "harbour", Sort: search.SortRelevance, Page: 1, PerPage: 5}))
				if err == nil && res.Total != 40 && res.Total != 41 {
					err = fmt.Errorf("total %d, want 40 or 41", res.Total)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 4 {
		load(t, l, admintest.Items(fmt.Sprint("r", i), 40+i%2))
		if switched, err := b.Reload(t.Context()); err != nil || !switched {
			t.Errorf("Reload = %v, %v", switched, err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("query during reload: %v", err)
	}
}

// TestOpenTwice: a server and an operator tool (Status) read the same live index at once.
func TestOpenTwice(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir, 1)
	load(t, l, admintest.Items("a", 3))
	b1, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b1.Close()
	b2, err := Open(dir)
	if err != nil {
		t.Fatalf("second Open of a live index: %v", err)
	}
	defer b2.Close()
	st, err := l.Status(t.Context())
	if err != nil || len(st) != 1 || st[0].Docs != 3 || st[0].Err != nil {
		t.Fatalf("Status while served = %+v, %v", st, err)
	}
	if total(t, b1) != 3 || total(t, b2) != 3 {
		t.Fatal("the two backends disagree")
	}
	if err := b1.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b1.Search(t.Context(), search.NewRequest(search.Query{Page: 1, PerPage: 1})); !errors.Is(err, search.ErrUnavailable) {
		t.Errorf("Search after Close: %v, want search.ErrUnavailable", err)
	}
	if err := b1.Ping(t.Context()); !errors.Is(err, search.ErrUnavailable) {
		t.Errorf("Ping after Close: %v, want search.ErrUnavailable", err)
	}
}

// TestOpenOlderLayout: an index built by an older mediagw (another layout) is refused, saying
// what to do, rather than answering without the fields this one reads; Status reports it outdated.
func TestOpenOlderLayout(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir, 1)
	load(t, l, admintest.Items("a", 3))
	setLayout(t, filepath.Join(dir, current(t, dir)), "1")
	_, err := Open(dir)
	if !errors.Is(err, search.ErrUnavailable) || !strings.Contains(err.Error(), "load the catalogue again") {
		t.Fatalf("Open(older layout): %v, want search.ErrUnavailable saying to load again", err)
	}
	st, err := l.Status(t.Context())
	if want := []search.IndexInfo{{Name: current(t, dir), Docs: 3, Live: true, Version: 1, Outdated: true, Created: created(current(t, dir))}}; err != nil || !slices.Equal(st, want) {
		t.Errorf("Status = %+v, %v; want %+v", st, err, want)
	}
}

// TestReindex: a rebuild makes a new live index from the items stored in the live one, every
// item as it was loaded, with the current layout, even from an index of an older layout that
// this mediagw no longer serves; the old index is kept, and Rollback brings it back.
func TestReindex(t *testing.T) {
	dir := t.TempDir()
	items := searchtest.Generated(t, 2500, 5)
	l := NewLoader(dir, 1)
	old := load(t, l, items)
	// As an older mediagw left it: Open refuses it, Status says so.
	setLayout(t, filepath.Join(dir, old.Index), "1")
	if st, err := l.Status(t.Context()); err != nil || len(st) != 1 || !st[0].Outdated || st[0].Version != 1 {
		t.Fatalf("Status of an older layout = %+v, %v; want it outdated, version 1", st, err)
	}

	var last [2]int64
	calls := 0
	st, err := l.Reindex(t.Context(), search.ReindexOptions{Progress: func(done, total int64) { calls, last = calls+1, [2]int64{done, total} }})
	if err != nil {
		t.Fatalf("Reindex: %v", err)
	}
	if st.Indexed != len(items) || st.Index <= old.Index || current(t, dir) != st.Index {
		t.Errorf("Reindex = %+v, current %s; want %d items in a new live index", st, current(t, dir), len(items))
	}
	if calls < 2 || last != [2]int64{int64(len(items)), int64(len(items))} {
		t.Errorf("progress: %d calls, the last %v; want several, ending at %d of %d", calls, last, len(items), len(items))
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after Reindex: %v", err)
	}
	defer b.Close()
	if n := total(t, b); n != len(items) {
		t.Errorf("after Reindex: total %d, want %d", n, len(items))
	}
	for _, want := range []search.Item{items[0], items[len(items)/3], items[len(items)-1]} {
		got, err := b.Item(t.Context(), want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Item(%s) after Reindex = %+v, %v; want %+v", want.ID, got, err, want)
		}
	}
	if cats, err := b.Categories(t.Context(), search.Query{}); err != nil || len(cats) == 0 {
		t.Errorf("Categories after Reindex = %d, %v; want the items' categories", len(cats), err)
	}
	infos, err := l.Status(t.Context())
	if err != nil || len(infos) != 2 || infos[0].Name != old.Index || !infos[0].Outdated ||
		infos[1].Name != st.Index || !infos[1].Live || infos[1].Outdated || infos[1].Version != search.IndexVersion || infos[1].Docs != int64(len(items)) {
		t.Errorf("Status after Reindex = %+v, %v; want the outdated old index and the current new one", infos, err)
	}
	if back, err := l.Rollback(t.Context()); err != nil || back != old.Index || current(t, dir) != old.Index {
		t.Errorf("Rollback = %q, %v; want %s live again", back, err, old.Index)
	}
}

// TestReindexFailures: a rebuild that cannot start, is interrupted or fails leaves the live index
// as it was and nothing of the index it began.
func TestReindexFailures(t *testing.T) {
	dir := t.TempDir()
	l := NewLoader(dir, 1)
	if _, err := l.Reindex(t.Context(), search.ReindexOptions{}); !errors.Is(err, search.ErrUnavailable) {
		t.Errorf("Reindex without a live index: %v, want search.ErrUnavailable", err)
	}
	items := admintest.Items("a", 2500)
	live := load(t, l, items).Index
	if _, err := l.Reindex(t.Context(), search.ReindexOptions{Definition: []byte(`{"settings":{}}`)}); !errors.Is(err, search.ErrDefinitionFixed) {
		t.Errorf("Reindex with a definition: %v, want search.ErrDefinitionFixed", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if _, err := l.Reindex(ctx, search.ReindexOptions{Progress: func(done, total int64) {
		if done < total {
			cancel()
		}
	}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Reindex: %v, want context.Canceled", err)
	}
	if got := current(t, dir); got != live {
		t.Errorf("after a cancelled Reindex, current is %s, want %s", got, live)
	}
	if got, want := entries(t, dir), ".load.lock current "+live; got != want {
		t.Errorf("after a cancelled Reindex the directory holds %q, want %q", got, want)
	}

	unlock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Reindex(t.Context(), search.ReindexOptions{})
	unlock()
	if err == nil || !strings.Contains(err.Error(), "another load") {
		t.Errorf("Reindex while a load runs: %v, want an error saying so", err)
	}
}

// setLayout rewrites the layout an index says it has.
func setLayout(t *testing.T, path, layout string) {
	t.Helper()
	idx, err := blevesearch.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.SetInternal(keyFormat, []byte(layout)); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
}

// served is the version b serves, "" for none.
func served(b *Backend) string {
	v, _ := b.Version(context.Background())
	return v
}
