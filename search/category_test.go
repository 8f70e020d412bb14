package search

import "testing"

func TestCategoryName(t *testing.T) {
	for in, want := range map[string]string{"nature": "Nature", "history-of-the-americas": "History of the Americas", "pycon-us": "Pycon Us"} {
		if got := CategoryName(in); got != want {
			t.Errorf("CategoryName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPickCategoryName(t *testing.T) {
	for _, tt := range []struct {
		name  string
		given map[string]int
		want  string
	}{
		{"none given", nil, "Pycon Fr"},
		{"only unnamed items", map[string]int{"": 4}, "Pycon Fr"},
		{"one given beats any number of unnamed items", map[string]int{"": 30, "PyCon FR": 1}, "PyCon FR"},
		{"the most given", map[string]int{"PyCon France": 2, "PyCon FR": 31}, "PyCon FR"},
		{"a tie goes to the first in byte order", map[string]int{"Pycon FR": 3, "PyCon FR": 3}, "PyCon FR"},
	} {
		if got := PickCategoryName("pycon-fr", tt.given); got != tt.want {
			t.Errorf("%s: PickCategoryName(%v) = %q, want %q", tt.name, tt.given, got, tt.want)
		}
	}
}
