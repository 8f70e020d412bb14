package gateway_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// pagedList is the body of a paged list: a list body with the items' pagination and links.
type pagedList struct {
	listBody
	Pagination struct {
		Page       int `json:"page"`
		PerPage    int `json:"per_page"`
		Total      int `json:"total"`
		TotalPages int `json:"total_pages"`
	} `json:"pagination"`
	Links struct {
		Self, First string
		Prev, Next  *string
		Last        *string
	} `json:"links"`
}

// TestListPagesReachEveryEntry: following next from the first page of a list, each entry comes
// once and in the list's order, whatever the order asked; the links and the Link header say so.
func TestListPagesReachEveryEntry(t *testing.T) {
	h := newHarness(t)
	for _, res := range []string{"authors", "categories"} {
		whole := decode[listBody](t, h.get("/?resource="+res))
		for _, sort := range []string{"name", "count"} {
			var seen []string
			var counts []int
			target := "/?resource=" + res + "&sort=" + sort + "&per_page=3"
			for pages := 0; target != ""; pages++ {
				rec := h.get(target)
				if rec.Code != http.StatusOK || pages > len(whole.Data) {
					t.Fatalf("%s: status %d after %d pages", target, rec.Code, pages)
				}
				body := decode[pagedList](t, rec)
				if body.Total != len(whole.Data) || body.Pagination.Total != body.Total || body.Pagination.PerPage != 3 || body.Links.Last == nil {
					t.Fatalf("%s: total %d, pagination %+v, want %d entries of 3 a page", target, body.Total, body.Pagination, len(whole.Data))
				}
				if link := rec.Header().Get("Link"); !strings.Contains(link, `rel="first"`) {
					t.Errorf("%s: Link %q", target, link)
				}
				for _, d := range body.Data {
					seen = append(seen, d.Slug+d.Name)
					counts = append(counts, d.Count)
				}
				target = ""
				if body.Links.Next != nil {
					target = strings.TrimPrefix(*body.Links.Next, publicURL)
				}
			}
			var want []string
			for _, d := range whole.Data {
				want = append(want, d.Slug+d.Name)
			}
			got := slices.Clone(seen)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s sort=%s: the pages hold %v, want each of %v once", res, sort, seen, want)
			}
			if sort == "count" && !slices.IsSortedFunc(counts, func(a, b int) int { return b - a }) {
				t.Errorf("%s sort=count: counts %v, want most first", res, counts)
			}
		}
	}
}

// TestListBadParameters: a bad list parameter is a 400 naming it, every one of them.
func TestListBadParameters(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		target string
		want   []string
	}{
		{"/?resource=authors&per_page=1001", []string{"per_page"}},
		{"/?resource=authors&sort=downloads&page=0", []string{"sort", "page"}},
		{"/?resource=categories&type=audio&q=" + strings.Repeat("a", 101), []string{"q", "type"}},
		{"/?resource=authors&from=2020-13-01", []string{"from"}},
	} {
		rec := h.get(tc.target)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", tc.target, rec.Code)
			continue
		}
		if got := decode[problemBody](t, rec).params(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: errors name %v, want %v", tc.target, got, tc.want)
		}
	}
}
