package search

import (
	"slices"
	"testing"

	"mediagw/search/rights"
)

func TestListOf(t *testing.T) {
	tests := []struct {
		in   []string
		want List
	}{
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"video", "photo", "video"}, "photo,video"},
		{[]string{"by-sa", "", "by", "cc0"}, "by,by-sa,cc0"},
	}
	for _, tt := range tests {
		got := ListOf(tt.in...)
		if got != tt.want {
			t.Errorf("ListOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !slices.Equal(got.Values(), ListOf(got.Values()...).Values()) {
			t.Errorf("ListOf(%q).Values() = %q: not canonical", tt.in, got.Values())
		}
	}
}

// TestListFilters: a list of alternatives admits any of its values, a list of requirements
// only what has every one; an empty list admits everything.
func TestListFilters(t *testing.T) {
	tests := []struct {
		l     List
		v     string
		have  []string
		anyOf bool
		allOf bool
	}{
		{"", "photo", nil, true, true},
		{"photo", "photo", []string{"photo"}, true, true},
		{"photo,video", "video", []string{"video"}, true, false},
		{"photo,video", "document", []string{"photo", "video", "document"}, false, true},
		{"photo", "", nil, false, false},
		// A value is a whole value, not a part of one.
		{"by-sa", "by", []string{"by"}, false, false},
	}
	for _, tt := range tests {
		if got := tt.l.AnyOf(tt.v); got != tt.anyOf {
			t.Errorf("%q.AnyOf(%q) = %v, want %v", tt.l, tt.v, got, tt.anyOf)
		}
		if got := tt.l.AllOf(tt.have); got != tt.allOf {
			t.Errorf("%q.AllOf(%q) = %v, want %v", tt.l, tt.have, got, tt.allOf)
		}
	}
}

func TestNormalizeOrdersLists(t *testing.T) {
	q := Query{Type: "video,photo,video", License: "cc0,by", Has: "thumbnail,media"}
	q.Normalize()
	if q.Type != "photo,video" || q.License != "by,cc0" || q.Has != "media,thumbnail" {
		t.Errorf("normalized lists %q %q %q, want them sorted, each value once", q.Type, q.License, q.Has)
	}
}

func TestUsesAndHas(t *testing.T) {
	tests := []struct {
		it          Item
		uses, holds []string
	}{
		{Item{Rights: "CC BY-SA 4.0", MediaURL: "https://m", ThumbnailURL: "https://t"}, []string{ReuseCommercial, ReuseModification}, []string{HasMedia, HasThumbnail}},
		{Item{Rights: "by-nd", ThumbnailURL: "https://t"}, []string{ReuseCommercial}, []string{HasThumbnail}},
		{Item{Rights: "CC BY-NC 3.0", MediaURL: "https://m"}, []string{ReuseModification}, []string{HasMedia}},
		{Item{Rights: "© 2019 someone"}, nil, nil},
	}
	for _, tt := range tests {
		tt.it.Derive()
		if got := tt.it.Uses(); !slices.Equal(got, tt.uses) {
			t.Errorf("%q: uses %q, want %q", tt.it.Rights, got, tt.uses)
		}
		if got := tt.it.Has(); !slices.Equal(got, tt.holds) {
			t.Errorf("%q: holds %q, want %q", tt.it.Rights, got, tt.holds)
		}
	}
}

// TestFacetFilters: each facet of a list filter counts the item under the value it filters by,
// and Without and With change only that facet's filter.
func TestFacetFilters(t *testing.T) {
	it := Item{Type: TypeVideo, Category: "nature", Language: "en", Date: "2020-05-01", Rights: "CC0", MimeType: "video/mp4"}
	seconds := 300.0
	it.DurationSeconds = &seconds
	it.Derive()
	want := map[Facet]string{FacetType: "video", FacetCategory: "nature", FacetLanguage: "en", FacetYear: "2020",
		FacetLicense: rights.CC0, FacetFormat: "mp4", FacetDuration: DurationMedium}
	q := Query{Type: "photo", Category: "a", Language: "fr", From: "2000-01-01", License: "by", Format: "jpeg",
		Duration: "short", Reuse: "commercial", Has: "media"}
	for _, f := range Facets {
		if got := it.Value(f); got != want[f] {
			t.Errorf("%s value %q, want %q", f, got, want[f])
		}
		w := q.With(f, it.Value(f))
		if f != FacetYear && *w.Filter(f) != ListOf(want[f]) {
			t.Errorf("With(%s, %q) filters by %q", f, want[f], *w.Filter(f))
		}
		wo := q.Without(f)
		for _, g := range Facets {
			if g == f || g == FacetYear {
				continue
			}
			if *wo.Filter(g) != *q.Filter(g) {
				t.Errorf("Without(%s) changed the %s filter", f, g)
			}
		}
		if wo.Reuse != q.Reuse || wo.Has != q.Has {
			t.Errorf("Without(%s) changed reuse or has", f)
		}
	}
}
