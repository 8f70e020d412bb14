package params

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
)

// TestParseLists: the lists' parameters read into a list query; none of them is the plain list.
func TestParseLists(t *testing.T) {
	tests := []struct {
		resource, raw string
		want          search.ListQuery
	}{
		{ResourceAuthors, "", search.ListQuery{Sort: search.ListByName}},
		{ResourceAuthors, "q=+Austen+&sort=name", search.ListQuery{Text: "Austen", Sort: search.ListByName}},
		{ResourceAuthors, "sort=count&per_page=50", search.ListQuery{Sort: search.ListByCount, Page: 1, PerPage: 50}},
		{ResourceCategories, "page=3", search.ListQuery{Sort: search.ListByName, Page: 3, PerPage: search.DefaultListPerPage}},
		{ResourceAuthors, "type=video,photo&category=nature&language=French&from=2001-01-01",
			search.ListQuery{Sort: search.ListByName, Filter: search.Query{Type: "photo,video", Category: "nature", Language: "fr", From: "2001-01-01"}}},
		{ResourceCategories, "license=cc0&reuse=commercial&has=media&format=jpeg&duration=short&to=2020-01-01",
			search.ListQuery{Sort: search.ListByName, Filter: search.Query{License: "cc0", Reuse: "commercial", Has: "media", Format: "jpeg", Duration: "short", To: "2020-01-01"}}},
		// Parameters of resource=items only are ignored, as unknown ones are.
		{ResourceCategories, "category=nature&author=x&facets=type", search.ListQuery{Sort: search.ListByName}},
	}
	for _, tt := range tests {
		got, errs := ParseLists(Split(tt.raw), tt.resource)
		if errs != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %q = %+v, %v; want %+v", tt.resource, tt.raw, got, errs, tt.want)
		}
		if plain := tt.raw == "" || strings.HasPrefix(tt.raw, "category=nature&author"); got.Plain() != plain {
			t.Errorf("%s %q: Plain() = %t, want %t", tt.resource, tt.raw, got.Plain(), plain)
		}
	}
}

// TestParseListsRejects: every bad list parameter is named, with its rule.
func TestParseListsRejects(t *testing.T) {
	tests := []struct {
		resource, raw string
		want          []string // the parameters named, in the table's order
		message       string   // of the first
	}{
		{ResourceAuthors, "q=" + strings.Repeat("a", search.MaxListTextRunes+1), []string{"q"}, "must be at most 100 characters"},
		{ResourceAuthors, "sort=downloads", []string{"sort"}, "must be one of name, count"},
		{ResourceAuthors, "per_page=1001", []string{"per_page"}, "must be an integer from 1 to 1000"},
		{ResourceCategories, "per_page=0", []string{"per_page"}, "must be an integer from 1 to 1000"},
		{ResourceCategories, "page=0", []string{"page"}, "must be an integer of at least 1"},
		{ResourceAuthors, "type=audio&language=xx&page=x&sort=x", []string{"type", "language", "sort", "page"}, ""},
		{ResourceAuthors, "from=2020-02-30", []string{"from"}, "must be a real date YYYY-MM-DD"},
		{ResourceAuthors, "q=a&q=b", []string{"q"}, "given 2 times; give it at most once"},
	}
	for _, tt := range tests {
		_, errs := ParseLists(Split(tt.raw), tt.resource)
		var names []string
		for _, fe := range errs {
			names = append(names, fe.Parameter)
		}
		if !slices.Equal(names, tt.want) || (tt.message != "" && errs[0].Message != tt.message) {
			t.Errorf("%s %q: errors %+v, want parameters %v, the first %q", tt.resource, tt.raw, errs, tt.want, tt.message)
		}
	}
}

// FuzzListsRoundTrip: every accepted list query encodes back, as its links write it, to a query
// string that reads as the same list query.
func FuzzListsRoundTrip(f *testing.F) {
	for _, s := range []string{"", "q=+Jane+au&sort=count", "page=2&per_page=7", "per_page=1000", "type=video,photo&category=b,a&from=2020-01-01",
		"language=zh-Hant-TW&license=by,cc0&reuse=commercial&format=mp4&duration=long&has=media&to=2021-01-01", "q=a%20%20b&page=99999999999"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, raw string, authors bool) {
		resource := ResourceCategories
		if authors {
			resource = ResourceAuthors
		}
		lq, errs := ParseLists(Split(raw), resource)
		if errs != nil {
			return
		}
		v := ListValues(resource, lq, lq.Page)
		again, errs := ParseLists(Split(v.Encode()), resource)
		if errs != nil || !reflect.DeepEqual(again, lq) {
			t.Fatalf("%s %q reads as %+v; its encoding %q as %+v %v", resource, raw, lq, v.Encode(), again, errs)
		}
	})
}
