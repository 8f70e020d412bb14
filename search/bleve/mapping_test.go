package bleve

import (
	"context"
	"slices"
	"testing"

	"mediagw/search"
	"mediagw/search/admintest"
	"mediagw/search/text"
)

// The index's analyzer is search/text's, which the engines and the queries use too.
func TestIndexAnalyzerIsText(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	a := m.AnalyzerNamed(textAnalyzer)
	for _, s := range []string{"Sunset over the harbour", "Winter's Tale", "l'Amérique", "羅生門", "ｈａｒｂｏｕｒ", `"*:\`, ""} {
		var got, want []string
		for _, tok := range a.Analyze([]byte(s)) {
			got = append(got, string(tok.Term))
		}
		for _, tok := range text.IndexTerms(s) {
			want = append(want, tok.Term)
		}
		if !slices.Equal(got, want) {
			t.Errorf("analyzer(%q) = %q, want %q", s, got, want)
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
	b, err := NewFromItems(context.Background(), dir, admintest.Items("f", 20))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = b.Close() })
	f.Fuzz(func(t *testing.T, text string) {
		res, err := b.Search(context.Background(), search.NewRequest(search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 5}))
		if err != nil {
			t.Fatalf("Search(%q): %v", text, err)
		}
		if res.Items == nil || res.Total < len(res.Items) {
			t.Fatalf("Search(%q) = %+v", text, res)
		}
	})
}
