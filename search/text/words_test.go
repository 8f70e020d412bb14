package text

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for text, want := range map[string][]string{
		"river thames":      {"river", "thames"},
		"quasar-desert":     {"quasar", "desert"},
		"quasar,desert":     {"quasar", "desert"},
		"1,000 don't U.S":   {"1,000", "don't", "U.S"},
		"col·lecció":        {"col·lecció"},
		"snake_case":        {"snake_case"},
		`"(*:\ OR) harbour`: {"OR", "harbour"},
		"harbour harbour":   {"harbour"},
		"--- ... !!!":       nil,
		"羅生門":               {"羅生門"},
		"end.":              {"end"},
		"3.14 a:b":          {"3.14", "a", "b"},
	} {
		if got := Words(text); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", text, got, want)
		}
	}
}
