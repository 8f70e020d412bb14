package search

import (
	"slices"
	"testing"
)

// TestNameMatch: every word of q, the last as a prefix, anywhere in the name, case and accents
// ignored.
func TestNameMatch(t *testing.T) {
	tests := []struct {
		q, name string
		want    bool
	}{
		{"austen", "Austen, Jane", true},
		{"austen", "Jane Austen", true},
		{"AUST", "Jane Austen", true},
		{"jane aus", "Austen, Jane", true},
		{"jan aus", "Austen, Jane", false}, // only the last word is a prefix
		{"sten", "Jane Austen", false},     // a prefix of a word, not any part of it
		{"émile", "Emile Zola", true},
		{"zola émi", "ÉMILE ZOLA", true},
		{"...", "Jane Austen", false}, // no word: nothing
		{"nature", "nature Nature", true},
	}
	for _, tt := range tests {
		if got := NewNameMatch(tt.q).Matches(tt.name); got != tt.want {
			t.Errorf("NewNameMatch(%q).Matches(%q) = %t, want %t", tt.q, tt.name, got, tt.want)
		}
	}
}

// TestListIndexSelect: name or count order (ties by name), the name search, and pages that reach
// every entry once.
func TestListIndexSelect(t *testing.T) {
	authors := []Author{{"Austen, Jane", 2}, {"Brontë, Emily", 5}, {"Dickens", 2}, {"Jane Austen", 7}, {"Zola", 1}}
	x := NewListIndex(authors)
	names := func(as []Author) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Name)
		}
		return out
	}
	tests := []struct {
		lq    ListQuery
		want  []string
		total int
	}{
		{ListQuery{Sort: ListByName}, []string{"Austen, Jane", "Brontë, Emily", "Dickens", "Jane Austen", "Zola"}, 5},
		{ListQuery{Sort: ListByCount}, []string{"Jane Austen", "Brontë, Emily", "Austen, Jane", "Dickens", "Zola"}, 5},
		{ListQuery{Sort: ListByCount, Page: 2, PerPage: 2}, []string{"Austen, Jane", "Dickens"}, 5},
		{ListQuery{Sort: ListByName, Page: 3, PerPage: 2}, []string{"Zola"}, 5},
		{ListQuery{Sort: ListByName, Page: 4, PerPage: 2}, nil, 5},
		{ListQuery{Sort: ListByName, Page: 1 << 62, PerPage: 1000}, nil, 5},
		{ListQuery{Text: "austen", Sort: ListByName}, []string{"Austen, Jane", "Jane Austen"}, 2},
		{ListQuery{Text: "austen", Sort: ListByCount, Page: 1, PerPage: 1}, []string{"Jane Austen"}, 2},
		{ListQuery{Text: "austen", Sort: ListByCount, Page: 2, PerPage: 1}, []string{"Austen, Jane"}, 2},
		{ListQuery{Text: "bronte", Sort: ListByName}, []string{"Brontë, Emily"}, 1},
		{ListQuery{Text: "nobody", Sort: ListByName}, nil, 0},
	}
	for _, tt := range tests {
		got, total := x.Select(tt.lq)
		if !slices.Equal(names(got), tt.want) || total != tt.total || got == nil {
			t.Errorf("Select(%+v) = %v (%d), want %v (%d), never nil", tt.lq, names(got), total, tt.want, tt.total)
		}
	}
	cats := NewListIndex([]Category{{"art", "Fine Art", 1}, {"nature", "Wildlife", 3}})
	if got, n := cats.Select(ListQuery{Text: "wild", Sort: ListByName}); n != 1 || got[0].Slug != "nature" {
		t.Errorf("categories by name: %v (%d), want nature", got, n)
	}
	if got, n := cats.Select(ListQuery{Text: "natu", Sort: ListByName}); n != 1 || got[0].Slug != "nature" {
		t.Errorf("categories by slug: %v (%d), want nature", got, n)
	}
}
