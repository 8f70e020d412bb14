package text

import "testing"

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Élan", "elan"},
		{"ÉLAN", "elan"},
		{"Jöns Jakob", "jons jakob"},
		{"  Straße ", "strasse"},
		{"羅生門", "羅生門"},
		{"Ηλέκτρα", "ηλεκτρα"},
		{"Ørsted", "orsted"},
		{"Łódź", "lodz"},
		{"Æsop", "aesop"},
		{"Œuvres", "oeuvres"},
		{"Þór", "thor"},
		{"Ĳssel", "ijssel"},
		{"Ǆemal", "dzemal"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
