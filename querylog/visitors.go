package querylog

import (
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// tag is a visitor as the log holds it: 32 bits of a hash keyed by a seed only this process
// knows, so nothing outside it can tell which visitor a tag stands for, nor match tags of two
// replicas (a visitor searching through two replicas is two tags).
type tag uint32

// tagHex is the length of a tag written in Redis: 8 hex digits.
const tagHex = 8

// visitors are the distinct tags that searched a text, at most MinVisitors of them: a text is
// listed once it holds that many, so more would say nothing.
type visitors struct {
	n    uint8
	tags [MinVisitors]tag
}

func (v *visitors) add(t tag) {
	if int(v.n) == len(v.tags) || v.has(t) {
		return
	}
	v.tags[v.n] = t
	v.n++
}

func (v *visitors) has(t tag) bool {
	for _, x := range v.tags[:v.n] {
		if x == t {
			return true
		}
	}
	return false
}

func (v *visitors) merge(o visitors) {
	for _, t := range o.tags[:o.n] {
		v.add(t)
	}
}

// enough reports whether the text was searched by MinVisitors visitors or more.
func (v visitors) enough() bool { return int(v.n) == len(v.tags) }

// String is the tags as Redis holds them: tagHex digits each, one after the other.
func (v visitors) String() string {
	var b strings.Builder
	for _, t := range v.tags[:v.n] {
		fmt.Fprintf(&b, "%0*x", tagHex, uint32(t))
	}
	return b.String()
}

// addHex adds the tags of s, written as String writes them; a malformed one is skipped.
func (v *visitors) addHex(s string) {
	for i := 0; i+tagHex <= len(s); i += tagHex {
		if n, err := strconv.ParseUint(s[i:i+tagHex], 16, 32); err == nil {
			v.add(tag(n))
		}
	}
}

// seen remembers which visitor searched which text in which bucket, so that each pair counts once
// in any window Read sums, and how many texts each visitor counted in the current bucket, so that
// none counts more than MaxVisitorTexts there. It holds at most max pairs: when full, the oldest
// buckets' pairs are forgotten first, a quarter of max at least in one go (a visitor's search of
// them then counts again), and a pair past max in the current bucket alone is counted without
// being remembered. A search asks one map; only a new bucket or a full map walks the pairs.
type seen struct {
	max int
	// pairs maps each pair remembered to the bucket it was counted in; per counts them by bucket.
	pairs map[uint64]int64
	per   map[int64]int
	// texts counts the texts each visitor counted in bucket textsIn, for the pairs remembered.
	texts   map[uint64]int
	textsIn int64
}

func newSeen(max int) *seen {
	return &seen{max: max, pairs: make(map[uint64]int64), per: make(map[int64]int), texts: make(map[uint64]int)}
}

// counted reports whether pair was counted within the window ending with bucket cur.
func (s *seen) counted(pair uint64, cur int64) bool {
	b, ok := s.pairs[pair]
	return ok && b >= cur-Buckets
}

// spent reports whether visitor counted MaxVisitorTexts texts in bucket cur already.
func (s *seen) spent(visitor uint64, cur int64) bool {
	return s.textsIn == cur && s.texts[visitor] >= MaxVisitorTexts
}

// mark remembers that visitor's pair was counted in bucket cur.
func (s *seen) mark(visitor, pair uint64, cur int64) {
	if _, ok := s.per[cur]; !ok {
		s.drop(func(b int64) bool { return b < cur-Buckets })
	}
	if b, ok := s.pairs[pair]; ok {
		s.per[b]--
	} else if len(s.pairs) >= s.max {
		s.drop(s.oldest(cur))
		if len(s.pairs) >= s.max {
			return
		}
	}
	s.pairs[pair] = cur
	s.per[cur]++
	if s.textsIn != cur {
		clear(s.texts)
		s.textsIn = cur
	}
	s.texts[visitor]++
}

// oldest says which buckets to forget to free a quarter of max, or all but cur's when they hold less.
func (s *seen) oldest(cur int64) func(bucket int64) bool {
	buckets := make([]int64, 0, len(s.per))
	for b := range s.per {
		if b != cur {
			buckets = append(buckets, b)
		}
	}
	slices.Sort(buckets)
	cutoff, freed := int64(math.MinInt64), 0
	for _, b := range buckets {
		if freed >= s.max/4 {
			break
		}
		cutoff, freed = b, freed+s.per[b]
	}
	return func(b int64) bool { return b <= cutoff && b != cur }
}

// drop forgets the pairs of the buckets gone names, if any.
func (s *seen) drop(gone func(bucket int64) bool) {
	if !slices.ContainsFunc(slices.Collect(maps.Keys(s.per)), gone) {
		return
	}
	for p, b := range s.pairs {
		if gone(b) {
			delete(s.pairs, p)
		}
	}
	maps.DeleteFunc(s.per, func(b int64, _ int) bool { return gone(b) })
}

// hasher makes a visitor's key and tag and a (visitor, text) pair's key, from seeds of the process.
type hasher struct{ visitors, pairs maphash.Seed }

func newHasher() hasher { return hasher{visitors: maphash.MakeSeed(), pairs: maphash.MakeSeed()} }

func (h hasher) visitor(visitor string) uint64 { return maphash.String(h.visitors, visitor) }

func (h hasher) pair(visitor, text string) uint64 {
	var m maphash.Hash
	m.SetSeed(h.pairs)
	m.WriteString(visitor)
	m.WriteByte(0)
	m.WriteString(text)
	return m.Sum64()
}

// tag32 is a visitor's key cut to a tag's 32 bits.
func tag32(key uint64) tag { return tag(key) }
