package querylog

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/redis/go-redis/v9"
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
				s.add(text, tt.weight, visitors{})
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
	by := func(tags ...tag) visitors {
		var v visitors
		for _, t := range tags {
			v.add(t)
		}
		return v
	}
	h := newHeld(2)
	h.add(tally{searches: 5, noResults: 1, texts: map[string]counts{
		"a": {all: 3, allBy: by(1, 2, 3)}, "b": {all: 1, zero: 1, allBy: by(4), zeroBy: by(4)}}})
	h.add(tally{searches: 2, noResults: 2, texts: map[string]counts{"c": {all: 2, zero: 2, allBy: by(5, 6), zeroBy: by(5, 6)}}})
	got := h.tally()
	// Each sketch keeps its own 2 texts; together they still sum to what was added. c took b's
	// place among the searches, starting from b's 1 but with its own visitors; b keeps its
	// no-result search and its visitor there.
	want := tally{searches: 7, noResults: 3, texts: map[string]counts{
		"a": {all: 3, allBy: by(1, 2, 3)},
		"b": {zero: 1, zeroBy: by(4)},
		"c": {all: 3, zero: 2, allBy: by(5, 6), zeroBy: by(5, 6)}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tally = %+v, want %+v", got, want)
	}
	h.sent(tally{searches: 7, noResults: 3, texts: map[string]counts{"a": {}, "c": {}}})
	if got := h.tally(); h.empty() || !reflect.DeepEqual(got, tally{texts: map[string]counts{"b": {zero: 1, zeroBy: by(4)}}}) {
		t.Errorf("after a and c were sent, tally = %+v, want b's", got)
	}
}

func TestVisitors(t *testing.T) {
	tests := []struct {
		name   string
		tags   []tag
		hex    string
		enough bool
	}{
		{"none", nil, "", false},
		{"one", []tag{0xab}, "000000ab", false},
		{"twice the same", []tag{7, 7}, "00000007", false},
		{"enough", []tag{1, 2, 3}, "000000010000000200000003", true},
		{"more than enough: the first kept", []tag{1, 2, 3, 4}, "000000010000000200000003", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v visitors
			for _, x := range tt.tags {
				v.add(x)
			}
			if got := v.String(); got != tt.hex || v.enough() != tt.enough {
				t.Errorf("visitors %q, enough %v; want %q, %v", got, v.enough(), tt.hex, tt.enough)
			}
			var back visitors
			back.addHex(v.String() + "zz") // a torn tag is skipped
			if back != v {
				t.Errorf("read back %+v, want %+v", back, v)
			}
		})
	}
}

// TestSeenBound: a pair counts once within the window, again once the window has passed, and the
// pairs remembered stay at most max, the oldest buckets' forgotten first (with max 4, a quarter
// is one pair: a bucket at a time).
func TestSeenBound(t *testing.T) {
	s := newSeen(4)
	if s.counted(1, 10) {
		t.Fatal("a pair never marked counted")
	}
	s.mark(1, 1, 10)
	steps := []struct {
		pair      uint64
		bucket    int64
		mark      bool
		counted   bool
		remembers int
	}{
		{pair: 1, bucket: 10, counted: true, remembers: 1},
		{pair: 1, bucket: 10 + Buckets, counted: true, remembers: 1},
		{pair: 1, bucket: 11 + Buckets, counted: false, remembers: 1},
		{pair: 2, bucket: 11, mark: true, remembers: 2},
		{pair: 3, bucket: 12, mark: true, remembers: 3},
		{pair: 4, bucket: 12, mark: true, remembers: 4},
		// Full: bucket 10's pair goes.
		{pair: 5, bucket: 13, mark: true, remembers: 4},
		{pair: 1, bucket: 13, counted: false, remembers: 4},
		{pair: 2, bucket: 13, counted: true, remembers: 4},
		{pair: 6, bucket: 13, mark: true, remembers: 4},
		{pair: 2, bucket: 13, counted: false, remembers: 4},
		// Bucket 12's pairs go; then only the current bucket's pairs are left, and full: a new
		// pair is counted without being remembered.
		{pair: 7, bucket: 13, mark: true, remembers: 3},
		{pair: 8, bucket: 13, mark: true, remembers: 4},
		{pair: 9, bucket: 13, mark: true, remembers: 4},
		{pair: 9, bucket: 13, counted: false, remembers: 4},
		{pair: 8, bucket: 13, counted: true, remembers: 4},
	}
	for i, st := range steps {
		if st.mark {
			s.mark(st.pair, st.pair, st.bucket) // a visitor a pair
		} else if got := s.counted(st.pair, st.bucket); got != st.counted {
			t.Errorf("step %d: pair %d counted in bucket %d: %v, want %v", i, st.pair, st.bucket, got, st.counted)
		}
		if len(s.pairs) != st.remembers {
			t.Errorf("step %d: %d pairs remembered, want %d", i, len(s.pairs), st.remembers)
		}
	}
}

// TestVisitorTexts: a visitor counts at most MaxVisitorTexts texts a bucket, others theirs beside
// it, and the next bucket starts afresh.
func TestVisitorTexts(t *testing.T) {
	s := newSeen(DefaultSeen)
	for i := range MaxVisitorTexts {
		if s.spent(1, 5) {
			t.Fatalf("spent after %d texts, want %d", i, MaxVisitorTexts)
		}
		s.mark(1, uint64(100+i), 5)
	}
	s.mark(2, 99, 5)
	if !s.spent(1, 5) || s.spent(2, 5) || s.spent(1, 6) {
		t.Errorf("spent: visitor 1 %v, visitor 2 %v, visitor 1 a bucket later %v; want true, false, false",
			s.spent(1, 5), s.spent(2, 5), s.spent(1, 6))
	}
	s.mark(1, 200, 6)
	if s.spent(1, 6) || s.texts[1] != 1 {
		t.Errorf("a bucket later visitor 1 has %d texts counted, want 1", s.texts[1])
	}
}

// BenchmarkRecord: a search's cost on the request's path, with the pairs of a full window
// remembered: the lookups in every bucket's pairs, and the counts.
func BenchmarkRecord(b *testing.B) {
	clk := time.Unix(1_700_000_000, 0)
	o := Options{Window: 24 * time.Hour, Top: 100, FlushInterval: time.Hour, Now: func() time.Time { return clk }}
	r, err := New(nil, o, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	// A recorder without Redis keeps no text: give it a client that is never called.
	r.client = redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	cur := r.opt.bucket(clk)
	for bucket := cur - Buckets; bucket <= cur; bucket++ {
		for i := range DefaultSeen / (Buckets + 1) {
			r.seen.mark(uint64(i), uint64(bucket)<<32|uint64(i), bucket)
		}
	}
	if len(r.seen.per) != Buckets+1 {
		b.Fatalf("%d buckets of pairs, want %d", len(r.seen.per), Buckets+1)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(fmt.Sprint("visitor ", i%1000), fmt.Sprint("text ", i%3000), false)
		if i%4000 == 3999 {
			r.mu.Lock()
			r.batch = newTally(0)
			r.mu.Unlock()
		}
	}
}

// TestSeenForgetsAQuarter: a full memory of pairs forgets the oldest buckets holding a quarter of
// them at least, in one go, so that a flood of new pairs walks the pairs rarely.
func TestSeenForgetsAQuarter(t *testing.T) {
	s := newSeen(100)
	for b := range int64(10) {
		for i := range uint64(10) {
			s.mark(i, uint64(b)<<8|i, 100+b)
		}
	}
	s.mark(0, 1<<20, 110)
	if len(s.pairs) != 71 || len(s.per) != 8 {
		t.Errorf("%d pairs in %d buckets, want 71 in 8: buckets 100 to 102 forgotten", len(s.pairs), len(s.per))
	}
	for i := range uint64(10) {
		if s.counted(2<<8|i, 110) || !s.counted(3<<8|i, 110) {
			t.Fatalf("pair %d: bucket 102's remembered, or 103's forgotten", i)
		}
	}
}
