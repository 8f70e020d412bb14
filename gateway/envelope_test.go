package gateway

import (
	"testing"

	"mediagw/params"
	"mediagw/search"
)

// TestPageLinks: every link is the canonical query of its page (params.Values), which clients
// and caches see as the same URL for the same page however the query was first written.
func TestPageLinks(t *testing.T) {
	g := &Gateway{baseURL: "https://media.example.org/media/"}
	for _, q := range []search.Query{
		{Sort: search.SortNewest, Page: 1, PerPage: 20},
		{Text: "street market & more", Sort: search.SortRelevance, Page: 3, PerPage: 10},
		{Text: "x", Sort: search.SortAZ, Author: "Zoë Ångström", Category: "places", From: "1990-01-01", Page: 2, PerPage: 50},
		{Type: "photo", Language: "fr", To: "2000-12-31", Sort: search.SortDownloads, Page: 1, PerPage: 1},
	} {
		for _, total := range []int{0, 1, 95, 100_000} {
			totalPages := (total + q.PerPage - 1) / q.PerPage
			l := g.pageLinks(&q, totalPages)
			canonical := func(page int) string {
				return g.baseURL + "?resource=items&" + params.Values(&q, page).Encode()
			}
			last := min(max(totalPages, 1), search.MaxDepth/q.PerPage)
			if l.Self != canonical(q.Page) || l.First != canonical(1) || l.Last == nil || *l.Last != canonical(last) {
				t.Errorf("%+v, total %d: links %+v, want self %s", q, total, l, canonical(q.Page))
			}
			if q.Page > 1 && (l.Prev == nil || *l.Prev != canonical(min(q.Page-1, last))) {
				t.Errorf("%+v, total %d: prev %v", q, total, l.Prev)
			}
			if q.Page < last && (l.Next == nil || *l.Next != canonical(q.Page+1)) {
				t.Errorf("%+v, total %d: next %v", q, total, l.Next)
			}
		}
	}
}
