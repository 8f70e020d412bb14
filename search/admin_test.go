package search

import (
	"errors"
	"reflect"
	"testing"
)

func TestRetain(t *testing.T) {
	fin := func(names ...string) []StoredVersion {
		out := make([]StoredVersion, len(names))
		for i, n := range names {
			out[i] = StoredVersion{Name: n}
		}
		return out
	}
	unfinished := StoredVersion{Name: "c", Unfinished: true}
	abandoned := StoredVersion{Name: "a", Unfinished: true, Abandoned: true}
	tests := []struct {
		name     string
		versions []StoredVersion
		live     string
		keep     int
		want     Retention
	}{
		{"nothing yet", nil, "", 2, Retention{}},
		{"only the live one", fin("a"), "a", 2, Retention{}},
		{"fewer than keep", fin("a", "b", "c"), "c", 2, Retention{Rollback: "b"}},
		{"more than keep: the oldest go", fin("a", "b", "c", "d", "e"), "e", 2, Retention{Remove: []string{"a", "b"}, Rollback: "d"}},
		{"keep 0 keeps only the live one", fin("a", "b", "c"), "c", 0, Retention{Remove: []string{"a", "b"}, Rollback: "b"}},
		{"a negative keep is 0", fin("a", "b"), "b", -1, Retention{Remove: []string{"a"}, Rollback: "a"}},
		{"after a rollback, newer versions stay", fin("a", "b", "c", "d"), "b", 0, Retention{Remove: []string{"a"}, Rollback: "a"}},
		{"the oldest live: no rollback", fin("a", "b"), "a", 1, Retention{}},
		{"an unfinished version is never the rollback target", append(fin("b"), unfinished, StoredVersion{Name: "d"}), "d", 5, Retention{Rollback: "b"}},
		{"an unfinished version whose load may run stays, and does not count", append(fin("b"), unfinished, StoredVersion{Name: "d"}), "d", 1, Retention{Rollback: "b"}},
		{"an abandoned version goes whatever keep", append([]StoredVersion{abandoned}, fin("b", "d")...), "d", 5, Retention{Remove: []string{"a"}, Rollback: "b"}},
		{"removals sorted oldest first", append([]StoredVersion{{Name: "a"}, {Name: "b", Unfinished: true, Abandoned: true}}, fin("c", "d")...), "d", 0, Retention{Remove: []string{"a", "b", "c"}, Rollback: "c"}},
		{"an abandoned version newer than live stays", append(fin("a", "b"), StoredVersion{Name: "c", Unfinished: true, Abandoned: true}), "b", 2, Retention{Rollback: "a"}},
		{"no live version: nothing goes", fin("a", "b"), "", 0, Retention{}},
		{"an empty live one keeps the newest with items", []StoredVersion{{Name: "a"}, {Name: "b"}, {Name: "c", Empty: true}, {Name: "d", Empty: true}}, "d", 1,
			Retention{Remove: []string{"a"}, Rollback: "c"}},
		{"an empty older one is not kept for it", []StoredVersion{{Name: "a"}, {Name: "b", Empty: true}, {Name: "c", Empty: true}}, "c", 0,
			Retention{Remove: []string{"b"}, Rollback: "b"}},
		{"a live one with items keeps only keep", []StoredVersion{{Name: "a"}, {Name: "b", Empty: true}, {Name: "c"}}, "c", 0,
			Retention{Remove: []string{"a", "b"}, Rollback: "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Retain(tt.versions, tt.live, tt.keep); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Retain(%+v, %q, %d) = %+v, want %+v", tt.versions, tt.live, tt.keep, got, tt.want)
			}
		})
	}
}

func TestGuardCheck(t *testing.T) {
	rejected := func(r, lines int64) func() (int64, int64) { return func() (int64, int64) { return r, lines } }
	withRejected := func(g Guard, r, lines int64) Guard { g.Rejected = rejected(r, lines); return g }
	tests := []struct {
		name    string
		g       Guard
		n, live int64
		want    error
	}{
		{"a first load", DefaultGuard, 10, -1, nil},
		{"a bigger one", DefaultGuard, 10, 5, nil},
		{"10% fewer", DefaultGuard, 90, 100, nil},
		{"over 10% fewer", DefaultGuard, 89, 100, ErrShrink},
		{"half", DefaultGuard, 50, 100, ErrShrink},
		{"half, allowed", Guard{MaxShrink: 1}, 50, 100, nil},
		{"empty", DefaultGuard, 0, -1, ErrEmpty},
		{"empty beside an empty live one", DefaultGuard, 0, 0, ErrEmpty},
		{"empty, allowed, shrinks", Guard{AllowEmpty: true, MaxShrink: 0.1}, 0, 100, ErrShrink},
		{"empty, allowed", Guard{AllowEmpty: true, MaxShrink: 1}, 0, 100, nil},
		{"1% refused", withRejected(DefaultGuard, 1, 100), 99, -1, nil},
		{"over 1% refused", withRejected(DefaultGuard, 2, 100), 98, -1, ErrRejected},
		{"every line refused", withRejected(DefaultGuard, 3, 3), 0, 5, ErrRejected},
		{"every line refused, allowed", withRejected(Unguarded, 3, 3), 0, 5, nil},
		{"no line", withRejected(Guard{AllowEmpty: true}, 0, 0), 0, -1, nil},
		{"unguarded", Unguarded, 0, 1000, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.Check(tt.n, tt.live)
			if tt.want == nil && err != nil || tt.want != nil && (!errors.Is(err, tt.want) || !errors.Is(err, ErrWorse)) {
				t.Errorf("Check(%d, %d) = %v, want %v", tt.n, tt.live, err, tt.want)
			}
		})
	}
}
