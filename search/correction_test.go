package search

import "testing"

func TestAlternativeText(t *testing.T) {
	tests := []struct {
		s    string
		a    Alternative
		want string
	}{
		{"hreo and leander and", Alternative{Word: "hreo", With: "hero"}, "hero and leander and"},
		{"thmes thmes", Alternative{Word: "thmes", With: "thames"}, "thames thames"},
		{"thmes, river; thmes.", Alternative{Word: "thmes", With: "thames"}, "thames, river; thames."},
		{"l'amerqiue du nord", Alternative{Word: "amerqiue", With: "amerique"}, "l'amerique du nord"},
		{"hreos hreo", Alternative{Word: "hreo", With: "hero"}, "hreos hero"}, // a word, not a piece of one
		{"Hreo hreo", Alternative{Word: "hreo", With: "hero"}, "Hreo hero"},   // a word as written
		{"river", Alternative{Word: "hreo", With: "hero"}, "river"},
	}
	for _, tt := range tests {
		if got := tt.a.Text(tt.s); got != tt.want {
			t.Errorf("%+v.Text(%q) = %q, want %q", tt.a, tt.s, got, tt.want)
		}
	}
}
