package search

import (
	"strings"

	"mediagw/search/text"
)

// Bounds of a correction (the did-you-mean).
const (
	// MaxNeighbours bounds the indexed words a correction weighs for each word of a search
	// (search/spell.Correct).
	MaxNeighbours = 20
	// MaxAlternatives bounds the alternatives one correction weighs, each word's neighbours taken
	// in turn: all of them are counted in one engine call (Backend.Totals), but each is one more
	// query for the engine to match, and a long text of words with many neighbours would
	// otherwise make hundreds (12 words of 20 neighbours each: 240).
	MaxAlternatives = 40
)

// Matches maps words, as text.Words gives them, to the indexed terms each matches in a search:
// itself, if indexed, and those within its typo allowance (TypoAllowance, EditsWithin), folded,
// as search/spell finds them among the words of the index. A backend may count a word's items by
// them instead of expanding its allowance again, which costs an engine more than the count.
type Matches map[string][]string

// Word is a word the index holds (folded, as text.Terms makes it) and the number of items holding
// it in any searched field: how common it is, which tells a typo from a rare word (search/spell).
type Word struct {
	Text  string
	Items int
}

// Alternative is a text with one of its words replaced by another.
type Alternative struct {
	// Word is a word of the text as text.Words gives it; With is a single word.
	Word, With string
}

// Text is s with every word of it (text.Spans) that is a.Word replaced by a.With, all else as it
// was: the other words, a repeated one and what stands between them.
func (a Alternative) Text(s string) string {
	var b strings.Builder
	last := 0
	for sp := range text.Spans(s) {
		if s[sp.Start:sp.End] == a.Word {
			b.WriteString(s[last:sp.Start])
			b.WriteString(a.With)
			last = sp.End
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
