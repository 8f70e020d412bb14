// Package text is the one way text becomes words in mediagw: the words of a query, the terms the
// embedded index and the engines hold (the engines get them already made and split them only at
// spaces), the words a highlight marks and the keys the orders compare. Both backends, the
// highlighter, completions, did-you-mean and the relevance rule call it and nothing else, so a
// word is the same word everywhere.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a word of a text: its bytes text[Start:End].
type Span struct{ Start, End int }

// Spans yields the words of text where the analyzers of both backends split them (Unicode word
// boundaries, UAX #29): at white space and punctuation (a colon and its full-width and
// presentation forms too), except a period or apostrophe between two letters or two digits
// ("don't", "U.S", "3.14"), a comma or semicolon between two digits ("1,000") and a middle dot
// between two letters ("col·lecció"); an underscore always joins. A piece with no letter or digit
// is no word. An elided article is left out of its word ("l'Amérique" is "Amérique", "dell’arto"
// "arto") and so is a possessive ("Winter's" is "Winter").
func Spans(text string) func(yield func(Span) bool) {
	return func(yield func(Span) bool) {
		start := -1
		var prev rune = -1
		// Each rune is decoded once: the next one of a step is the rune of the step after.
		r, size := decodeAt(text, 0)
		for i := 0; i <= len(text); {
			next, nextSize := decodeAt(text, i+size)
			if r >= 0 && inWord(prev, r, next) {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				if s, ok := trim(text, Span{start, i}); ok && !yield(s) {
					return
				}
				start = -1
			}
			prev = r
			i += max(size, 1)
			r, size = next, nextSize
		}
	}
}

// decodeAt decodes the rune of text at byte i: -1 and 0 bytes past its end.
func decodeAt(text string, i int) (rune, int) {
	if i >= len(text) {
		return -1, 0
	}
	if c := text[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

// Words returns the distinct words of text (Spans), in order, as written.
func Words(text string) []string {
	var words []string
	for s := range Spans(text) {
		w := text[s.Start:s.End]
		if !contains(words, w) {
			words = append(words, w)
		}
	}
	return words
}

func contains(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// inWord reports whether r belongs to a word, given the runes beside it (-1 at either end).
func inWord(prev, r, next rune) bool {
	if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == '_' {
		return true
	}
	if prev < 0 || next < 0 {
		return false
	}
	letters := unicode.IsLetter(prev) && unicode.IsLetter(next)
	digits := unicode.IsDigit(prev) && unicode.IsDigit(next)
	switch r {
	case '.', '\'', '’':
		return letters || digits
	case ',', ';':
		return digits
	case '·':
		return letters
	}
	return false
}

// elisions are the articles and prepositions that French, Italian, Catalan and Irish write joined
// to the next word by an apostrophe: the articles of Lucene's elision filters for those languages.
var elisions = map[string]bool{
	// French
	"l": true, "d": true, "m": true, "t": true, "qu": true, "n": true, "s": true, "j": true, "c": true,
	"jusqu": true, "quoiqu": true, "lorsqu": true, "puisqu": true,
	// Italian (l, d, m, t, s above)
	"all": true, "dall": true, "dell": true, "nell": true, "sull": true, "coll": true, "pell": true,
	"gl": true, "agl": true, "dagl": true, "degl": true, "negl": true, "sugl": true, "un": true, "v": true,
	// Irish (d, m above)
	"b": true,
}

// trim leaves an elided article and a possessive out of the word s, and reports whether what is
// left is a word (holds a letter or digit).
func trim(text string, s Span) (Span, bool) {
	w := text[s.Start:s.End]
	for {
		i, n := apostrophe(w)
		if i <= 0 || !elisions[Fold(w[:i])] {
			break
		}
		s.Start += i + n
		w = text[s.Start:s.End]
	}
	for trimmed := true; trimmed; {
		trimmed = false
		for _, p := range []string{"'s", "’s", "'S", "’S"} {
			if len(w) > len(p) && w[len(w)-len(p):] == p {
				s.End -= len(p)
				w = text[s.Start:s.End]
				trimmed = true
			}
		}
	}
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return s, true
		}
	}
	return s, false
}

// apostrophe returns the byte offset and length of the first apostrophe in w, or -1.
func apostrophe(w string) (int, int) {
	for i, r := range w {
		if r == '\'' || r == '’' {
			return i, utf8.RuneLen(r)
		}
	}
	return -1, 0
}

// Collapse is s trimmed, its runs of white space made one space: the one normal form of a text's
// spacing, since every analysis splits at white space and gives both the same words.
func Collapse(s string) string {
	prevSpace := true // so that a leading space counts as one too many
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (r != ' ' || prevSpace) {
			return strings.Join(strings.Fields(s), " ")
		}
		prevSpace = space
	}
	if prevSpace && s != "" {
		return strings.TrimSuffix(s, " ")
	}
	return s
}
