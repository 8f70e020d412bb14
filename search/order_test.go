package search

import "testing"

func TestAuthorLess(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"anna", "Bert", true},
		{"Émile", "Eric", true},
		{"Ann", "ann", true},
		{"ann", "Ann", false},
		{"Ann", "Ann", false},
	}
	for _, tt := range tests {
		if got := AuthorLess(tt.a, tt.b); got != tt.want {
			t.Errorf("AuthorLess(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestLanguageCode(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"en", "en", true},
		{"EN", "en", true},
		{"iw", "he", true},
		{"MO", "ro", true},
		{"sh", "sh", true},
		{"qq", "", false},
		{"eng", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := LanguageCode(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("LanguageCode(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
