package cache

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"testing"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// decoding answers each search with a page of items decoded afresh from JSON, as an engine's
// answer is: every string and list its own allocation.
type decoding struct {
	search.Backend
	// pages holds the pages of each size, encoded.
	pages map[int][][]byte
}

func (d decoding) Search(_ context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	var r search.Result
	pages := d.pages[q.PerPage]
	err := json.Unmarshal(pages[q.Page%len(pages)], &r.Items)
	r.Total = 1000
	return r, err
}

// TestSizeEstimateIsHonest: the size the cache counts for its answers (the bound MaxBytes holds)
// is the heap they take, within a tenth, so that 64 MiB of answers is 64 MiB of memory.
func TestSizeEstimateIsHonest(t *testing.T) {
	items := searchtest.Generated(t, 2000, 3)
	be := decoding{pages: map[int][][]byte{}}
	for _, per := range []int{1, 20} {
		for i := 0; i+per <= len(items); i += per {
			page, err := json.Marshal(items[i : i+per])
			if err != nil {
				t.Fatal(err)
			}
			be.pages[per] = append(be.pages[per], page)
		}
	}
	for _, tc := range []struct {
		name    string
		perPage int
	}{{"pages of twenty", 20}, {"pages of one", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(be, Options{MaxEntries: 1 << 20, MaxBytes: 1 << 40})
			const n = 3000
			before := heap()
			for i := range n {
				q := search.Query{Text: "q" + strconv.Itoa(i), Page: i, PerPage: tc.perPage, Sort: search.SortRelevance}
				if _, err := b.Search(t.Context(), search.NewRequest(q)); err != nil {
					t.Fatal(err)
				}
			}
			grown := heap() - before
			_, estimate := b.results.stats()
			runtime.KeepAlive(b)
			ratio := float64(estimate) / float64(grown)
			t.Logf("%d answers: estimate %d KiB, heap grew %d KiB (%.2f)", n, estimate>>10, grown>>10, ratio)
			if ratio < 0.9 || ratio > 1.1 {
				t.Errorf("estimate %d bytes for a heap growth of %d: %.2f of it, want within 10%%", estimate, grown, ratio)
			}
		})
	}
}

// heap is the live heap after a collection.
func heap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
