package gen

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

func TestCumulative(t *testing.T) {
	for _, tc := range []struct{ weights, want []int }{
		{nil, []int{}},
		{[]int{5}, []int{5}},
		{[]int{400, 220, 380}, []int{400, 620, 1000}},
	} {
		if got := cumulative(tc.weights); !slices.Equal(got, tc.want) {
			t.Errorf("cumulative(%v) = %v, want %v", tc.weights, got, tc.want)
		}
	}
}

func TestGCD(t *testing.T) {
	for _, tc := range []struct{ a, b, want int }{{12, 18, 6}, {7, 5, 1}, {9, 0, 9}, {0, 4, 4}, {144, 91, 1}} {
		if got := gcd(tc.a, tc.b); got != tc.want {
			t.Errorf("gcd(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestWeightedDraw: draws follow the weights (typeWeights: 40%, 22%, 38%).
func TestWeightedDraw(t *testing.T) {
	const draws = 50000
	g := newGenerator(6)
	var counts [3]int
	for range draws {
		counts[g.weighted(cumulative(typeWeights))]++
	}
	for i, w := range typeWeights {
		if got := float64(counts[i]) * 1000 / draws; got < float64(w)-20 || got > float64(w)+20 {
			t.Errorf("%s: %.0f per mille, want %d", typeNames[i], got, w)
		}
	}
}

var vocabSlug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestVocabularyWellFormed checks vocab.go as parsed: every list the generator picks from is
// non-empty and free of blank words, every template slot is one expand knows, every category is a
// unique slug with a name and tags, and every language a real ISO 639-1 code.
func TestVocabularyWellFormed(t *testing.T) {
	v := loadVocabulary()
	words := func(what string, list []string) {
		t.Helper()
		if len(list) == 0 {
			t.Errorf("%s: empty list", what)
		}
		for _, w := range list {
			if w == "" || strings.TrimSpace(w) != w {
				t.Errorf("%s: word %q", what, w)
			}
		}
	}
	templates := func(what string, list []template) {
		t.Helper()
		if len(list) == 0 {
			t.Errorf("%s: no templates", what)
		}
		for _, tpl := range list {
			if len(tpl) == 0 {
				t.Errorf("%s: an empty template", what)
			}
			for _, p := range tpl {
				if p.slot != 0 && !strings.ContainsRune("nNaApt", rune(p.slot)) {
					t.Errorf("%s: unknown slot {%c}", what, p.slot)
				}
			}
		}
	}
	codes := map[string]bool{}
	for _, l := range v.langs {
		if base, err := language.ParseBase(l.code); err != nil || base.String() != l.code || codes[l.code] {
			t.Errorf("language %q is not a distinct ISO 639-1 code", l.code)
		}
		codes[l.code] = true
		words(l.code+" nouns", l.nouns)
		words(l.code+" adjectives", l.adjs)
		words(l.code+" places", l.places)
		words(l.code+" common titles", l.common)
		for ti, name := range typeNames {
			templates(l.code+" "+name+" titles", l.titles[ti])
			templates(l.code+" "+name+" sentences", l.sentences[ti])
		}
	}
	if v.langs[v.english].code != "en" {
		t.Errorf("english is %q", v.langs[v.english].code)
	}
	words("technologies", v.tech)
	words("rights", v.rights)
	for ti, name := range typeNames {
		ts := &v.types[ti]
		words(name+" shelves", v.shelves[ti])
		slugs := map[string]bool{}
		for _, c := range ts.cats {
			if !vocabSlug.MatchString(c.slug) || slugs[c.slug] || c.name == "" {
				t.Errorf("%s category %q (%q): want a unique slug and a name", name, c.slug, c.name)
			}
			slugs[c.slug] = true
			words(name+" "+c.slug+" tags", c.topic)
		}
		if len(ts.media) == 0 {
			t.Errorf("%s: no media formats", name)
		}
		for _, m := range ts.media {
			if m.ext == "" || !strings.Contains(m.mime, "/") || (ti == 0 && m.perPixel <= 0) {
				t.Errorf("%s media %+v", name, m)
			}
		}
		for i := 1; i < len(ts.catCum); i++ {
			if ts.catCum[i] <= ts.catCum[i-1] {
				t.Errorf("%s: category %d has no weight", name, i)
			}
		}
	}
	for _, c := range categorySpecs {
		for _, spec := range c {
			if _, ok := topics[spec.topic]; !ok {
				t.Errorf("category %q: unknown topic %q", spec.slug, spec.topic)
			}
			if spec.lang != "" && !codes[spec.lang] {
				t.Errorf("category %q: language %q has no words", spec.slug, spec.lang)
			}
		}
	}
}

// TestCultures: each way of writing names has names to pick, and its scrambling multiplier is
// coprime to its number of pairs, so it deals every pair once before any repeats.
func TestCultures(t *testing.T) {
	for i, c := range loadVocabulary().cultures {
		if len(c.forenames) == 0 || len(c.surnames) == 0 || c.weight <= 0 || c.extras[0] != "" {
			t.Errorf("culture %d: %d forenames, %d surnames, weight %d, extras %q", i, len(c.forenames), len(c.surnames), c.weight, c.extras)
		}
		if c.pairs != len(c.forenames)*len(c.surnames) || gcd(c.mult, c.pairs) != 1 {
			t.Errorf("culture %d: %d pairs scrambled by %d", i, c.pairs, c.mult)
		}
		seen := make([]bool, c.pairs)
		for k := range c.pairs {
			seen[k*c.mult%c.pairs] = true
		}
		if slices.Contains(seen, false) {
			t.Errorf("culture %d: the scrambling misses pairs", i)
		}
		if !slices.Contains([]string{"latin", "plain", "family", "joined"}, c.style) {
			t.Errorf("culture %d: style %q", i, c.style)
		}
	}
}
