package spell

import "unicode/utf8"

// within is a vellum.Automaton that accepts the terms within max edits of a word, counted as
// search.EditsWithin counts them (runes inserted, deleted, changed or two adjacent ones swapped),
// for terms of valid UTF-8 as the dictionary holds them. Its states hold, for the prefix the walk
// has read, the edit distances between it and the word's prefixes that may be within max: the
// band of 2*max+1 around the diagonal (Ukkonen), the others being over max. A prebuilt DFA would
// step faster, but building one for a word allocated about half a megabyte and cost more than
// the walk: a did-you-mean walks from each new word once (Dictionary.memo keeps the rest).
type within struct {
	word []rune
	max  int
	// states are the walk's, state 0 the dead one, from which no term can match.
	states []state
}

// maxEdits is the most edits an automaton allows (search.TypoAllowance), band its rows' width.
const (
	maxEdits = 2
	band     = 2*maxEdits + 1
)

// state is where a walk is after some bytes: the distances after the runes read (row) and
// before the last of them (parent, for a swap), cell k of a row after i runes being the distance
// to the word's first i-max+k runes; the number of runes read, the last one, and the bytes read
// of a rune not complete yet.
type state struct {
	row, parent [band]uint8
	npending    uint8
	pending     [utf8.UTFMax - 1]byte
	depth       int32
	last        rune
}

const dead = 0

// reset makes a ready for a walk from w within max (1 or 2) edits, reusing its memory.
func (a *within) reset(w string, max int) {
	a.word = append(a.word[:0], []rune(w)...)
	a.max = max
	start := state{last: -1}
	for k := range 2*max + 1 {
		start.row[k] = a.cell(0, k-max)
	}
	a.states = append(a.states[:0], state{}, start)
}

// cell is a distance that needs no computing, at column j of the row after i runes: over max
// outside the word, i+j (capped) in the first row or column.
func (a *within) cell(i, j int) uint8 {
	if j < 0 || j > len(a.word) {
		return uint8(a.max + 1)
	}
	return uint8(min(i+j, a.max+1))
}

// Start is the state before any byte: state 1.
func (a *within) Start() int { return 1 }

// IsMatch reports whether the bytes read so far are a term within the allowance.
func (a *within) IsMatch(s int) bool {
	if s == dead {
		return false
	}
	st := &a.states[s]
	k := len(a.word) - int(st.depth) + a.max
	return st.npending == 0 && k >= 0 && k <= 2*a.max && int(st.row[k]) <= a.max
}

// CanMatch reports whether some term that starts with the bytes read so far may be within the
// allowance: Accept returns the dead state once none can.
func (a *within) CanMatch(s int) bool { return s != dead }

// WillAlwaysMatch is false: every byte more may be one edit too many.
func (a *within) WillAlwaysMatch(int) bool { return false }

// Accept is the state after byte b.
func (a *within) Accept(s int, b byte) int {
	if s == dead {
		return dead
	}
	st := &a.states[s]
	if st.npending == 0 && b < utf8.RuneSelf {
		return a.step(st, rune(b))
	}
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], st.pending[:st.npending])
	buf[n] = b
	n++
	if !utf8.FullRune(buf[:n]) {
		next := *st
		next.pending[n-1] = b
		next.npending = uint8(n)
		a.states = append(a.states, next)
		return len(a.states) - 1
	}
	r, size := utf8.DecodeRune(buf[:n])
	if size != n {
		r = utf8.RuneError
	}
	return a.step(st, r)
}

// step is the state after rune r from st, or the dead state when every distance in its band is
// over the allowance (each rune more can only keep or raise the least).
func (a *within) step(st *state, r rune) int {
	i, w, over := int(st.depth)+1, 2*a.max+1, uint8(a.max+1)
	next := state{parent: st.row, depth: int32(i), last: r}
	least := over
	for k := range w {
		j := i - a.max + k
		if j <= 0 || j > len(a.word) {
			next.row[k] = a.cell(i, j)
			least = min(least, next.row[k])
			continue
		}
		// Cell k of this row is column j; of the row before, column j is cell k+1 and j-1 cell k;
		// of the row before that, column j-2 is cell k.
		up := over
		if k+1 < w {
			up = st.row[k+1]
		}
		left := over
		if k > 0 {
			left = next.row[k-1]
		}
		cost := uint8(1)
		if a.word[j-1] == r {
			cost = 0
		}
		d := min(up+1, left+1, st.row[k]+cost)
		if i > 1 && j > 1 && a.word[j-2] == r && a.word[j-1] == st.last {
			d = min(d, st.parent[k]+1)
		}
		next.row[k] = min(d, over)
		least = min(least, next.row[k])
	}
	if least > uint8(a.max) {
		return dead
	}
	a.states = append(a.states, next)
	return len(a.states) - 1
}
