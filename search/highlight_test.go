package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatched(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 30) + "the Thames at dusk " + strings.Repeat("dolor sit ", 30)
	for _, tt := range []struct {
		name    string
		it      Item
		text    string
		phrases Phrases
		want    map[string]string
	}{
		{"no text", Item{Title: "Thames"}, "", "", nil},
		{"no match", Item{Title: "Thames"}, "harbour", "", nil},
		{"title, folded", Item{Title: "Élan on the Thames"}, "elan thames", "", map[string]string{"title": "<mark>Élan</mark> on the <mark>Thames</mark>"}},
		{"typo within the allowance", Item{Title: "The Forest"}, "forrest", "", map[string]string{"title": "The <mark>Forest</mark>"}},
		{"two letters swapped are one typo", Item{Title: "Bliss and Heaven"}, "bilss", "", map[string]string{"title": "<mark>Bliss</mark> and Heaven"}},
		{"short words must be exact", Item{Title: "an ox"}, "ax", "", nil},
		// Past search.MaxTypoWords words, the shorter ones must match exactly, as in the engines.
		{"typo words bounded", Item{Title: "The Forest"}, "forst aaaaaaa bbbbbbb ccccccc ddddddd eeeeeee fffffff", "", nil},
		{"escaped", Item{Summary: `<b>Thames</b> & "co"`}, "thames", "", map[string]string{"summary": "&lt;b&gt;<mark>Thames</mark>&lt;/b&gt; &amp; &#34;co&#34;"}},
		{"lists joined", Item{Tags: []string{"river", "London"}, Keywords: []string{"Thames"}}, "london thames", "",
			map[string]string{"tags": "river, <mark>London</mark>", "keywords": "<mark>Thames</mark>"}},
		{"author", Item{Author: "Austen, Jane"}, "jane", "", map[string]string{"author": "Austen, <mark>Jane</mark>"}},
		{"query syntax is text", Item{Title: "a OR b"}, `"OR"*`, "", map[string]string{"title": "a <mark>OR</mark> b"}},
		{"CJK run", Item{Title: "羅生門"}, "羅生門", "", map[string]string{"title": "<mark>羅生門</mark>"}},
		{"a phrase marks its words", Item{Title: "The forest path at night", Summary: "a path in the forest"}, "",
			Phrases("").With("Forest Path"), map[string]string{"title": "The <mark>forest</mark> <mark>path</mark> at night"}},
		{"a phrase beside a word", Item{Title: "Forest path, forest night"}, "night",
			Phrases("").With("forest path"), map[string]string{"title": "<mark>Forest</mark> <mark>path</mark>, forest <mark>night</mark>"}},
		{"a phrase within one value of a list", Item{Tags: []string{"forest", "path", "forest path"}}, "",
			Phrases("").With("forest path"), map[string]string{"tags": "forest, path, <mark>forest</mark> <mark>path</mark>"}},
		{"a CJK phrase inside a run", Item{Title: "東京都庁"}, "", Phrases("").With("京都"), map[string]string{"title": "東<mark>京都</mark>庁"}},
		{"another form in the item's language", Item{Title: "Cython für schnelleren Python-Code", Language: "de"}, "schnelle", "",
			map[string]string{"title": "Cython für <mark>schnelleren</mark> Python-Code"}},
		{"no other form in another language", Item{Title: "Cython für schnelleren Python-Code", Language: "en"}, "schnelle", "", nil},
		{"an author's name has no other forms", Item{Author: "Histories", Summary: "histories", Language: "en"}, "history", "",
			map[string]string{"summary": "<mark>histories</mark>"}},
		{"a phrase has no typo allowance", Item{Title: "forest path"}, "", Phrases("").With("forrest path"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Matched(tt.it, NewRequest(Query{Text: tt.text, Phrases: tt.phrases}))
			if len(got) != len(tt.want) {
				t.Fatalf("Matched = %q, want %q", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: %q, want %q", k, got[k], v)
				}
			}
		})
	}
	t.Run("another form of a synonym", func(t *testing.T) {
		q := NewRequest(Query{Text: "fast"})
		q.Curation = synonyms{"fast": {"fast", "schnelle"}}
		got := Matched(Item{Title: "Fast: Cython für schnelleren Python-Code", Language: "de"}, q)["title"]
		if want := "<mark>Fast</mark>: Cython für <mark>schnelleren</mark> Python-Code"; got != want {
			t.Errorf("Matched = %q, want %q", got, want)
		}
	})
	t.Run("long text is cut around the match", func(t *testing.T) {
		got := Matched(Item{Description: long}, NewRequest(Query{Text: "thames"}))["description"]
		plain := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(got)
		if n := utf8.RuneCountInString(plain); n != MaxSnippetRunes || !strings.HasPrefix(plain, "…") || !strings.HasSuffix(plain, "…") {
			t.Errorf("%d runes: %q", n, got)
		}
		if !strings.Contains(got, "the <mark>Thames</mark> at dusk") {
			t.Errorf("match not shown: %q", got)
		}
	})
	t.Run("a match near the end", func(t *testing.T) {
		text := strings.Repeat("x ", 150) + "Thames"
		plain := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(Matched(Item{Title: text}, NewRequest(Query{Text: "thames"}))["title"])
		if utf8.RuneCountInString(plain) != MaxSnippetRunes || !strings.HasPrefix(plain, "…") || !strings.HasSuffix(plain, "Thames") {
			t.Errorf("%q", plain)
		}
	})
}

func TestEditsWithin(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		max  int
		want bool
	}{
		{"forest", "forest", 0, true},
		{"forest", "forrest", 1, true},
		{"thames", "thmaes", 1, true},
		{"thames", "tmhaes", 1, false},
		{"thames", "tmhaes", 2, true},
		// A swap of adjacent letters is one edit (Levenshtein counts two), not a swap and more
		// edits of the same letters (the optimal string alignment distance).
		{"bliss", "bilss", 1, true},
		{"cuore", "cuoer", 1, true},
		{"bliss", "bilss", 0, false},
		{"chrysanthemum", "chrysnthemmu", 2, true},
		{"chrysanthemum", "chrysnthemmu", 1, false},
		{"ab", "ba", 1, true},
		{"abc", "ca", 2, false},
		{"abc", "ca", 3, true},
		{"abcd", "badc", 2, true},
		{"abcd", "badc", 1, false},
		{"abc", "abd", 0, false},
		{"abc", "", 2, false},
		{"", "ab", 2, true},
		{"kitten", "sitting", 2, false},
		{"kitten", "sitting", 3, true},
	} {
		if got := editsWithin([]rune(tt.a), []rune(tt.b), tt.max); got != tt.want {
			t.Errorf("editsWithin(%q, %q, %d) = %v, want %v", tt.a, tt.b, tt.max, got, tt.want)
		}
	}
}

func FuzzMatched(f *testing.F) {
	f.Add("The <Thames> & co", "thames")
	f.Add(strings.Repeat("é ", 300)+"x", "x")
	f.Fuzz(func(t *testing.T, text, q string) {
		for field, s := range Matched(Item{Title: text}, NewRequest(Query{Text: q})) {
			plain := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(s)
			if utf8.RuneCountInString(plain) > MaxSnippetRunes && utf8.ValidString(text) {
				t.Fatalf("%s: %d runes", field, utf8.RuneCountInString(plain))
			}
			if strings.Count(s, "<mark>") == 0 || strings.ContainsAny(strings.NewReplacer("<mark>", "", "</mark>", "").Replace(s), "<>") {
				t.Fatalf("%s: %q", field, s)
			}
		}
	})
}

// synonyms searches each word it names as its alternatives, and pins nothing.
type synonyms map[string][]string

func (s synonyms) Alternatives(w string) []string { return s[w] }

func (synonyms) Pinned(string) []string { return nil }
