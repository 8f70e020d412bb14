package search

import (
	"slices"
	"strings"
	"unicode"
)

// Words splits the user's text into the words that must all match, each once, where the
// analyzers of both backends split words (Unicode word boundaries, UAX #29): at white space and
// punctuation, except a period or apostrophe between two letters or two digits ("don't", "U.S",
// "3.14"), a comma or semicolon between two digits ("1,000") and a middle dot between two letters
// ("col·lecció"); an underscore always joins. A piece with no letter or digit is no word.
func Words(text string) []string {
	rs := []rune(text)
	var words []string
	start := -1
	for i := 0; i <= len(rs); i++ {
		if i < len(rs) && inWord(rs, i) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			w := string(rs[start:i])
			if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 && !slices.Contains(words, w) {
				words = append(words, w)
			}
			start = -1
		}
	}
	return words
}

// inWord reports whether rs[i] belongs to a word, given its neighbours.
func inWord(rs []rune, i int) bool {
	r := rs[i]
	if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == '_' {
		return true
	}
	if i == 0 || i == len(rs)-1 {
		return false
	}
	prev, next := rs[i-1], rs[i+1]
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
