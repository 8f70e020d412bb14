package searchtest

import (
	"testing"

	"mediagw/search"
	"mediagw/search/rights"
)

// reuseCase is a search of the filters of reuse (licence, use, format, duration, what an item
// has) and of comma lists, with the fewest items the fixture must give it.
type reuseCase struct {
	name string
	q    search.Query
	min  int
}

// reuseCases are every value of each of those filters alone, then lists and combinations.
func reuseCases() []reuseCase {
	var cases []reuseCase
	for _, id := range rights.IDs {
		// testRights holds that the fixture has every licence.
		cases = append(cases, reuseCase{"license " + id, search.Query{License: search.ListOf(id)}, 1})
	}
	for _, f := range search.Formats {
		cases = append(cases, reuseCase{"format " + f, search.Query{Format: search.ListOf(f)}, 0})
	}
	for _, d := range search.Durations {
		cases = append(cases, reuseCase{"duration " + d, search.Query{Duration: search.ListOf(d)}, 1})
	}
	for _, u := range search.Reuses {
		cases = append(cases, reuseCase{"reuse " + u, search.Query{Reuse: search.ListOf(u)}, 3})
	}
	for _, h := range search.Haves {
		cases = append(cases, reuseCase{"has " + h, search.Query{Has: search.ListOf(h)}, 1})
	}
	return append(cases, []reuseCase{
		{"reuse both", search.Query{Reuse: "commercial,modification"}, 3},
		{"has both", search.Query{Has: "media,thumbnail"}, 1},
		{"type list", search.Query{Type: "photo,video"}, 20},
		{"category list", search.Query{Category: "nature,people"}, 10},
		{"category list with an unknown slug", search.Query{Category: "nature,no-such-category"}, 5},
		{"language list", search.Query{Language: "en,fr,ja"}, 10},
		{"license list", search.Query{License: "by,by-sa,cc0,pdm"}, 4},
		{"open licences", search.Query{License: "by,by-nc,by-nc-nd,by-nc-sa,by-nd,by-sa,cc0,noc-us,pdm"}, 8},
		{"format list", search.Query{Format: "jpeg,mp4,pdf"}, 3},
		{"duration list", search.Query{Duration: "long,short"}, 2},
		{"videos under 20 minutes, openly licensed", search.Query{Type: "video", Duration: "medium,short", Reuse: "modification"}, 0},
		{"photos for commercial use", search.Query{Type: "photo", Reuse: "commercial"}, 1},
		{"every list at once", search.Query{Type: "photo,video", Language: "en,fr", License: "by,in-copyright,unknown", Has: "media"}, 1},
		{"licence and format", search.Query{License: "unknown", Format: "jpeg,png,mp4"}, 0},
		{"licence, use and dates", search.Query{License: "by,by-nc", Reuse: "commercial", From: "2000-01-01"}, 0},
		{"contradiction", search.Query{License: "by-nc-nd", Reuse: "commercial"}, 0},
		{"lists and author", search.Query{Type: "document,photo", Author: "Jane Doe", Has: "thumbnail"}, 0},
	}...)
}

// testReuseFilters: each of reuseCases finds exactly the items the model gives, in order, under
// two orders (one of them by a walk's cursors).
func testReuseFilters(t *testing.T, b search.Backend, items []search.Item) {
	for _, tt := range reuseCases() {
		for _, s := range []search.Sort{search.SortNewest, search.SortAZ} {
			q := tt.q
			q.Sort = s
			q.Normalize()
			t.Run(tt.name+"/"+string(s), func(t *testing.T) {
				want := expected(items, q)
				if len(want) < tt.min {
					t.Fatalf("fixture: %s matches %d items, the case needs %d", describe(q), len(want), tt.min)
				}
				var got []string
				total := 0
				if s == search.SortAZ {
					q.PerPage = 7
					got, total = walkCursor(t, b, q)
				} else {
					var page []search.Item
					page, total = walk(t, b, q, 50)
					got = ids(page)
				}
				if total != len(want) {
					t.Errorf("Search(%s): total %d, want %d", describe(q), total, len(want))
				}
				sameIDs(t, describe(q), got, want)
			})
		}
	}
}

// testRealReuse: on the real catalogue, every licence id, use, format, duration bucket and has
// value, alone and in comma lists and combinations, finds as many items as the model, the first
// page the model's.
func testRealReuse(t *testing.T, b search.Backend, items []search.Item) {
	cases := reuseCases()
	cases = append(cases, []reuseCase{
		{"open videos under 20 minutes", search.Query{Type: "video", Reuse: "modification", Duration: "medium,short"}, 1},
		{"photos and documents for commercial use, with a thumbnail", search.Query{Type: "document,photo", Reuse: "commercial", Has: "thumbnail"}, 0},
		{"in copyright or unknown, in English or French", search.Query{License: "in-copyright,unknown", Language: "en,fr"}, 1},
	}...)
	for _, tt := range cases {
		q := tt.q
		q.Sort, q.Page, q.PerPage = search.SortNewest, 1, 20
		q.Normalize()
		t.Run(tt.name, func(t *testing.T) {
			want := expected(items, q)
			res := search1(t, b, q)
			if res.Total != len(want) {
				t.Errorf("Search(%s): total %d, want %d", describe(q), res.Total, len(want))
			}
			sameIDs(t, describe(q), ids(res.Items), want[:min(len(want), q.PerPage)])
		})
	}
}
