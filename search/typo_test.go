package search

import (
	"slices"
	"strings"
	"testing"
)

func TestTypoAllowance(t *testing.T) {
	for word, want := range map[string]int{"": 0, "a": 0, "ab": 0, "abc": 1, "abcde": 1, "abcdef": 2, "abcdefghij": 2, "羅生": 0, "ελάφι": 1, "éléphant": 2} {
		if got := TypoAllowance(word); got != want {
			t.Errorf("TypoAllowance(%q) = %d, want %d", word, got, want)
		}
	}
}

// TestTypoWords: at most MaxTypoWords words of a search keep their typo allowance, the longest
// first, so that a search's fuzzy clauses are bounded whatever its length.
func TestTypoWords(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // the words given an allowance
	}{
		{"", ""},
		{"a of", ""},
		{"the winter tale", "the winter tale"},
		{"one two three four five six", "one two three four five six"},
		{"a bb ccc dddd eeeee ffffff ggggggg hh", "ccc dddd eeeee ffffff ggggggg"},
		// Seven words: the shortest, and of equal length the last, goes without.
		{"the history of the decline and fall of the roman empire", "the history decline fall roman empire"},
		{"aaaaaa bbbbbb cccccc dddddd eeeeee ffffff gggggg hhhhhh", "aaaaaa bbbbbb cccccc dddddd eeeeee ffffff"},
		{"東京都 羅生門 abc", "東京都 羅生門 abc"},
	} {
		words := strings.Fields(tc.text)
		got := TypoWords(words)
		if len(got) != len(words) {
			t.Fatalf("TypoWords(%q): %d answers for %d words", tc.text, len(got), len(words))
		}
		var allowed []string
		for i, w := range words {
			if got[i] {
				allowed = append(allowed, w)
			}
		}
		if want := strings.Fields(tc.want); !slices.Equal(allowed, want) {
			t.Errorf("TypoWords(%q) allows %q, want %q", tc.text, allowed, want)
		}
	}
	long := strings.Repeat("abcdef ", 28)
	n := 0
	for _, ok := range TypoWords(strings.Fields(long)) {
		if ok {
			n++
		}
	}
	if n != MaxTypoWords {
		t.Errorf("28 long words: %d with an allowance, want %d", n, MaxTypoWords)
	}
}
