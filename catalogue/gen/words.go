// The item's words: its language, title, summary and description, tags and keywords, drawn
// from the vocabulary of vocab.go.

package gen

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// noLanguage marks an item without a language.
const noLanguage = -1

func (g *generator) language(ti int, ts *typeSpec, cat int) int {
	if g.chance(8) {
		return noLanguage
	}
	if cat >= 0 {
		if hint := ts.cats[cat].lang; hint >= 0 && g.chance(650) {
			return hint
		}
	}
	if ti == 0 && g.chance(500) {
		// Photo collections mostly describe their holdings in English.
		return g.v.english
	}
	return g.weighted(g.v.langCum)
}

// makeTitle writes the title into g.title and returns the item's language, which a reused
// title brings along. year is the item's, or 0.
func (g *generator) makeTitle(ti, li int, year int64) int {
	tl := li
	if tl == noLanguage {
		tl = g.v.english
	}
	l := &g.v.langs[tl]
	g.title = g.title[:0]
	switch u := g.rng.IntN(1000); {
	case u < 20:
		g.title = append(g.title, g.pick(l.common)...)
		return li
	case u < 40 && g.nRecent[ti] > 0:
		r := g.recent[ti][g.rng.IntN(min(g.nRecent[ti], recentTitles))]
		g.title = append(g.title, r.title...)
		return r.lang
	}
	t := l.titles[ti][g.rng.IntN(len(l.titles[ti]))]
	g.title = g.expand(g.title, t, l)
	// Qualifiers (a subtitle, a number in a series, a volume) keep titles varied; a title with
	// fewer than two slots always gets one, or it would repeat far more than real titles do.
	u := g.rng.IntN(1000)
	if t.slots() < 2 {
		u = 0
	}
	switch {
	case u < 450:
		g.title = append(g.title, l.subSep...)
		g.title = g.expand(g.title, l.titles[ti][g.rng.IntN(len(l.titles[ti]))], l)
	case u < 600 && ti == 0:
		// Series, as photographers number them.
		g.title = append(g.title, ' ')
		g.title = strconv.AppendInt(g.title, int64(1+g.rng.IntN(80)), 10)
	case u < 700 && year > 0:
		g.title = append(g.title, " ("...)
		g.title = strconv.AppendInt(g.title, year, 10)
		g.title = append(g.title, ')')
	case u < 750:
		g.title = append(g.title, ' ')
		g.title = append(g.title, g.pick(romanVolumes)...)
	}
	if g.rng.IntN(8) == 0 {
		k := g.nRecent[ti] % recentTitles
		g.recent[ti][k] = recentTitle{title: string(g.title), lang: li}
		g.nRecent[ti]++
	}
	return li
}

var romanVolumes = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XII"}

// expand appends template t with words of language l.
func (g *generator) expand(b []byte, t template, l *lang) []byte {
	for _, p := range t {
		var w string
		switch p.slot {
		case 0:
			b = append(b, p.lit...)
			continue
		case 'n', 'N':
			w = g.pick(l.nouns)
		case 'a', 'A':
			w = g.pick(l.adjs)
		case 'p':
			w = g.pick(l.places)
		case 't':
			w = g.pick(g.v.tech)
		}
		if p.slot == 'N' || p.slot == 'A' {
			b = appendCapitalised(b, w)
		} else {
			b = append(b, w...)
		}
	}
	return b
}

func appendCapitalised(b []byte, w string) []byte {
	r, size := utf8.DecodeRuneInString(w)
	if up := unicode.ToUpper(r); up != r {
		return append(utf8.AppendRune(b, up), w[size:]...)
	}
	return append(b, w...)
}

// appendText appends summary and description: a few sentences, the summary being the first one,
// as in the real catalogue. Some items have neither, some only a summary.
func (g *generator) appendText(b []byte, ti int, l *lang) []byte {
	present := [3]int{700, 650, 200}[ti]
	sentences := l.sentences[ti]
	if !g.chance(present) {
		switch {
		case g.chance(400):
			b = append(b, `,"summary":`...)
			b = appendJSONString(b, g.expand(g.scratch[:0], sentences[g.rng.IntN(len(sentences))], l))
		case ti == 2 && g.chance(500):
			// Gutenberg-style exports write empty strings rather than leaving keys out.
			b = append(b, `,"description":"","summary":""`...)
		case g.chance(100):
			b = append(b, `,"summary":null,"description":null`...)
		}
		return b
	}
	d := g.desc[:0]
	count := 1 + g.rng.IntN(4)
	if ti == 1 {
		count++
	}
	markup := ti == 1 && g.chance(350)
	first := 0
	for k := range count {
		if k > 0 {
			switch {
			case markup && k == count-1:
				d = append(d, "\n\n* "...)
			case markup:
				d = append(d, "\n\n"...)
			default:
				d = append(d, l.sep...)
			}
		}
		d = g.expand(d, sentences[g.rng.IntN(len(sentences))], l)
		if k == 0 {
			first = len(d)
		}
	}
	if markup {
		d = append(d, "\n\nSlides: https://slides.example.org/"...)
		d = strconv.AppendUint(d, g.rng.Uint64()>>20, 36)
	}
	if ti == 0 && l.code == "en" && g.chance(500) {
		d = append(d, " Image: "...)
		d = strconv.AppendInt(d, int64(100+g.rng.IntN(500)), 10)
		d = append(d, " × "...)
		d = strconv.AppendInt(d, int64(100+g.rng.IntN(500)), 10)
		d = append(d, " mm."...)
	}
	g.desc = d
	if !g.chance(80) {
		b = append(b, `,"summary":`...)
		b = appendJSONString(b, d[:first])
	}
	b = append(b, `,"description":`...)
	return appendJSONString(b, d)
}

func (g *generator) appendTags(b []byte, ti int, ts *typeSpec, cat int, l *lang) []byte {
	if g.chance(200) {
		switch u := g.rng.IntN(10); {
		case u < 5:
		case u < 9:
			b = append(b, `,"tags":[]`...)
		default:
			b = append(b, `,"tags":null`...)
		}
		return b
	}
	vocab := ts.defaultTopic
	if cat >= 0 {
		vocab = ts.cats[cat].topic
	}
	count := 1 + g.rng.IntN([3]int{6, 5, 3}[ti])
	b = append(b, `,"tags":[`...)
	var chosen [8]int
	for k := range count {
		x := g.rng.IntN(len(vocab))
		dup := false
		for _, c := range chosen[:k] {
			dup = dup || c == x
		}
		chosen[k] = x
		if dup {
			continue
		}
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, vocab[x])
	}
	if l.code != "en" && g.chance(150) {
		// A subject heading in the item's own language.
		b = append(b, ',')
		b = appendJSONString(b, g.pick(l.nouns))
	}
	return append(b, ']')
}

func (g *generator) appendKeywords(b []byte, ti int, ts *typeSpec, cat int, day int64, hasDate bool) []byte {
	if g.chance(120) {
		return b
	}
	b = append(b, `,"keywords":[`...)
	open := len(b)
	switch {
	case ti == 1 && cat >= 0 && hasDate:
		// The conference and its year.
		y, _, _ := civilFromDays(day)
		g.scratch = append(append(g.scratch[:0], ts.cats[cat].name...), ' ')
		g.scratch = strconv.AppendInt(g.scratch, y, 10)
		b = appendJSONString(b, g.scratch)
	case ti == 2 && cat >= 0 && len(ts.cats[cat].codes) > 0:
		b = appendJSONString(b, g.pick(ts.cats[cat].codes))
	}
	if g.chance(400) {
		if len(b) > open {
			b = append(b, ',')
		}
		b = appendJSONString(b, g.pick(g.v.shelves[ti]))
	}
	return append(b, ']')
}
