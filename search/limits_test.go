package search

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestCheckID(t *testing.T) {
	for _, tt := range []struct {
		id   string
		want error
	}{
		{"ph-full", nil},
		{"pyvideo-pycon-fr-2023-Nua,-un-PaaS-open-source-en-Python-pour-l'auto-hebergement-de-vos-applications", nil},
		{"a+b(c)!d'e", nil},
		{"../etc/passwd", nil},
		{"a/b%2Fc?d#e&f=g", nil},
		{"羅生門", nil},
		{"e\u0301", nil}, // NFD, kept as given
		{strings.Repeat("a", MaxIDBytes), nil},
		{strings.Repeat("é", MaxIDBytes/2), nil},
		{"", ErrIDEmpty},
		{strings.Repeat("a", MaxIDBytes+1), ErrIDTooLong},
		{strings.Repeat("é", MaxIDBytes/2) + "a", ErrIDTooLong},
		{"a\xffb", ErrIDEncoding},
		{"a\x00b", ErrIDControl},
		{"a\x7fb", ErrIDControl},
		{"a\u0085b", ErrIDControl},
		{"a b", ErrIDWhiteSpace},
		{"a\tb", ErrIDControl},
		{"a\u00a0b", ErrIDWhiteSpace},
		{"a\u3000b", ErrIDWhiteSpace},
		{"a\u2028b", ErrIDWhiteSpace},
		{"a\u202eb", ErrIDFormat}, // right-to-left override
		{"a\u200bb", ErrIDFormat}, // zero-width space: a format character, not white space
		{"a\u200db", ErrIDFormat}, // zero-width joiner
		{"\ufeffa", ErrIDFormat},  // zero-width no-break space (a byte order mark)
		{"a\u00adb", ErrIDFormat}, // soft hyphen
		{strings.Repeat("\u202e\u200b\u200d\ufeff", MaxIDBytes/12), ErrIDFormat},
	} {
		if err := CheckID(tt.id); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("CheckID(%q) = %v, want %v", tt.id, err, tt.want)
		}
	}
}

// FuzzCheckID: an accepted id is short enough for OpenSearch's _id, valid UTF-8, and has no rune
// that could split a log line, a header or a path segment unseen.
func FuzzCheckID(f *testing.F) {
	for _, s := range []string{"ph-full", "", "a b", "a\r\nSet-Cookie: x", "a/b", "é", "\xff", strings.Repeat("a", 600), "a\u202eb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckID(s) != nil {
			return
		}
		if len(s) == 0 || len(s) > MaxIDBytes || !utf8.ValidString(s) {
			t.Fatalf("%q accepted", s)
		}
		for _, r := range s {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
				t.Fatalf("%q accepted with %U", s, r)
			}
		}
	})
}

// TestCheckText: the real catalogue's longest texts pass (its items are tested whole by the
// catalogue reader); one character or string past a maximum is refused, naming the key.
func TestCheckText(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	terms := func(n, runes int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = long(runes)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		it   Item
		key  string
	}{
		{"at every maximum", Item{Title: long(MaxTitleRunes), Summary: long(MaxSummaryRunes), Description: long(MaxDescriptionRunes),
			Tags: terms(MaxTerms, MaxTermRunes), Keywords: terms(MaxTerms, MaxTermRunes)}, ""},
		{"title", Item{Title: long(MaxTitleRunes + 1)}, "title"},
		{"summary", Item{Title: "t", Summary: long(MaxSummaryRunes + 1)}, "summary"},
		{"description", Item{Title: "t", Description: long(MaxDescriptionRunes + 1)}, "description"},
		{"too many tags", Item{Title: "t", Tags: terms(MaxTerms+1, 1)}, "tags"},
		{"a long tag", Item{Title: "t", Tags: append(terms(3, 1), long(MaxTermRunes+1))}, "tags"},
		{"too many keywords", Item{Title: "t", Keywords: terms(MaxTerms+1, 1)}, "keywords"},
		{"a long keyword", Item{Title: "t", Keywords: []string{long(MaxTermRunes + 1)}}, "keywords"},
		{"the first broken, in the format's order", Item{Title: long(MaxTitleRunes + 1), Keywords: terms(MaxTerms+1, 1)}, "title"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key, err := CheckText(tt.it)
			if key != tt.key || (err == nil) != (tt.key == "") {
				t.Errorf("CheckText = %q, %v; want key %q", key, err, tt.key)
			}
		})
	}
}

// TestTextBytes: every string of an item counts, so that no field of a line escapes the loaders'
// batch bound.
func TestTextBytes(t *testing.T) {
	var it Item
	want := 0
	v := reflect.ValueOf(&it).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Interface().(type) {
		case string:
			f.SetString(strings.Repeat("x", i+1))
			want += i + 1
		case []string:
			f.Set(reflect.ValueOf([]string{"ab", strings.Repeat("y", i)}))
			want += 2 + i
		}
	}
	if got := TextBytes(it); got != want {
		t.Errorf("TextBytes = %d, want %d: a string field is left out", got, want)
	}
}

func TestValidSlug(t *testing.T) {
	for s, want := range map[string]bool{
		"nature": true, "pycon-fr": true, "a": true, "0-9": true, strings.Repeat("a", MaxSlugLen): true,
		"": false, strings.Repeat("a", MaxSlugLen+1): false, "Nature": false, "a_b": false, "é": false, "a b": false,
	} {
		if got := ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseDate(t *testing.T) {
	for s, want := range map[string]bool{
		"2021-05-04": true, "2024-02-29": true, "0001-01-01": true,
		"2023-02-30": false, "2021-5-4": false, "2021-05-04T00:00:00Z": false, "": false, "20210504": false, " 2021-05-04": false,
	} {
		if _, got := ParseDate(s); got != want {
			t.Errorf("ParseDate(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestQueryNormalize(t *testing.T) {
	for _, tt := range []struct {
		in, want Query
	}{
		{Query{}, Query{Page: 1, PerPage: DefaultPerPage, Sort: SortNewest}},
		{Query{Text: "x"}, Query{Text: "x", Page: 1, PerPage: DefaultPerPage, Sort: SortRelevance}},
		{Query{Sort: SortRelevance}, Query{Page: 1, PerPage: DefaultPerPage, Sort: SortNewest}},
		{Query{Text: "x", Sort: SortAZ, Page: 3, PerPage: 7}, Query{Text: "x", Sort: SortAZ, Page: 3, PerPage: 7}},
		{Query{Text: "x", Sort: SortRelevance, Page: -2, PerPage: -1}, Query{Text: "x", Sort: SortRelevance, Page: 1, PerPage: DefaultPerPage}},
		{Query{Sort: SortDownloads, Page: 2}, Query{Sort: SortDownloads, Page: 2, PerPage: DefaultPerPage}},
	} {
		got := tt.in
		got.Normalize()
		if got != tt.want {
			t.Errorf("%+v.Normalize() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestDeepestPage: the last page a client may ask for keeps page × per_page within MaxDepth.
func TestDeepestPage(t *testing.T) {
	for _, tt := range []struct{ perPage, want int }{{1, MaxDepth}, {20, 500}, {50, 200}, {30, 333}} {
		if got := DeepestPage(tt.perPage); got != tt.want || got*tt.perPage > MaxDepth {
			t.Errorf("DeepestPage(%d) = %d, want %d", tt.perPage, got, tt.want)
		}
	}
}
