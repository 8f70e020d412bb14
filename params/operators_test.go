package params

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"mediagw/search"
)

func TestOperators(t *testing.T) {
	for _, tt := range []struct {
		name, q           string
		text              string
		phrases, excluded []string
		sort              search.Sort
	}{
		{"no operators", "forest path night", "forest path night", nil, nil, search.SortRelevance},
		{"phrase and exclusion", `"forest path" -night`, "", []string{"forest path"}, []string{"night"}, search.SortRelevance},
		{"words around a phrase", `old "Forest Path" at dusk`, "old at dusk", []string{"forest path"}, nil, search.SortRelevance},
		{"excluded phrase", `forest -"night walk" -dark`, "forest", nil, []string{"night walk", "dark"}, search.SortRelevance},
		{"a quote left open closes at the end", `forest "night walk`, "forest", []string{"night walk"}, nil, search.SortRelevance},
		{"an exclusion's quote left open", `forest -"night walk`, "forest", nil, []string{"night walk"}, search.SortRelevance},
		{"a lone minus sign", "forest - path", "forest path", nil, nil, search.SortRelevance},
		{"a minus sign at the end", "forest -", "forest", nil, nil, search.SortRelevance},
		{"empty quotes", `forest "" path`, "forest path", nil, nil, search.SortRelevance},
		{"quotes of punctuation", `forest "--" path`, "forest path", nil, nil, search.SortRelevance},
		{"a minus sign inside a word", "e-mail forest-path", "e-mail forest-path", nil, nil, search.SortRelevance},
		{"an excluded word with a minus sign inside", "forest -e-mail", "forest", nil, []string{"e mail"}, search.SortRelevance},
		{"only exclusions", "-night -dark", "", nil, []string{"night", "dark"}, search.SortNewest},
		{"only a lone minus and quotes", `- ""`, "", nil, nil, search.SortNewest},
		{"a quote inside a word opens a phrase", `forest"night walk"`, "forest", []string{"night walk"}, nil, search.SortRelevance},
		{"a minus sign after a phrase", `"forest path"-night`, "", []string{"forest path"}, []string{"night"}, search.SortRelevance},
		{"a phrase given twice counts once", `"forest path" "Forest  path"`, "", []string{"forest path"}, nil, search.SortRelevance},
		{"accents, case and apostrophes as analysed", `"L'Élan Vital's"`, "", []string{"elan vital"}, nil, search.SortRelevance},
		{"CJK phrase as the index holds it", `"東京"`, "", []string{"東 東京 京"}, nil, search.SortRelevance},
		{"query syntax is text", `title:"a (b)" -c*`, "title:", []string{"a b"}, []string{"c"}, search.SortRelevance},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, errs := parsed(Split("resource=items&q=" + url.QueryEscape(tt.q)))
			if errs != nil {
				t.Fatalf("errors %v", errs)
			}
			if q.Text != tt.text || q.Phrases != phrasesOf(tt.phrases) || q.Exclude != phrasesOf(tt.excluded) || q.Sort != tt.sort {
				t.Errorf("text %q, phrases %q, exclude %q, sort %s; want %q, %q, %q, %s",
					q.Text, q.Phrases, q.Exclude, q.Sort, tt.text, phrasesOf(tt.phrases), phrasesOf(tt.excluded), tt.sort)
			}
			if q.Given != strings.TrimSpace(tt.q) {
				t.Errorf("given %q, want q as given", q.Given)
			}
			if v := Values(&q, 1).Get("q"); v != q.Given {
				t.Errorf("links carry q=%q, want it as given", v)
			}
		})
	}
}

// phrasesOf is the Phrases whose phrases are ps, each its terms apart by spaces.
func phrasesOf(ps []string) search.Phrases {
	return search.Phrases(strings.Join(ps, "\n"))
}

func TestWithWords(t *testing.T) {
	for _, tt := range []struct{ q, words, want string }{
		{"bilss", "bliss", "bliss"},
		{`"forest path" foest -night`, "forest", `"forest path" forest -night`},
		{`foest "forest path" dakr -"night walk`, "forest dark", `forest "forest path" dark -"night walk`},
		{`"forest path"`, "forest", `"forest path" forest`},
		{"hreo and leander and", "hero and leander and", "hero and leander and"},
		{`a "b c" d`, "x y z", `x "b c" y z`}, // more words than stretches: the last takes them
		{`a "b c" d`, "x", `x "b c"`},         // fewer: the stretches left go
	} {
		q, _ := parsed(Split("resource=items&q=" + url.QueryEscape(tt.q)))
		if got := WithWords(&q, tt.words); got != tt.want {
			t.Errorf("WithWords(%q, %q) = %q, want %q", tt.q, tt.words, got, tt.want)
		}
	}
}

// FuzzOperators: whatever q holds, it reads as a query (never an error for its operators), its
// free words hold no quote and no exclusion, each phrase and exclusion has terms, the links
// carry q as given, and q with its own free words put back (WithWords) reads as the same query.
func FuzzOperators(f *testing.F) {
	for _, s := range []string{
		`"forest path" -night`, `"`, `-`, `""`, `-""`, `--x`, `a"b"c`, `e-mail -"x y`, `"東京" -ソウル`,
		"tab\t\"x\ny\"", `"\xff" -\xfe`, `- - -`, `"a""b"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, errs := parsed(Split("resource=items&q=" + url.QueryEscape(s)))
		if !utf8.ValidString(s) || utf8.RuneCountInString(strings.TrimSpace(s)) > search.MaxTextRunes {
			return // refused for what q is, not for its operators
		}
		if errs != nil {
			t.Fatalf("%q: %v", s, errs)
		}
		if strings.Contains(q.Text, `"`) {
			t.Fatalf("%q: text %q holds a quote", s, q.Text)
		}
		for _, w := range strings.Fields(q.Text) {
			if strings.HasPrefix(w, "-") && w != "-" {
				t.Fatalf("%q: text %q holds an exclusion", s, q.Text)
			}
		}
		for _, p := range append(q.Phrases.Terms(), q.Exclude.Terms()...) {
			for _, term := range p {
				if term == "" || strings.ContainsAny(term, " \n") {
					t.Fatalf("%q: phrase %q holds an empty or spaced term", s, p)
				}
			}
		}
		if q.Searches() != (q.Sort == search.SortRelevance) {
			t.Fatalf("%q: sort %s for a query that searches: %v", s, q.Sort, q.Searches())
		}
		back, _ := parsed(Split("resource=items&q=" + url.QueryEscape(WithWords(&q, q.Text))))
		if back.Text != q.Text || back.Phrases != q.Phrases || back.Exclude != q.Exclude {
			t.Fatalf("%q: with its own words %q, read as %q %q %q; want %q %q %q", s, WithWords(&q, q.Text),
				back.Text, back.Phrases, back.Exclude, q.Text, q.Phrases, q.Exclude)
		}
	})
}
