package spell

import "unicode/utf8"

// within is a vellum.Automaton that accepts the terms within max edits of a word, counted as
// search.EditsWithin counts them (runes inserted, deleted, changed or two adjacent ones swapped),
// for terms of valid UTF-8 as the dictionary holds them. It keeps, for each prefix the walk reads,
// the row of edit distances between the prefix and the word's prefixes. A prebuilt DFA would step
// faster, but building one for a word allocated about half a megabyte and cost more than the walk:
// a did-you-mean walks from each new word once (Dictionary.memo keeps the rest).
type within struct {
	word []rune
	max  uint8
	// states and rows are the walk's: a state's row is rows[row : row+len(word)+1]. State 0 is
	// the dead state, from which no term can match.
	states []state
	rows   []uint8
}

// state is where a walk is after some bytes: the row after the runes read, the row before the
// last of them (for a swap), that rune, and the bytes read of a rune not complete yet.
type state struct {
	row, parent int32
	last        rune
	pending     [utf8.UTFMax - 1]byte
	npending    uint8
}

const dead = 0

// reset makes a ready for a walk from w within max edits, reusing its memory.
func (a *within) reset(w string, max int) {
	a.word = append(a.word[:0], []rune(w)...)
	a.max = uint8(max)
	a.rows = a.rows[:0]
	for j := range len(a.word) + 1 {
		a.rows = append(a.rows, uint8(min(j, max+1)))
	}
	a.states = append(a.states[:0], state{}, state{row: 0, parent: -1, last: -1})
}

// Start is the state before any byte: state 1.
func (a *within) Start() int { return 1 }

// IsMatch reports whether the bytes read so far are a term within the allowance.
func (a *within) IsMatch(s int) bool {
	if s == dead {
		return false
	}
	st := &a.states[s]
	return st.npending == 0 && a.rows[int(st.row)+len(a.word)] <= a.max
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
	st := a.states[s]
	if st.npending == 0 && b < utf8.RuneSelf {
		return a.step(st, rune(b))
	}
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], st.pending[:st.npending])
	buf[n] = b
	n++
	if !utf8.FullRune(buf[:n]) {
		st.pending[n-1] = b
		st.npending = uint8(n)
		a.states = append(a.states, st)
		return len(a.states) - 1
	}
	r, size := utf8.DecodeRune(buf[:n])
	if size != n {
		r = utf8.RuneError
	}
	st.npending = 0
	return a.step(st, r)
}

// step is the state after rune r from st, or the dead state when every distance in its row is
// past the allowance (each rune more can only keep or raise the least).
func (a *within) step(st state, r rune) int {
	n := len(a.word)
	prev := int(st.row)
	at := len(a.rows)
	a.rows = append(a.rows, 0)
	a.rows[at] = min(a.rows[prev]+1, a.max+1)
	least := a.rows[at]
	for j := 1; j <= n; j++ {
		cost := uint8(1)
		if a.word[j-1] == r {
			cost = 0
		}
		d := min(a.rows[prev+j]+1, a.rows[at+j-1]+1, a.rows[prev+j-1]+cost)
		if st.parent >= 0 && j > 1 && a.word[j-2] == r && a.word[j-1] == st.last {
			d = min(d, a.rows[int(st.parent)+j-2]+1)
		}
		d = min(d, a.max+1)
		a.rows = append(a.rows, d)
		least = min(least, d)
	}
	if least > a.max {
		a.rows = a.rows[:at]
		return dead
	}
	a.states = append(a.states, state{row: int32(at), parent: st.row, last: r})
	return len(a.states) - 1
}
