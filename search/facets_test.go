package search

import "testing"

func TestItemYear(t *testing.T) {
	for _, tc := range []struct{ date, want string }{
		{"2018-06-30", "2018"},
		{"0999-01-01", "0999"},
		{"", ""},
	} {
		if got := (Item{Date: tc.date}).Year(); got != tc.want {
			t.Errorf("Item{Date: %q}.Year() = %q, want %q", tc.date, got, tc.want)
		}
	}
}
