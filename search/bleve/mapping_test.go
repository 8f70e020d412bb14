package bleve

import (
	"context"
	"slices"
	"testing"

	"mediagw/search"
)

// The index folds words exactly as search.Fold does, so text matching and the az order agree.
func TestAnalyzeFoldsLikeSearchFold(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Élan", "ÉLAN", "elan", "Straße", "Jöns", "HARBOUR", "Ηλέκτρα", "ΣΟΦΟΚΛΗΣ", "Война", "Łukasz", "Nuñez", "שִׁיר", "ألف", "ǅemal", "K"} {
		if got, want := analyze(m, w), []string{search.Fold(w)}; !slices.Equal(got, want) {
			t.Errorf("analyze(%q) = %q, want %q", w, got, want)
		}
	}
	tests := []struct {
		text string
		want []string
	}{
		{"Sunset over the harbour", []string{"sunset", "over", "the", "harbour"}},
		{"title:harbour", []string{"title", "harbour"}},
		{`"(harbour*)" OR \sunset`, []string{"harbour", "or", "sunset"}},
		{"harbour harbour", []string{"harbour"}},
		{"羅生門", []string{"羅生", "生門"}},
		{"ｈａｒｂｏｕｒ", []string{"harbour"}},
		{`"*:\`, []string{}},
	}
	for _, tt := range tests {
		if got := analyze(m, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("analyze(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestSearchedFieldsAreIndexed: every field search.SearchedFields weighs has an analysed field
// in the mapping.
func TestSearchedFieldsAreIndexed(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range search.SearchedFields {
		name, ok := textFields[f.Field]
		if !ok {
			t.Errorf("search.SearchedFields has %q, which textFields does not name", f.Field)
			continue
		}
		if fm := m.DefaultMapping.Properties[name]; fm == nil || len(fm.Fields) == 0 || fm.Fields[0].Analyzer != textAnalyzer {
			t.Errorf("%s (%s) is not an analysed field of the mapping", f.Field, name)
		}
	}
}

// FuzzSearchText: no user text makes a search fail.
func FuzzSearchText(f *testing.F) {
	for _, s := range []string{"harbour", `"`, `(`, `*`, `:`, `\`, "OR", "AND NOT", "title:x", "+-~^", "羅生門", "\xff\xfe", "a\x00b", "  ", "ｈａｒｂｏｕｒ~2"} {
		f.Add(s)
	}
	dir := f.TempDir()
	b, err := NewFromItems(context.Background(), dir, genItems("f", 20))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = b.Close() })
	f.Fuzz(func(t *testing.T, text string) {
		res, err := b.Search(context.Background(), search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 5})
		if err != nil {
			t.Fatalf("Search(%q): %v", text, err)
		}
		if res.Items == nil || res.Total < len(res.Items) {
			t.Fatalf("Search(%q) = %+v", text, res)
		}
	})
}
