package search

import "testing"

func TestTypoAllowance(t *testing.T) {
	for word, want := range map[string]int{"": 0, "a": 0, "ab": 0, "abc": 1, "abcde": 1, "abcdef": 2, "abcdefghij": 2, "羅生": 0, "ελάφι": 1, "éléphant": 2} {
		if got := TypoAllowance(word); got != want {
			t.Errorf("TypoAllowance(%q) = %d, want %d", word, got, want)
		}
	}
}
