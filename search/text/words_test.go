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

func TestCollapse(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"harbour", "harbour"},
		{"sunset harbour", "sunset harbour"},
		{" harbour", "harbour"},
		{"harbour ", "harbour"},
		{" ", ""},
		{"sunset  harbour", "sunset harbour"},
		{"sunset\tharbour", "sunset harbour"},
		{"sunset\u3000harbour\n", "sunset harbour"},
		{"羅生 門", "羅生 門"},
	}
	for _, tt := range tests {
		if got := Collapse(tt.in); got != tt.want {
			t.Errorf("Collapse(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
