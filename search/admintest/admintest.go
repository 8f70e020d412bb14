// Package admintest is the conformance suite every search.Admin runs, as search/searchtest is
// for search.Backend: a load makes its version live only once complete, loads keep the configured
// number of replaced versions (search.Retain), rollback finds the newest finished older one, any
// kept version can be made live again (Use), a load never makes a worse version live unless told
// (search.Guard), and what a dead load left is listed as unfinished and removed.
package admintest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// Harness is what the suite needs of a backend.
type Harness struct {
	// Open returns an Admin over an empty store of its own whose loads keep keep replaced
	// versions; it registers its cleanup with t.
	Open func(t *testing.T, keep int) search.Admin
	// Unfinished leaves in a's store what a load that began by before the version named before
	// and then died leaves behind, and returns the name Status lists it under.
	Unfinished func(t *testing.T, a search.Admin, before string, by time.Duration) string
	// Serve returns a search.Backend answering from a's live version, as a server that picked up
	// a's last change would; it registers its cleanup with t.
	Serve func(t *testing.T, a search.Admin) search.Backend
	// Exclusive: a load holds the store's one load lock, so what an unfinished load left is
	// known dead and the next load removes it however recent; otherwise only once it is older
	// than any load takes.
	Exclusive bool
}

// Case is one case of the suite.
type Case struct {
	Name string
	Run  func(t *testing.T, h Harness)
}

// Cases are the suite's cases, run in order by Run.
var Cases = []Case{
	{"LoadGoesLive", testLoadGoesLive},
	{"KeepsTheNewestReplaced", testKeep},
	{"FailedLoadChangesNothing", testFailedLoad},
	{"Rollback", testRollback},
	{"RefusesWorse", testRefusesWorse},
	{"KeepsOneWithItems", testKeepsOneWithItems},
	{"RollForward", testRollForward},
	{"Unfinished", testUnfinished},
}

// Run checks an Admin against every case.
func Run(t *testing.T, h Harness) {
	for _, c := range Cases {
		t.Run(c.Name, func(t *testing.T) { c.Run(t, h) })
	}
}

// callTimeout bounds each call, so a hung engine fails the test instead of stalling it.
const callTimeout = 5 * time.Minute

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), callTimeout)
	t.Cleanup(cancel)
	return c
}

// Items is a catalogue of n items whose ids and titles start with prefix, for loads in tests.
func Items(prefix string, n int) []search.Item {
	items := make([]search.Item, n)
	for i := range items {
		items[i] = search.Item{
			ID:        fmt.Sprintf("%s-%04d", prefix, i),
			Type:      search.TypePhoto,
			Title:     fmt.Sprintf("%s harbour number %d", prefix, i),
			Date:      fmt.Sprintf("20%02d-01-01", i%25),
			Downloads: int64(i % 7),
		}
	}
	return items
}

// load loads n items into a, which must succeed.
func load(t *testing.T, a search.Admin, prefix string, n int) search.LoadStats {
	t.Helper()
	st, err := a.Load(ctx(t), search.Values(Items(prefix, n)))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if st.Indexed != n || st.Index == "" {
		t.Fatalf("Load = %+v, want %d items in a named version", st, n)
	}
	return st
}

func status(t *testing.T, a search.Admin) []search.IndexInfo {
	t.Helper()
	st, err := a.Status(ctx(t))
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	return st
}

// version is what the suite expects Status to say of one finished version.
type version struct {
	name string
	docs int
	live bool
}

// checkFinished holds Status to want: the versions, oldest first, each current and finished.
func checkFinished(t *testing.T, a search.Admin, want ...version) {
	t.Helper()
	st := status(t, a)
	var got []version
	for _, in := range st {
		got = append(got, version{in.Name, int(in.Docs), in.Live})
		if in.Err != nil || in.Unfinished || in.Version != search.IndexVersion || in.Outdated || in.Created.IsZero() {
			t.Errorf("Status %s: error %v, unfinished %v, version %d, outdated %v, made %v; want a current finished version and when it was made",
				in.Name, in.Err, in.Unfinished, in.Version, in.Outdated, in.Created)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Status = %+v, want %+v", got, want)
	}
}

func names(st []search.IndexInfo) []string {
	out := make([]string, len(st))
	for i, in := range st {
		out[i] = in.Name
	}
	return out
}

// testLoadGoesLive: each load makes a new version, named to sort after the last, live.
func testLoadGoesLive(t *testing.T, h Harness) {
	a := h.Open(t, 2)
	if st := status(t, a); len(st) != 0 {
		t.Errorf("Status before any load = %+v, want no version", st)
	}
	first := load(t, a, "a", 30)
	checkFinished(t, a, version{first.Index, 30, true})
	second := load(t, a, "b", 45)
	if second.Index <= first.Index {
		t.Errorf("the new version %s does not sort after %s", second.Index, first.Index)
	}
	checkFinished(t, a, version{first.Index, 30, false}, version{second.Index, 45, true})
}

// testKeep: a load keeps the keep newest replaced versions besides the live one.
func testKeep(t *testing.T, h Harness) {
	for _, keep := range []int{0, 1, 3} {
		t.Run(fmt.Sprint("keep ", keep), func(t *testing.T) {
			a := h.Open(t, keep)
			var want []version
			for i := range 5 {
				want = append(want, version{load(t, a, fmt.Sprint(i), 3+i).Index, 3 + i, false})
			}
			want[4].live = true
			checkFinished(t, a, want[4-keep:]...)
		})
	}
}

// testFailedLoad: a load that fails or is interrupted leaves the live version live and nothing
// of the one it began; the error says why.
func testFailedLoad(t *testing.T, h Harness) {
	boom := errors.New("line 7: bad")
	tests := []struct {
		name  string
		items func(cancel context.CancelFunc) iter.Seq2[search.Item, error]
		check func(t *testing.T, err error)
	}{
		{"the items fail", func(context.CancelFunc) iter.Seq2[search.Item, error] {
			return searchtest.ThenFail(Items("x", 2100), boom)
		}, wraps(boom)},
		{"the items fail at once", func(context.CancelFunc) iter.Seq2[search.Item, error] {
			return searchtest.ThenFail(nil, boom)
		}, wraps(boom)},
		{"cancelled", func(cancel context.CancelFunc) iter.Seq2[search.Item, error] {
			return func(yield func(search.Item, error) bool) {
				for i, it := range Items("x", 2500) {
					if i == 1500 {
						cancel()
					}
					if !yield(it, nil) {
						return
					}
				}
			}
		}, wraps(context.Canceled)},
		{"duplicate ids", func(context.CancelFunc) iter.Seq2[search.Item, error] {
			return search.Values(append(Items("x", 20), Items("x", 2)...))
		}, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "duplicate ids") {
				t.Errorf("Load: %v, want an error saying the count is short (duplicate ids)", err)
			}
		}},
	}
	a := h.Open(t, 2)
	live := load(t, a, "live", 12)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, cancel := context.WithTimeout(t.Context(), callTimeout)
			defer cancel()
			st, err := a.Load(c, tt.items(cancel))
			if err == nil {
				t.Fatalf("Load succeeded: %+v", st)
			}
			tt.check(t, err)
			checkFinished(t, a, version{live.Index, 12, true})
		})
	}
}

func wraps(want error) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		if !errors.Is(err, want) {
			t.Errorf("Load: %v, want an error wrapping %v", err, want)
		}
	}
}

// testRollback: rollback makes the newest version older than the live one live, keeps the one
// it leaves, and fails, changing nothing, when there is none; a load after a rollback goes live
// and keeps the newest replaced versions, whatever was live.
func testRollback(t *testing.T, h Harness) {
	a := h.Open(t, 2)
	if got, err := a.Rollback(ctx(t)); err == nil {
		t.Errorf("Rollback without any version = %q, no error", got)
	}
	v1 := load(t, a, "a", 3)
	if got, err := a.Rollback(ctx(t)); err == nil {
		t.Errorf("Rollback without an older version = %q, no error", got)
	}
	v2 := load(t, a, "b", 4)
	v3 := load(t, a, "c", 5)
	for _, want := range []search.LoadStats{v2, v1} {
		if got, err := a.Rollback(ctx(t)); err != nil || got != want.Index {
			t.Fatalf("Rollback = %q, %v; want %s", got, err, want.Index)
		}
	}
	checkFinished(t, a, version{v1.Index, 3, true}, version{v2.Index, 4, false}, version{v3.Index, 5, false})
	if got, err := a.Rollback(ctx(t)); err == nil {
		t.Errorf("Rollback past the oldest version = %q, no error", got)
	}
	checkFinished(t, a, version{v1.Index, 3, true}, version{v2.Index, 4, false}, version{v3.Index, 5, false})
	v4 := load(t, a, "d", 6)
	checkFinished(t, a, version{v2.Index, 4, false}, version{v3.Index, 5, false}, version{v4.Index, 6, true})
}

// testUnfinished: what a load that died left is listed as unfinished, is never live nor a
// rollback target, and goes with the next load once its load is known dead.
func testUnfinished(t *testing.T, h Harness) {
	a := h.Open(t, 5)
	first := load(t, a, "a", 10)
	live := load(t, a, "b", 20)
	// One load died just before the live one began (it may still run, for all a backend without
	// a lock knows), one two hours before everything.
	recent := h.Unfinished(t, a, live.Index, time.Nanosecond)
	old := h.Unfinished(t, a, first.Index, 2*time.Hour)
	if !(old < first.Index && first.Index < recent && recent < live.Index) {
		t.Fatalf("unfinished versions %s and %s do not sort by age among %s and %s", old, recent, first.Index, live.Index)
	}
	st := status(t, a)
	if got, want := names(st), []string{old, first.Index, recent, live.Index}; !slices.Equal(got, want) {
		t.Fatalf("Status lists %v, want %v", got, want)
	}
	for _, in := range st {
		if unfinished := in.Name == old || in.Name == recent; in.Unfinished != unfinished || in.Live != (in.Name == live.Index) {
			t.Errorf("Status %s: unfinished %v, live %v", in.Name, in.Unfinished, in.Live)
		}
	}
	if got, err := a.Rollback(ctx(t)); err != nil || got != first.Index {
		t.Errorf("Rollback = %q, %v; want %s, past the unfinished %s", got, err, first.Index, recent)
	}
	next := load(t, a, "c", 30)
	want := []string{first.Index, recent, live.Index, next.Index}
	if h.Exclusive {
		want = slices.DeleteFunc(want, func(n string) bool { return n == recent })
	}
	if got := names(status(t, a)); !slices.Equal(got, want) {
		t.Errorf("after the next load Status lists %v, want %v (%s removed)", got, want, old)
	}
}

// testRefusesWorse: a guarded load of an empty catalogue, of one whose every line was refused,
// or of half the live items is refused, saying why; what was live stays live, the kept versions
// stay and the new one is gone. Allowed by the guard, each goes live.
func testRefusesWorse(t *testing.T, h Harness) {
	refused := func(g search.Guard) search.Guard {
		g.Rejected = func() (int64, int64) { return 7, 7 }
		return g
	}
	tests := []struct {
		name    string
		n       int
		guard   search.Guard
		want    error
		allowed search.Guard
	}{
		{"an empty file", 0, search.DefaultGuard, search.ErrEmpty, search.Guard{AllowEmpty: true, MaxShrink: 1}},
		{"every line refused", 0, refused(search.DefaultGuard), search.ErrRejected, refused(search.Unguarded)},
		{"half the live items", 20, search.DefaultGuard, search.ErrShrink, search.Guard{MaxRejected: 0.01, MaxShrink: 1}},
	}
	// Each case begins with live live again, so that the versions it allowed stay kept.
	a := h.Open(t, len(tests)+1)
	// A first load has nothing to be worse than.
	kept, err := a.LoadGuarded(ctx(t), search.Values(Items("a", 30)), search.DefaultGuard)
	if err != nil {
		t.Fatalf("LoadGuarded with nothing live: %v", err)
	}
	live := load(t, a, "b", 40)
	want := []version{{kept.Index, 30, false}, {live.Index, 40, true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := a.LoadGuarded(ctx(t), search.Values(Items("c", tt.n)), tt.guard)
			if !errors.Is(err, tt.want) || !errors.Is(err, search.ErrWorse) {
				t.Fatalf("LoadGuarded = %+v, %v; want an error wrapping %v", st, err, tt.want)
			}
			checkFinished(t, a, want...)
			st, err = a.LoadGuarded(ctx(t), search.Values(Items("c", tt.n)), tt.allowed)
			if err != nil || st.Indexed != tt.n {
				t.Fatalf("LoadGuarded allowed = %+v, %v; want %d items live", st, err, tt.n)
			}
			want[1].live = false
			checkFinished(t, a, append(slices.Clone(want), version{st.Index, tt.n, true})...)
			want = append(want, version{st.Index, tt.n, false})
			want[1].live = true
			if err := a.Use(ctx(t), live.Index); err != nil {
				t.Fatalf("Use(%s): %v", live.Index, err)
			}
		})
	}
}

// testKeepsOneWithItems: however many empty versions go live, loads keep the newest version
// with items.
func testKeepsOneWithItems(t *testing.T, h Harness) {
	a := h.Open(t, 0)
	full := load(t, a, "a", 10)
	var last search.LoadStats
	for range 3 {
		st, err := a.LoadGuarded(ctx(t), search.Values(nil), search.Unguarded)
		if err != nil {
			t.Fatalf("LoadGuarded empty, allowed: %v", err)
		}
		last = st
	}
	checkFinished(t, a, version{full.Index, 10, false}, version{last.Index, 0, true})
	if got, err := a.Rollback(ctx(t)); err != nil || got != full.Index {
		t.Errorf("Rollback = %q, %v; want %s", got, err, full.Index)
	}
}

// answers are what a search of the live version returns: totals and ids of a few queries.
func answers(t *testing.T, b search.Backend) []string {
	t.Helper()
	var out []string
	for _, q := range []search.Query{
		{Text: "harbour", Page: 1, PerPage: 50},
		{Text: "number 3", Page: 1, PerPage: 5},
		{Sort: search.SortNewest, Page: 2, PerPage: 7},
	} {
		res, err := b.Search(ctx(t), search.NewRequest(q))
		if err != nil {
			t.Fatalf("Search(%+v): %v", q, err)
		}
		ids := make([]string, len(res.Items))
		for i, it := range res.Items {
			ids[i] = it.ID
		}
		out = append(out, fmt.Sprintf("%q: %d %v", q.Text, res.Total, ids))
	}
	return out
}

// testRollForward: a rollback is undone by Use of the version it left: searches answer as they
// did before both, and the versions are as they were. Use of a name that is not a kept finished
// version fails and changes nothing.
func testRollForward(t *testing.T, h Harness) {
	a := h.Open(t, 2)
	first := load(t, a, "a", 30)
	second := load(t, a, "b", 45)
	before := answers(t, h.Serve(t, a))
	if got, err := a.Rollback(ctx(t)); err != nil || got != first.Index {
		t.Fatalf("Rollback = %q, %v; want %s", got, err, first.Index)
	}
	if back := answers(t, h.Serve(t, a)); slices.Equal(back, before) {
		t.Fatalf("after Rollback searches answer as before it: %v", back)
	}
	checkFinished(t, a, version{first.Index, 30, true}, version{second.Index, 45, false})
	if err := a.Use(ctx(t), second.Index); err != nil {
		t.Fatalf("Use(%s): %v", second.Index, err)
	}
	if after := answers(t, h.Serve(t, a)); !slices.Equal(after, before) {
		t.Errorf("after Rollback and Use, searches answer\n%v\nwant, as before both,\n%v", after, before)
	}
	checkFinished(t, a, version{first.Index, 30, false}, version{second.Index, 45, true})
	if err := a.Use(ctx(t), first.Index); err != nil {
		t.Fatalf("Use(%s), older: %v", first.Index, err)
	}
	checkFinished(t, a, version{first.Index, 30, true}, version{second.Index, 45, false})
	recent := h.Unfinished(t, a, second.Index, time.Nanosecond)
	for _, name := range []string{"", "nope", second.Index + "0", recent} {
		if err := a.Use(ctx(t), name); err == nil {
			t.Errorf("Use(%q) succeeded", name)
		}
	}
	st := status(t, a)
	if got, want := names(st), []string{first.Index, recent, second.Index}; !slices.Equal(got, want) {
		t.Errorf("Status lists %v, want %v", got, want)
	}
	for _, in := range st {
		if in.Live != (in.Name == first.Index) {
			t.Errorf("Status %s: live %v, want %s alone live", in.Name, in.Live, first.Index)
		}
	}
}
