package gen

import (
	"slices"
	"strings"
	"testing"
)

func TestParseTemplates(t *testing.T) {
	lit := func(s string) templatePart { return templatePart{lit: s} }
	slot := func(c byte) templatePart { return templatePart{slot: c} }
	for _, tc := range []struct {
		name string
		m    map[string]string
		typ  string
		want []template
	}{
		{"literal", map[string]string{"photo": "Untitled"}, "photo", []template{{lit("Untitled")}}},
		{"slots", map[string]string{"photo": "{A} {N} of {p}"}, "photo",
			[]template{{slot('A'), lit(" "), slot('N'), lit(" of "), slot('p')}}},
		{"several", map[string]string{"video": "{t} talk|Intro"}, "video",
			[]template{{slot('t'), lit(" talk")}, {lit("Intro")}}},
		{"fallback", map[string]string{"": "{n}", "photo": "x"}, "document", []template{{slot('n')}}},
		{"unclosed brace is text", map[string]string{"": "a {n"}, "photo", []template{{lit("a {n")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseTemplates(tc.m, tc.typ)
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	l := &lang{nouns: []string{"élan"}, adjs: []string{"quiet"}, places: []string{"Kyoto"}}
	g := newGenerator(1)
	for _, tc := range []struct{ src, want string }{
		{"{N} in {p}", "Élan in Kyoto"},
		{"the {a} {n}", "the quiet élan"},
		{"{A}", "Quiet"},
		{"no slots", "no slots"},
	} {
		if got := string(g.expand(nil, parseTemplates(map[string]string{"": tc.src}, "")[0], l)); got != tc.want {
			t.Errorf("expand(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
	if got := string(g.expand(nil, template{{slot: 't'}}, l)); !slices.Contains(g.v.tech, got) {
		t.Errorf("{t} gave %q, not a technology of vocab.go", got)
	}
}

func TestAppendCapitalised(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"river", "River"},
		{"élan", "Élan"},
		{"ιστορία", "Ιστορία"},
		{"東京", "東京"},
		{"River", "River"},
		{"", ""},
	} {
		if got := string(appendCapitalised(nil, tc.in)); got != tc.want {
			t.Errorf("appendCapitalised(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLanguageDraw: photos lean to English, a category's language hint mostly wins, and about
// one item in a hundred has no language.
func TestLanguageDraw(t *testing.T) {
	const draws = 20000
	v := loadVocabulary()
	hinted := -1 // a video category whose items are mostly in a language other than English
	for k, c := range v.types[1].cats {
		if c.lang >= 0 && c.lang != v.english {
			hinted = k
			break
		}
	}
	if hinted < 0 {
		t.Fatal("vocab.go has no video category with a language other than English")
	}
	for _, tc := range []struct {
		name     string
		ti, cat  int
		want     int // the language expected most
		minShare float64
	}{
		{"photo without category", 0, -1, v.english, 0.5},
		{"document without category", 2, -1, v.english, 0.3},
		{"video category with a language", 1, hinted, v.types[1].cats[hinted].lang, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGenerator(2)
			var none, want int
			for range draws {
				switch g.language(tc.ti, &v.types[tc.ti], tc.cat) {
				case noLanguage:
					none++
				case tc.want:
					want++
				}
			}
			if s := float64(want) / draws; s < tc.minShare {
				t.Errorf("%s in %.1f%%, want at least %.0f%%", v.langs[tc.want].code, 100*s, 100*tc.minShare)
			}
			if s := float64(none) / draws; s == 0 || s > 0.02 {
				t.Errorf("%.2f%% without a language, want about 1%%", 100*s)
			}
		})
	}
}

// TestTitles: titles are never empty or padded, and a share repeats (reissues, series, common
// titles), as real ones do.
func TestTitles(t *testing.T) {
	const draws = 20000
	for ti, name := range typeNames {
		t.Run(name, func(t *testing.T) {
			g := newGenerator(4)
			seen := map[string]int{}
			for range draws {
				li := g.makeTitle(ti, g.v.english, 1999)
				title := string(g.title)
				if title == "" || strings.TrimSpace(title) != title {
					t.Fatalf("title %q", title)
				}
				if li != noLanguage && (li < 0 || li >= len(g.v.langs)) {
					t.Fatalf("language %d out of range", li)
				}
				seen[title]++
			}
			repeated := draws - len(seen)
			if s := float64(repeated) / draws; s < 0.01 || s > 0.2 {
				t.Errorf("%.1f%% of titles repeat an earlier one, want a few per cent", 100*s)
			}
		})
	}
}
