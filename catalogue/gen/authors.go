// The item's people and popularity: authors drawn by a long-tailed rank, each rank always written
// as the same name, and download counts that follow the rank.

package gen

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Shapes of the author distribution, tuned so a 20,000-item catalogue looks like the real one in
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
)

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
