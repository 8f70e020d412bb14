package search

import (
	"reflect"
	"slices"
	"testing"
)

// TestKeyHoldsTheQuery: a change of any field of the Query but Given and Highlight names another
// answer (Request.Key), and MatchKey changes with those that decide which items match only; so no
// field the client sets is left out of a cached answer's key.
func TestKeyHoldsTheQuery(t *testing.T) {
	base := Query{Text: "harbour", Sort: SortRelevance, Page: 1, PerPage: 20}
	// Each field of Query as a client might set it otherwise, and whether it decides which items match.
	set := map[string]struct {
		edit  func(*Query)
		match bool
	}{
		"Text":      {func(q *Query) { q.Text = "harbor" }, true},
		"Phrases":   {func(q *Query) { q.Phrases = q.Phrases.With("winter sea") }, true},
		"Exclude":   {func(q *Query) { q.Exclude = q.Exclude.With("night") }, true},
		"Type":      {func(q *Query) { q.Type = TypePhoto }, true},
		"Category":  {func(q *Query) { q.Category = "places" }, true},
		"Language":  {func(q *Query) { q.Language = "en" }, true},
		"License":   {func(q *Query) { q.License = "by" }, true},
		"Format":    {func(q *Query) { q.Format = "jpeg" }, true},
		"Duration":  {func(q *Query) { q.Duration = "short" }, true},
		"Reuse":     {func(q *Query) { q.Reuse = "commercial" }, true},
		"Has":       {func(q *Query) { q.Has = "media" }, true},
		"Author":    {func(q *Query) { q.Author = "Ann" }, true},
		"From":      {func(q *Query) { q.From = "2000-01-01" }, true},
		"To":        {func(q *Query) { q.To = "2000-01-01" }, true},
		"Sort":      {func(q *Query) { q.Sort = SortNewest }, false},
		"Page":      {func(q *Query) { q.Page = 2 }, false},
		"PerPage":   {func(q *Query) { q.PerPage = 21 }, false},
		"Cursor":    {func(q *Query) { q.Cursor = StartCursor }, false},
		"Facets":    {func(q *Query) { q.Facets = FacetSet(FacetType) }, false},
		"Given":     {func(q *Query) { q.Given = "harbour " }, false},
		"Highlight": {func(q *Query) { q.Highlight = true }, false},
	}
	fields := reflect.VisibleFields(reflect.TypeFor[Query]())
	if len(fields) != len(set) {
		t.Fatalf("Query has %d fields, the test sets %d: say how a new one keys an answer", len(fields), len(set))
	}
	key, match := NewRequest(base).Key(), base.MatchKey()
	for _, f := range fields {
		tc, ok := set[f.Name]
		if !ok {
			t.Errorf("Query.%s is not set by the test", f.Name)
			continue
		}
		q := base
		tc.edit(&q)
		r := NewRequest(q)
		if keyed := !slices.Contains([]string{"Given", "Highlight"}, f.Name); (r.Key() != key) != keyed {
			t.Errorf("Query.%s changed: the key changes %v, want %v", f.Name, r.Key() != key, keyed)
		}
		if (r.Query.MatchKey() != match) != tc.match {
			t.Errorf("Query.%s changed: the match key changes %v, want %v", f.Name, r.Query.MatchKey() != match, tc.match)
		}
	}
}

// TestServeOnce: a request keeps the rules it was first handed, so that its later calls are
// answered under the same set.
func TestServeOnce(t *testing.T) {
	r := NewRequest(Query{Text: "fast"})
	first := synonyms{"fast": {"fast", "quick"}}
	r.Serve(first, "")
	r.Serve(synonyms{}, "")
	if got, ok := r.Curation.(synonyms); !ok || !reflect.DeepEqual(got, first) {
		t.Errorf("Curation = %v after a second Serve, want the first set %v", r.Curation, first)
	}
}
