package memo

import (
	"sync"
	"testing"
)

func TestMap(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size      int
		puts      []int
		remembers []int
		forgets   []int
	}{
		{"under the size", 3, []int{1, 2}, []int{1, 2}, []int{3}},
		{"at the size", 3, []int{1, 2, 3}, []int{1, 2, 3}, nil},
		{"past the size: starts again", 3, []int{1, 2, 3, 4}, []int{4}, []int{1, 2, 3}},
		{"a key put again does not fill it", 2, []int{1, 2, 2, 1}, []int{1, 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New[int, string](tc.size)
			for _, k := range tc.puts {
				m.Put(k, "v")
			}
			for _, k := range tc.remembers {
				if v, ok := m.Get(k); !ok || v != "v" {
					t.Errorf("Get(%d) = %q, %v; want remembered", k, v, ok)
				}
			}
			for _, k := range tc.forgets {
				if _, ok := m.Get(k); ok {
					t.Errorf("Get(%d) found, want forgotten", k)
				}
			}
		})
	}
}

func TestNilMapRemembersNothing(t *testing.T) {
	var m *Map[string, int]
	m.Put("a", 1)
	if v, ok := m.Get("a"); ok || v != 0 {
		t.Errorf("nil Map: Get = %d, %v; want nothing", v, ok)
	}
}

func TestConcurrentUse(t *testing.T) {
	m := New[int, int](64)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				m.Put(g*1000+i, i)
				if v, ok := m.Get(g*1000 + i); ok && v != i {
					t.Errorf("Get(%d) = %d, want %d", g*1000+i, v, i)
				}
			}
		})
	}
	wg.Wait()
	if n := len(m.m); n > 64 {
		t.Errorf("%d keys, past the size 64", n)
	}
}
