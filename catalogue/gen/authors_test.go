package gen

import (
	"bytes"
	"math"
	"strconv"
	"testing"
)

func TestAppendInitial(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"James", "J."},
		{"Émile", "É."},
		{"Łukasz", "Ł."},
		{"Фёдор", "Ф."},
		{"芳", "芳."},
	} {
		if got := string(appendInitial(nil, tc.name)); got != tc.want {
			t.Errorf("appendInitial(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestAuthorNames: a rank is always written as the same name for a seed, collective authors hold
// their ranks, and distinct ranks are (nearly always) distinct people, so the pool really grows.
func TestAuthorNames(t *testing.T) {
	const ranks = 20000
	a, b := newGenerator(9), newGenerator(9)
	names := make(map[string]int, ranks) // name -> how many ranks are written so
	for rank := range ranks {
		name := string(a.appendAuthorName(nil, rank))
		if again := string(b.appendAuthorName(nil, rank)); again != name {
			t.Fatalf("rank %d is %q in one run and %q in another with the same seed", rank, name, again)
		}
		if want, ok := collectiveAuthors[rank]; ok && name != want {
			t.Errorf("rank %d is %q, want %q", rank, name, want)
		}
		if name == "" {
			t.Fatalf("rank %d has an empty name", rank)
		}
		names[name]++
		// The popular authors are all distinct people; further down the tail, an initial
		// ("J. Wright" for James and John) or a small culture's last pairs may repeat a name.
		if rank == 2000 && len(names) != 2001 {
			t.Errorf("%d distinct names for the first 2001 ranks, want all distinct", len(names))
		}
	}
	if len(names) < ranks*95/100 {
		t.Errorf("%d distinct names for %d ranks, want at least 95%%", len(names), ranks)
	}
	other := newGenerator(10)
	same := 0
	for rank := 100; rank < 1100; rank++ {
		if bytes.Equal(a.appendAuthorName(nil, rank), other.appendAuthorName(nil, rank)) {
			same++
		}
	}
	if same > 100 {
		t.Errorf("%d of 1000 ranks have the same name under seeds 9 and 10: the seed should deal names anew", same)
	}
}

// TestAuthorRank: ranks stay in a pool that grows with the line number, up to authorPoolMax.
func TestAuthorRank(t *testing.T) {
	g := newGenerator(1)
	for _, tc := range []struct{ line, pool int }{
		{0, authorPoolMin},
		{400, authorPoolMin + 100},
		{10_000_000, authorPoolMax},
	} {
		top := 0
		for range 5000 {
			r := g.authorRank(tc.line)
			if r < 0 || r >= tc.pool {
				t.Fatalf("line %d: rank %d outside the pool of %d", tc.line, r, tc.pool)
			}
			top = max(top, r)
		}
		if tc.pool > 1000 && top < 1000 {
			t.Errorf("line %d: the highest of 5000 ranks is %d, want a long tail", tc.line, top)
		}
	}
}

// TestDownloadsFollowRank: popular authors' items are downloaded more; a few counts are zero,
// null or missing; none is negative or above the cap.
func TestDownloadsFollowRank(t *testing.T) {
	const draws = 20000
	medianLog := func(rank int, hasAuthor bool) float64 {
		g := newGenerator(3)
		var logs []float64
		for range draws {
			field := g.appendDownloads(nil, rank, hasAuthor)
			if len(field) == 0 || bytes.HasSuffix(field, []byte("null")) {
				continue
			}
			n, err := strconv.ParseInt(string(bytes.TrimPrefix(field, []byte(`,"downloads":`))), 10, 64)
			if err != nil || n < 0 || n > 5e7 {
				t.Fatalf("downloads field %s", field)
			}
			logs = append(logs, math.Log1p(float64(n)))
		}
		if missing := draws - len(logs); missing == 0 || missing > draws/20 {
			t.Errorf("%d of %d without a count, want a few", missing, draws)
		}
		var sum float64
		for _, l := range logs {
			sum += l
		}
		return sum / float64(len(logs))
	}
	top, popular, tail, anonymous := medianLog(5, true), medianLog(50, true), medianLog(5000, true), medianLog(5, false)
	if !(top > popular && popular > tail) {
		t.Errorf("mean log downloads by rank 5, 50, 5000: %.2f, %.2f, %.2f: want decreasing", top, popular, tail)
	}
	if math.Abs(anonymous-tail) > 0.2 {
		t.Errorf("items without an author: %.2f, want as the tail's %.2f", anonymous, tail)
	}
}
