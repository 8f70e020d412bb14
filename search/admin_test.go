package search

import (
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Retain(tt.versions, tt.live, tt.keep); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Retain(%+v, %q, %d) = %+v, want %+v", tt.versions, tt.live, tt.keep, got, tt.want)
			}
		})
	}
}
