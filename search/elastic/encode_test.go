package elastic

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzAppendString: a string is quoted and escaped byte for byte as json.Marshal does, whatever
// the catalogue's text holds (invalid UTF-8, control characters, HTML, U+2028).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\/<>&", "\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "\xff\xc3", "Ünïcode 漢字 🎞"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestAppendFloat: a float is written as json.Marshal writes it; what JSON cannot hold is an error.
func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 1.234e25, -3e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 12.3456789} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendFloat(nil, f)
		if err != nil || string(got) != string(want) {
			t.Errorf("appendFloat(%v) = %s, %v; want %s", f, got, err, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := appendFloat(nil, f); err == nil {
			t.Errorf("appendFloat(%v): no error", f)
		}
	}
}
