package text

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// TestFoldWidth: foldWidth is width.Fold for every character, those it leaves uncopied included.
func TestFoldWidth(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if s := string(r); foldWidth(s) != width.Fold.String(s) {
			t.Errorf("%U: foldWidth is %q, width.Fold %q", r, foldWidth(s), width.Fold.String(s))
		}
	}
	if s := "a\xffb"; foldWidth(s) != width.Fold.String(s) {
		t.Errorf("invalid UTF-8: foldWidth is %q, width.Fold %q", foldWidth(s), width.Fold.String(s))
	}
}

// TestFirstBigrammed: no character before firstBigrammed is written without spaces.
func TestFirstBigrammed(t *testing.T) {
	for r := rune(0); r < firstBigrammed; r++ {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			t.Fatalf("%U is bigrammed, before firstBigrammed", r)
		}
	}
}

// TestStemmableASCII: an ASCII word is read as unicode reads its letters.
func TestStemmableASCII(t *testing.T) {
	for c := range rune(utf8.RuneSelf) {
		if got, want := stemmable(string(c)), unicode.IsLetter(c); got != want {
			t.Errorf("stemmable(%q) = %v, want %v", c, got, want)
		}
	}
}
