package searchtest

import (
	"testing"
	"time"

	"mediagw/search"
)

// BenchWalk measures what cursor paging costs over numbered pages: a full walk of q (every match,
// per_page 50) against as many first pages of q, the cheapest numbered page. It reports the
// ratio of the two times, "walk/first" (its aim in docs/performance.md), and each one's time per
// page. Both run on b's backend, one after the other, in every iteration, so that the machine's
// load weighs on both alike.
func BenchWalk(b *testing.B, be search.Backend, q search.Query) {
	q.PerPage = walkPerPage
	var walkTime, firstTime time.Duration
	pages := 0
	for b.Loop() {
		start := time.Now()
		n := 0
		w := q
		w.Cursor = search.StartCursor
		for {
			res, err := be.Search(b.Context(), search.NewRequest(w))
			if err != nil {
				b.Fatalf("walk page %d: %v", n+1, err)
			}
			n++
			if res.Next == "" {
				break
			}
			w.Cursor = res.Next
		}
		walkTime += time.Since(start)
		pages += n
		first := q
		first.Page = 1
		start = time.Now()
		for range n {
			if _, err := be.Search(b.Context(), search.NewRequest(first)); err != nil {
				b.Fatalf("first page: %v", err)
			}
		}
		firstTime += time.Since(start)
	}
	b.ReportMetric(float64(walkTime)/float64(firstTime), "walk/first")
	b.ReportMetric(float64(walkTime.Milliseconds())/float64(pages), "walk-ms/page")
	b.ReportMetric(float64(firstTime.Milliseconds())/float64(pages), "first-ms/page")
	b.ReportMetric(float64(pages)/float64(b.N), "pages")
}
