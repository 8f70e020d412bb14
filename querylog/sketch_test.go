package querylog

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes folded to 100: kept whole
	tests := []struct{ in, want string }{
		{"Thames", "thames"},
		{"  ÉLAN   vital ", "elan vital"},
		{"Ørsted\tŁódź", "orsted lodz"},
		{"", ""},
		{"   ", ""},
		{long, strings.Repeat("e", 100)},
		{strings.Repeat("ab ", 60), strings.TrimSpace(strings.Repeat("ab ", 43))},
		{strings.Repeat("日", 50), strings.Repeat("日", MaxTextBytes/3)},
	}
	for _, tt := range tests {
		got := Normalize(tt.in)
		if got != tt.want {
			t.Errorf("Normalize(%.20q...) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > MaxTextBytes {
			t.Errorf("Normalize(%.20q...) is %d bytes, more than %d", tt.in, len(got), MaxTextBytes)
		}
	}
}

// zipfStream is n draws from distinct texts with Zipf popularity, and their true counts.
func zipfStream(seed uint64, distinct, n int) ([]string, map[string]int64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	z := rand.NewZipf(rng, 1.1, 1, uint64(distinct-1))
	stream := make([]string, n)
	truth := map[string]int64{}
	for i := range stream {
		stream[i] = fmt.Sprintf("query %d", z.Uint64())
		truth[stream[i]]++
	}
	return stream, truth
}

// TestSketchBounds: Space-Saving's guarantees, which the error the reports state rests on: the
// counters sum to what was added, a counted text is over by at most the least counter, and a text
// not counted had at most that much.
func TestSketchBounds(t *testing.T) {
	tests := []struct {
		k, distinct, n int
		weight         int64
	}{
		{k: 10, distinct: 5, n: 1000, weight: 1},
		{k: 10, distinct: 1000, n: 5000, weight: 1},
		{k: 50, distinct: 20000, n: 20000, weight: 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("k%d-distinct%d", tt.k, tt.distinct), func(t *testing.T) {
			stream, truth := zipfStream(uint64(tt.k), tt.distinct, tt.n)
			s := newSketch(tt.k)
			for _, text := range stream {
				s.add(text, tt.weight)
			}
			var sum, least int64 = 0, -1
			for _, c := range s.counts {
				sum += c
				if least < 0 || c < least {
					least = c
				}
			}
			if sum != int64(tt.n)*tt.weight || len(s.counts) > tt.k {
				t.Fatalf("%d counters summing to %d, want at most %d summing to %d", len(s.counts), sum, tt.k, int64(tt.n)*tt.weight)
			}
			if len(s.counts) < tt.k {
				least = 0
			}
			for text, n := range truth {
				est, counted := s.counts[text]
				n *= tt.weight
				switch {
				case counted && (est < n || est-n > least):
					t.Errorf("%q counted %d, true %d: want within [true, true+%d]", text, est, n, least)
				case !counted && n > least:
					t.Errorf("%q not counted, true %d: more than the least counter %d", text, n, least)
				}
			}
		})
	}
}

func TestHeldTally(t *testing.T) {
	h := newHeld(2)
	h.add(tally{"a": {all: 3, zero: 0}, "b": {all: 1, zero: 1}})
	h.add(tally{"c": {all: 2, zero: 2}})
	got := h.tally()
	var all, zero int64
	for _, c := range got {
		all += c.all
		zero += c.zero
	}
	// Each sketch keeps its own 2 texts; together they still sum to what was added. c took b's
	// place among the searches, starting from b's 1; b keeps its no-result search.
	want := tally{"a": {all: 3}, "b": {zero: 1}, "c": {all: 3, zero: 2}}
	if all != 6 || zero != 3 || len(got) != len(want) || got["a"] != want["a"] || got["b"] != want["b"] || got["c"] != want["c"] {
		t.Errorf("tally = %v, want %v", got, want)
	}
}
