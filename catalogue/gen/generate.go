// Package gen makes synthetic catalogues in the format catalogue reads (CATALOGUE.md): as many
// items as asked, realistic in their distributions, the same for the same seed, for `mediactl gen`,
// benchmarks and tests.
package gen

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Generate writes n lines of a made-up but realistic catalogue in the NDJSON format of
// CATALOGUE.md: photos, videos and documents in several languages and scripts, long-tailed author
// and download popularity, dates over decades with some missing, duplicate titles, extra keys.
//
// The output depends only on seed and n, and line k never depends on n, so a run is a prefix of
// any longer run with the same seed. Memory stays constant whatever n is: ids are unique by
// construction (gen-<type>-<line>), and nothing else is remembered per item.
func Generate(w io.Writer, n int, seed int64) error {
	if n < 0 {
		return fmt.Errorf("generate catalogue: negative item count %d", n)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	g := newGenerator(seed)
	for i := range n {
		g.line = g.appendItem(g.line[:0], i)
		if _, err := bw.Write(g.line); err != nil {
			return fmt.Errorf("generate catalogue: write line %d: %w", i+1, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("generate catalogue: %w", err)
	}
	return nil
}

// Shapes of the distributions, tuned so a 20,000-item catalogue looks like the real one in
// ../shared/data: a few very prolific authors, a long tail of one-item authors.
const (
	// The author pool grows with the line number (not with n, which would break the prefix
	// property): about one new author per authorPoolDiv items, up to authorPoolMax.
	authorPoolMin = 40
	authorPoolDiv = 4
	authorPoolMax = 250_000
	// P(rank r) ∝ (r+authorZipfV)^-authorZipfS.
	authorZipfS = 1.1
	authorZipfV = 12.0

	// Recently generated titles are reused for re-releases and series; this many per type.
	recentTitles = 256

	permalinkBase = "https://collection.example.org/items/"
	mediaBase     = "https://media.example.org/"
)

var typeNames = [3]string{"photo", "video", "document"}

// typeWeights: the share of photos, videos and documents, per mille.
var typeWeights = []int{400, 220, 380}

// firstDay and lastDay bound the dates, as days since 1970-01-01.
var firstDay, lastDay = daysFromCivil(1950, 1, 1), daysFromCivil(2025, 12, 31)

type generator struct {
	rng  *rand.Rand
	salt uint64
	v    *vocabulary
	src  string

	// slots deal author ranks to cultures (see appendAuthorName); slotPos is a slot's position
	// among its culture's slots.
	slots   []uint8
	slotPos []int32

	line, title, desc, author, scratch []byte
	recent                             [3][recentTitles]recentTitle
	nRecent                            [3]int
}

type recentTitle struct {
	title string
	lang  int
}

func newGenerator(seed int64) *generator {
	g := &generator{
		rng:     rand.New(rand.NewPCG(uint64(seed), 0x6d6564696167772d)),
		salt:    mix64(uint64(seed) ^ 0x9e3779b97f4a7c15),
		v:       loadVocabulary(),
		src:     "generated:seed=" + strconv.FormatInt(seed, 10),
		line:    make([]byte, 0, 4096),
		title:   make([]byte, 0, 256),
		desc:    make([]byte, 0, 2048),
		author:  make([]byte, 0, 128),
		scratch: make([]byte, 0, 128),
	}
	for ci, c := range g.v.cultures {
		for range c.weight {
			g.slots = append(g.slots, uint8(ci))
		}
	}
	// A separate stream, so the slot table does not shift the items' random numbers.
	rand.New(rand.NewPCG(g.salt, 1)).Shuffle(len(g.slots), func(i, j int) {
		g.slots[i], g.slots[j] = g.slots[j], g.slots[i]
	})
	g.slotPos = make([]int32, len(g.slots))
	next := make([]int32, len(g.v.cultures))
	for i, ci := range g.slots {
		g.slotPos[i] = next[ci]
		next[ci]++
	}
	return g
}

// chance reports true with probability perMille/1000.
func (g *generator) chance(perMille int) bool { return g.rng.IntN(1000) < perMille }

func (g *generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// weighted returns an index drawn with the weights whose running sums are cum.
func (g *generator) weighted(cum []int) int {
	x := g.rng.IntN(cum[len(cum)-1])
	for i, c := range cum {
		if x < c {
			return i
		}
	}
	return len(cum) - 1
}

// appendItem appends line i (0-based) of the catalogue, newline included.
func (g *generator) appendItem(b []byte, i int) []byte {
	v := g.v
	ti := g.weighted(v.typeCum)
	ts := &v.types[ti]

	cat := -1
	if !g.chance(30) {
		cat = g.weighted(ts.catCum)
	}
	day, yearOnly, hasDate := g.date(ti)
	li := g.language(ti, ts, cat)
	year := int64(0)
	if hasDate {
		year, _, _ = civilFromDays(day)
	}
	li = g.makeTitle(ti, li, year)
	// An item without a language is still written in one; English, like most of them.
	l := &v.langs[v.english]
	if li != noLanguage {
		l = &v.langs[li]
	}

	rank, hasAuthor := g.makeAuthor(i)

	// id, type, title
	b = append(b, `{"id":"gen-`...)
	b = append(b, typeNames[ti]...)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(i+1), 10)
	b = append(b, `","type":"`...)
	b = append(b, typeNames[ti]...)
	b = append(b, `","title":`...)
	b = appendJSONString(b, g.title)

	b = g.appendText(b, ti, l)
	b = g.appendTags(b, ti, ts, cat, l)
	b = g.appendKeywords(b, ti, ts, cat, day, hasDate)

	switch {
	case hasAuthor:
		b = append(b, `,"author":`...)
		b = appendJSONString(b, g.author)
	case g.chance(300):
		b = append(b, `,"author":null`...)
	}
	if cat >= 0 {
		c := &ts.cats[cat]
		b = append(b, `,"category":"`...)
		b = append(b, c.slug...)
		b = append(b, '"')
		if !g.chance(150) {
			b = append(b, `,"category_name":`...)
			b = appendJSONString(b, c.name)
		}
	}
	switch {
	case li != noLanguage:
		b = append(b, `,"language":"`...)
		b = append(b, l.code...)
		b = append(b, '"')
	case g.chance(500):
		b = append(b, `,"language":null`...)
	}
	switch {
	case hasDate:
		b = append(b, `,"date":"`...)
		b = appendDate(b, day)
		b = append(b, '"')
	case g.chance(400):
		b = append(b, `,"date":null`...)
	}
	b = g.appendDownloads(b, rank, hasAuthor)

	id := b[len(`{"id":"`):]
	id = id[:indexByte(id, '"')]
	if !g.chance(30) {
		b = append(b, `,"permalink":"`+permalinkBase...)
		b = append(b, id...)
		b = append(b, '"')
	}
	if g.chance(350) {
		b = append(b, `,"sha256":"`...)
		var sum [32]byte
		for k := 0; k < 32; k += 8 {
			u := g.rng.Uint64()
			for j := range 8 {
				sum[k+j] = byte(u >> (8 * j))
			}
		}
		b = hex.AppendEncode(b, sum[:])
		b = append(b, '"')
	}
	b = g.appendMedia(b, ti, ts, id)

	if !g.chance(30) {
		b = append(b, `,"license":"`...)
		b = append(b, licenses[g.weighted(v.licenseCum)].id...)
		b = append(b, '"')
	}
	b = g.appendRights(b, ti, hasAuthor)
	b = append(b, `,"source":`...)
	b = appendJSONString(b, g.src)
	b = g.appendExtras(b, ti, yearOnly)
	return append(b, "}\n"...)
}

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

// makeAuthor writes the item's author (one or a few people) into g.author, and returns the rank
// of the first, which download counts follow.
func (g *generator) makeAuthor(i int) (rank int, ok bool) {
	if g.chance(60) {
		return 0, false
	}
	rank = g.authorRank(i)
	g.author = g.appendAuthorName(g.author[:0], rank)
	if g.chance(40) {
		sep := "; "
		if g.chance(500) {
			sep = ", "
		}
		prev := rank
		for range 1 + g.rng.IntN(2) {
			// A co-author is someone else; a repeat draw just leaves the list shorter.
			if co := g.authorRank(i); co != rank && co != prev {
				g.author = append(g.author, sep...)
				g.author = g.appendAuthorName(g.author, co)
				prev = co
			}
		}
	}
	return rank, true
}

// authorRank draws a Zipf-like rank: a bounded power law over a pool that grows with i.
func (g *generator) authorRank(i int) int {
	pool := min(authorPoolMin+i/authorPoolDiv, authorPoolMax)
	a := g.v.zipfLow
	c := math.Pow(float64(pool)+authorZipfV, 1-authorZipfS)
	x := math.Pow(a-g.rng.Float64()*(a-c), 1/(1-authorZipfS))
	return min(max(int(x-authorZipfV), 0), pool-1)
}

// appendAuthorName appends the name of the author of the given rank. It is a function of the
// rank and the seed alone, so each author is written the same way every time; and distinct ranks
// get distinct names until a culture's names run out, so the pool really grows. Ranks are dealt
// to cultures by a shuffled table of slots in proportion to their weights; within a culture, the
// first forename-surname pairs go, scrambled, to its most popular authors, and later authors get
// middle initials or second names, as a long tail of less-known people does.
func (g *generator) appendAuthorName(b []byte, rank int) []byte {
	if name, ok := collectiveAuthors[rank]; ok {
		return append(b, name...)
	}
	q, r := rank/len(g.slots), rank%len(g.slots)
	c := &g.v.cultures[g.slots[r]]
	k := q*c.weight + int(g.slotPos[r])
	block, within := k/c.pairs, k%c.pairs
	within = (within*c.mult + int(g.salt%uint64(c.pairs))) % c.pairs
	fore := c.forenames[within%len(c.forenames)]
	sur := c.surnames[within/len(c.forenames)]
	extra := c.extras[block%len(c.extras)]
	form := mix64(uint64(rank)^g.salt) % 100
	switch c.style {
	case "joined":
		return append(append(append(b, sur...), fore...), extra...)
	case "family":
		return append(append(append(append(b, sur...), ' '), fore...), extra...)
	case "plain":
		return append(append(append(append(b, fore...), extra...), ' '), sur...)
	}
	switch {
	case form < 25:
		b = append(append(append(b, sur...), ", "...), fore...)
		return append(b, extra...)
	case form < 28 && extra == "":
		b = appendInitial(b, fore)
	default:
		b = append(append(b, fore...), extra...)
	}
	return append(append(b, ' '), sur...)
}

// appendInitial appends the first letter of name and a full stop, in the name's own script.
func appendInitial(b []byte, name string) []byte {
	_, size := utf8.DecodeRuneInString(name)
	return append(append(b, name[:size]...), '.')
}

// date returns the item's date as days since 1970-01-01. Photos have many year-only dates
// (padded to January 1st), videos are mostly recent, documents spread over the whole range.
func (g *generator) date(ti int) (day int64, yearOnly, ok bool) {
	if g.chance(10) {
		return 0, false, false
	}
	switch ti {
	case 0:
		y := int64(1950 + g.rng.IntN(76))
		if g.chance(300) {
			return daysFromCivil(y, 1, 1), true, true
		}
		start := daysFromCivil(y, 1, 1)
		return start + g.rng.Int64N(daysFromCivil(y+1, 1, 1)-start), false, true
	case 1:
		y := max(2025-int64(g.rng.ExpFloat64()*7), 1950)
		start := daysFromCivil(y, 1, 1)
		return start + g.rng.Int64N(daysFromCivil(y+1, 1, 1)-start), false, true
	}
	return firstDay + g.rng.Int64N(lastDay-firstDay+1), false, true
}

// appendDownloads: log-normal counts, higher for popular authors, some zero.
func (g *generator) appendDownloads(b []byte, rank int, hasAuthor bool) []byte {
	switch u := g.rng.IntN(1000); {
	case u < 15:
		return b
	case u < 20:
		return append(b, `,"downloads":null`...)
	case u < 35:
		return append(b, `,"downloads":0`...)
	}
	mu := 3.2
	if hasAuthor && rank < 100 {
		mu += 0.7
		if rank < 10 {
			mu += 0.8
		}
	}
	d := math.Exp(mu + 1.9*g.rng.NormFloat64())
	b = append(b, `,"downloads":`...)
	return strconv.AppendInt(b, int64(min(d, 5e7)), 10)
}

// appendMedia appends media_url, thumbnail_url, mime_type, size_bytes and the type's dimensions,
// consistent with each other and with the type.
func (g *generator) appendMedia(b []byte, ti int, ts *typeSpec, id []byte) []byte {
	m := ts.media[g.weighted(ts.mediaCum)]
	hasFile := false
	switch {
	case g.chance(70):
		// No media link, as for many archive records.
	case ti == 1 && g.chance(250):
		// A player page, not a file: no mime type, as real exports do for hosted videos.
		b = append(b, `,"media_url":"https://video.example.org/watch?v=`...)
		b = appendVideoKey(b, g.rng.Uint64())
		b = append(b, '"')
	default:
		hasFile = true
		b = append(b, `,"media_url":"`+mediaBase...)
		b = append(b, typeNames[ti]...)
		b = append(b, '/')
		b = append(b, id...)
		b = append(b, '.')
		b = append(b, m.ext...)
		b = append(b, '"')
	}
	if g.chance([3]int{950, 850, 150}[ti]) {
		b = append(b, `,"thumbnail_url":"`+mediaBase+`thumbs/`...)
		b = append(b, id...)
		b = append(b, `.jpg"`...)
	} else if g.chance(300) {
		b = append(b, `,"thumbnail_url":null`...)
	}
	if hasFile && !g.chance(50) {
		b = append(b, `,"mime_type":"`...)
		b = append(b, m.mime...)
		b = append(b, '"')
	}

	var size float64
	switch ti {
	case 0:
		wh := photoSizes[g.rng.IntN(len(photoSizes))]
		w, h := wh[0], wh[1]
		if g.chance(150) {
			// A scan: any size.
			w = int64(400 + g.rng.IntN(8600))
			h = int64(float64(w) * (0.5 + g.rng.Float64()))
		}
		if g.chance(350) {
			w, h = h, w
		}
		size = float64(w*h) * m.perPixel * (0.6 + 0.8*g.rng.Float64())
		if hasFile && !g.chance(100) {
			b = appendSize(b, size)
		}
		if !g.chance(50) {
			b = append(b, `,"width":`...)
			b = strconv.AppendInt(b, w, 10)
			b = append(b, `,"height":`...)
			b = strconv.AppendInt(b, h, 10)
		}
	case 1:
		dur := min(max(math.Exp(7.3+0.7*g.rng.NormFloat64()), 10), 4*3600)
		size = dur * (50e3 + 350e3*g.rng.Float64())
		if hasFile && !g.chance(100) {
			b = appendSize(b, size)
		}
		if !g.chance(70) {
			b = append(b, `,"duration_seconds":`...)
			if g.chance(300) {
				b = strconv.AppendFloat(b, math.Round(dur*100)/100, 'f', -1, 64)
			} else {
				b = strconv.AppendInt(b, int64(dur), 10)
			}
		}
	default:
		size = math.Exp(12.6 + 1.1*g.rng.NormFloat64())
		if hasFile && !g.chance(100) {
			b = appendSize(b, size)
		}
	}
	return b
}

func appendSize(b []byte, size float64) []byte {
	b = append(b, `,"size_bytes":`...)
	return strconv.AppendInt(b, max(int64(size), 1), 10)
}

// appendVideoKey appends an 11-character id as video hosts use.
func appendVideoKey(b []byte, u uint64) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for range 11 {
		b = append(b, alphabet[u&63])
		u >>= 6
	}
	return b
}

func (g *generator) appendRights(b []byte, ti int, hasAuthor bool) []byte {
	if !g.chance(450) {
		return b
	}
	b = append(b, `,"rights":`...)
	switch {
	case ti == 0 && hasAuthor:
		g.scratch = append(append(g.scratch[:0], "© "...), g.author...)
		return appendJSONString(b, g.scratch)
	case ti == 2:
		return appendJSONString(b, "Public domain in the USA.")
	}
	return appendJSONString(b, g.pick(g.v.rights))
}

// appendExtras adds keys outside the format, as real exports carry: flat values, nulls and
// nested objects and arrays, which readers must skip.
func (g *generator) appendExtras(b []byte, ti int, yearOnly bool) []byte {
	if yearOnly {
		b = append(b, `,"date_precision":"year"`...)
	}
	if !g.chance(100) {
		return b
	}
	switch g.rng.IntN(6) {
	case 0:
		b = append(b, `,"checksum":null`...)
	case 1:
		b = append(b, `,"downloads_synthetic":true`...)
	case 2:
		b = append(b, `,"date_precision":"day"`...)
	case 3:
		if ti == 0 {
			b = append(b, `,"exif":{"camera":`...)
			b = appendJSONString(b, g.pick(cameras))
			b = append(b, `,"iso":`...)
			b = strconv.AppendInt(b, int64(100<<g.rng.IntN(6)), 10)
			b = append(b, `,"focal_length_mm":`...)
			b = strconv.AppendInt(b, int64(18+g.rng.IntN(180)), 10)
			return append(b, '}')
		}
		b = append(b, `,"rating":`...)
		b = strconv.AppendFloat(b, float64(g.rng.IntN(51))/10, 'f', -1, 64)
	case 4:
		b = append(b, `,"x_history":[{"at":"2019-03-01","by":"import"},{"at":"2021-11-12","by":"curator","note":"re-keyed"}]`...)
	default:
		b = append(b, `,"internal_notes":null`...)
	}
	return b
}

// appendJSONString appends s as a JSON string. The generator's text is valid UTF-8, so only
// quotes, backslashes and control characters need escaping.
func appendJSONString[S ~string | ~[]byte](b []byte, s S) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendCapitalised(b []byte, w string) []byte {
	r, size := utf8.DecodeRuneInString(w)
	if up := unicode.ToUpper(r); up != r {
		return append(utf8.AppendRune(b, up), w[size:]...)
	}
	return append(b, w...)
}

func appendDate(b []byte, day int64) []byte {
	y, m, d := civilFromDays(day)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(b, byte('0'+m/10), byte('0'+m%10), '-')
	return append(b, byte('0'+d/10), byte('0'+d%10))
}

// daysFromCivil and civilFromDays convert proleptic Gregorian dates to and from days since
// 1970-01-01 (H. Hinnant's algorithms), far cheaper per item than going through time.Time.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// mix64 is SplitMix64's finaliser: a cheap, well-spread hash of one word.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// The parsed vocabularies, built once on first use.

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
