// Package gen makes synthetic catalogues in the format catalogue reads (CATALOGUE.md): as many
// items as asked, realistic in their distributions, the same for the same seed, for `mediactl gen`,
// benchmarks and tests.
//
// generate.go writes the lines; words.go, authors.go, dates.go and media.go draw the parts of an
// item; vocabulary.go parses the word lists of vocab.go; json.go writes JSON by hand.
package gen

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
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

const (
	// Recently generated titles are reused for re-releases and series; this many per type.
	recentTitles = 256

	permalinkBase = "https://collection.example.org/items/"
	mediaBase     = "https://media.example.org/"
)

var typeNames = [3]string{"photo", "video", "document"}

// typeWeights: the share of photos, videos and documents, per mille.
var typeWeights = []int{400, 220, 380}

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

// mix64 is SplitMix64's finaliser: a cheap, well-spread hash of one word.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
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
