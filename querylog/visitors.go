package querylog

import (
	"fmt"
	"hash/maphash"
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
// bucket's pairs are forgotten first (a visitor's search then counts again), and a pair past max
// in the current bucket alone is counted without being remembered.
type seen struct {
	max, n  int
	buckets map[int64]map[uint64]struct{}
	// texts counts the texts each visitor counted in bucket textsIn, for the pairs remembered.
	texts   map[uint64]int
	textsIn int64
}

func newSeen(max int) *seen {
	return &seen{max: max, buckets: make(map[int64]map[uint64]struct{}), texts: make(map[uint64]int)}
}

// counted reports whether pair was counted within the window ending with bucket cur.
func (s *seen) counted(pair uint64, cur int64) bool {
	for b, m := range s.buckets {
		if _, ok := m[pair]; ok && b >= cur-Buckets {
			return true
		}
	}
	return false
}

// spent reports whether visitor counted MaxVisitorTexts texts in bucket cur already.
func (s *seen) spent(visitor uint64, cur int64) bool {
	return s.textsIn == cur && s.texts[visitor] >= MaxVisitorTexts
}

// mark remembers that visitor's pair was counted in bucket cur.
func (s *seen) mark(visitor, pair uint64, cur int64) {
	m := s.buckets[cur]
	if m == nil {
		s.forget(func(b int64) bool { return b < cur-Buckets })
		m = make(map[uint64]struct{})
		s.buckets[cur] = m
	}
	if s.n >= s.max {
		oldest := cur
		for b := range s.buckets {
			oldest = min(oldest, b)
		}
		s.forget(func(b int64) bool { return b == oldest && b != cur })
	}
	if s.n >= s.max {
		return
	}
	m[pair] = struct{}{}
	s.n++
	if s.textsIn != cur {
		clear(s.texts)
		s.textsIn = cur
	}
	s.texts[visitor]++
}
func (s *seen) forget(drop func(bucket int64) bool) {
	for b, m := range s.buckets {
		if drop(b) {
			s.n -= len(m)
			delete(s.buckets, b)
		}
	}
}

// hasher makes a visitor's key and tag and a (visitor, text) pair's key, from seeds of the process.
type hasher struct{ visitors, pairs maphash.Seed }

func newHasher() hasher { return hasher{visitors: maphash.MakeSeed(), pairs: maphash.MakeSeed()} }

func (h hasher) visitor(visitor string) uint64 { return maphash.String(h.visitors, visitor) }

// tag32 is a visitor's key cut to a tag's 32 bits.
func tag32(key uint64) tag { return tag(key) }

func (h hasher) pair(visitor, text string) uint64 {
	var m maphash.Hash
	m.SetSeed(h.pairs)
	m.WriteString(visitor)
	m.WriteByte(0)
	m.WriteString(text)
	return m.Sum64()
}
