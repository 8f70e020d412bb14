// The vocabulary: vocab.go's lists parsed once into the tables the generator draws from.

package gen

import (
	"math"
	"strings"
	"sync"
	"unicode/utf8"
)

type vocabulary struct {
	types      [3]typeSpec
	typeCum    []int
	langs      []lang
	langCum    []int
	english    int
	tech       []string
	cultures   []culture
	licenseCum []int
	shelves    [3][]string
	rights     []string
	zipfLow    float64
}

type typeSpec struct {
	cats         []category
	catCum       []int
	defaultTopic []string
	media        []mediaSpec
	mediaCum     []int
}

type category struct {
	slug, name string
	topic      []string
	codes      []string
	lang       int
}

type lang struct {
	code                string
	nouns, adjs, places []string
	titles, sentences   [3][]template
	common              []string
	sep, subSep         string
}

type culture struct {
	forenames, surnames []string
	// extras[0] is "", the others lengthen the given name (" J.", "-Louis", "芳").
	extras []string
	style  string
	weight int
	// pairs is the number of forename-surname pairs; mult, coprime to it, scrambles them.
	pairs, mult int
}

// template is text with slots; a part with slot 0 is literal text.
type template []templatePart

func (t template) slots() int {
	n := 0
	for _, p := range t {
		if p.slot != 0 {
			n++
		}
	}
	return n
}

type templatePart struct {
	lit  string
	slot byte
}

var loadVocabulary = sync.OnceValue(func() *vocabulary {
	v := &vocabulary{
		typeCum: cumulative(typeWeights),
		tech:    strings.Split(techTerms, "|"),
		zipfLow: math.Pow(authorZipfV, 1-authorZipfS),
		shelves: [3][]string{
			{"Tate collection", "Photography", "Documentary photography", "Street photography", "Gelatin silver prints", "Colour photography"},
			{"talk", "tutorial", "keynote", "panel", "lightning talk", "sprint"},
			{"Best Books Ever Listings", "Gothic Fiction", "Harvard Classics", "Banned Books", "Children's Picture Books", "Science Fiction", "Travel", "Bestsellers, American, 1895-1923"},
		},
		rights: []string{"CC BY 4.0", "Standard YouTube License", "CC BY-SA 4.0", "All rights reserved"},
	}
	var weights []int
	for i, s := range langSpecs {
		l := lang{
			code:   s.code,
			nouns:  strings.Split(s.nouns, "|"),
			adjs:   strings.Split(s.adjs, "|"),
			places: strings.Split(s.places, "|"),
			common: strings.Split(s.common, "|"),
			sep:    s.sep,
			subSep: ": ",
		}
		if s.sep == "" {
			l.subSep = "："
		}
		for ti, name := range typeNames {
			l.titles[ti] = parseTemplates(s.titles, name)
			l.sentences[ti] = parseTemplates(s.sentences, name)
		}
		if s.code == "en" {
			v.english = i
		}
		v.langs = append(v.langs, l)
		weights = append(weights, s.weight)
	}
	v.langCum = cumulative(weights)
	langIndex := func(code string) int {
		for i, l := range v.langs {
			if l.code == code {
				return i
			}
		}
		return noLanguage
	}
	for ti, name := range typeNames {
		ts := &v.types[ti]
		weights = weights[:0]
		for k, c := range categorySpecs[name] {
			cat := category{slug: c.slug, name: c.name, topic: strings.Split(topics[c.topic], "|"), lang: langIndex(c.lang)}
			if c.codes != "" {
				cat.codes = strings.Split(c.codes, "|")
			}
			ts.cats = append(ts.cats, cat)
			// Long-tailed popularity: weight ∝ 1/(k+1)^1.2.
			weights = append(weights, int(1e6/math.Pow(float64(k+1), 1.2)))
		}
		ts.catCum = cumulative(weights)
		ts.defaultTopic = ts.cats[0].topic
		ts.media = mediaSpecs[name]
		weights = weights[:0]
		for _, m := range ts.media {
			weights = append(weights, m.weight)
		}
		ts.mediaCum = cumulative(weights)
	}
	for _, c := range cultureSpecs {
		v.cultures = append(v.cultures, newCulture(c))
	}
	weights = weights[:0]
	for _, l := range licenses {
		weights = append(weights, l.weight)
	}
	v.licenseCum = cumulative(weights)
	return v
})

func newCulture(spec cultureSpec) culture {
	c := culture{
		forenames: strings.Split(spec.forenames, "|"),
		surnames:  strings.Split(spec.surname, "|"),
		extras:    []string{""},
		style:     spec.style,
		weight:    spec.weight,
	}
	c.pairs = len(c.forenames) * len(c.surnames)
	c.mult = c.pairs*5/8 | 1
	for gcd(c.mult, c.pairs) != 1 {
		c.mult++
	}
	seen := map[string]bool{}
	for _, f := range c.forenames {
		switch spec.extras {
		case "initials":
			if initial := string(appendInitial(nil, f)); !seen[initial] {
				seen[initial] = true
				c.extras = append(c.extras, " "+initial)
			}
			c.extras = append(c.extras, spec.joiner+f)
		case "second":
			if spec.joiner == "" {
				// "Wang Weifang": a romanised two-syllable given name is one word.
				f = strings.ToLower(f)
			}
			c.extras = append(c.extras, spec.joiner+f)
		case "chars":
			if utf8.RuneCountInString(f) == 1 {
				c.extras = append(c.extras, f)
			}
		}
	}
	return c
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func cumulative(weights []int) []int {
	cum := make([]int, len(weights))
	sum := 0
	for i, w := range weights {
		sum += w
		cum[i] = sum
	}
	return cum
}

// parseTemplates parses the "|"-separated templates for a type, falling back to the "" entry.
func parseTemplates(m map[string]string, typeName string) []template {
	src, ok := m[typeName]
	if !ok {
		src = m[""]
	}
	var out []template
	for _, s := range strings.Split(src, "|") {
		var t template
		for s != "" {
			open := strings.IndexByte(s, '{')
			if open < 0 || open+2 >= len(s) || s[open+2] != '}' {
				t = append(t, templatePart{lit: s})
				break
			}
			if open > 0 {
				t = append(t, templatePart{lit: s[:open]})
			}
			t = append(t, templatePart{slot: s[open+1]})
			s = s[open+3:]
		}
		out = append(out, t)
	}
	return out
}
