package search

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// TestCursorRoundTrip: a cursor reads back as it was made, for its own query only.
func TestCursorRoundTrip(t *testing.T) {
	q := Query{Text: "harbour  at dusk", Type: TypePhoto, Sort: SortRelevance, PerPage: 50}
	q.Normalize()
	c := Cursor{Version: "media-20260101t000000", Seen: 50, After: []any{json.Number("1.25"), json.Number("-9223372036854775808"), "ph-1 é"}}
	s := EncodeCursor(&q, c)
	got, err := ParseCursor(s, &q)
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("ParseCursor(EncodeCursor(c)) = %+v, %v; want %+v", got, err, c)
	}
	same := q
	same.Text, same.Page, same.Facets, same.Highlight = " harbour at\tdusk ", 7, FacetSet(FacetType), true
	same.Normalize()
	if _, err := ParseCursor(s, &same); err != nil {
		t.Errorf("the same walk with other white space, page, facets or highlighting: %v", err)
	}
	for name, other := range map[string]func(*Query){
		"text":     func(q *Query) { q.Text = "harbour" },
		"type":     func(q *Query) { q.Type = TypeVideo },
		"category": func(q *Query) { q.Category = "nature" },
		"author":   func(q *Query) { q.Author = "x" },
		"language": func(q *Query) { q.Language = "en" },
		"from":     func(q *Query) { q.From = "2000-01-01" },
		"to":       func(q *Query) { q.To = "2000-01-01" },
		"sort":     func(q *Query) { q.Sort = SortNewest },
		"per_page": func(q *Query) { q.PerPage = 49 },
		"types":    func(q *Query) { q.Type = "photo,video" },
		"license":  func(q *Query) { q.License = "by" },
		"reuse":    func(q *Query) { q.Reuse = "commercial" },
		"format":   func(q *Query) { q.Format = "jpeg" },
		"duration": func(q *Query) { q.Duration = "short" },
		"has":      func(q *Query) { q.Has = "media" },
		// Each list's values are one filter's: moved to another filter, they are another query.
		"license as format": func(q *Query) { q.License, q.Format = "", "by" },
	} {
		o := q
		other(&o)
		if _, err := ParseCursor(s, &o); !errors.Is(err, ErrCursorInvalid) {
			t.Errorf("cursor used with another %s: %v, want ErrCursorInvalid", name, err)
		}
	}
}

func FuzzParseCursor(f *testing.F) {
	q := Query{Sort: SortNewest, PerPage: 20}
	f.Add(EncodeCursor(&q, Cursor{Version: "v", Seen: 20, After: []any{"2020-01-01", "id"}}))
	f.Add("*")
	f.Add("AQ")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCursor(s, &q)
		if err != nil {
			if !errors.Is(err, ErrCursorInvalid) {
				t.Fatalf("ParseCursor(%q): %v, not ErrCursorInvalid", s, err)
			}
			return
		}
		if c.Version == "" || c.Seen < 1 || len(c.After) == 0 {
			t.Fatalf("ParseCursor(%q) accepted %+v", s, c)
		}
		if again, err := ParseCursor(EncodeCursor(&q, c), &q); err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("re-encoded %+v reads as %+v, %v", c, again, err)
		}
	})
}
