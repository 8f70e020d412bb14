package spell_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/live"
	"mediagw/search/searchtest"
	"mediagw/search/spell"
	"mediagw/search/text"
)

func TestNeighbours(t *testing.T) {
	words := []string{"thames", "tames", "themes", "harbour", "harbor", "arbour", "the", "tea", "ox", "elan",
		"sunset", "sunsets", "snuset", "dog", "dot", "two words", "ab\u202fcd"}
	for i := range 25 {
		words = append(words, fmt.Sprintf("cat%c", 'a'+i), "cat") // repeats are one word
	}
	d, err := spell.NewDictionary(held(words...))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want map[string][]string
	}{
		{"thmes", map[string][]string{"thmes": {"tames", "thames", "themes"}}},
		{"thames", map[string][]string{"thames": {"tames", "themes"}}}, // the word itself left out
		{"harbuor", map[string][]string{"harbuor": {"arbour", "harbor", "harbour"}}},
		{"teh dgo", map[string][]string{"teh": {"tea", "the"}, "dgo": {"dog"}}}, // a transposition is one edit
		{"ox zz", map[string][]string{"ox": {}, "zz": {}}},                      // too short for a typo
		{"ÉLAN", map[string][]string{"ÉLAN": {}}},                               // folded: "elan" itself
		{"sunst", map[string][]string{"sunst": {"sunset"}}},                     // one edit below six runes
		// Twenty at most, the first in byte order: "cat" and "cata".."cats".
		{"catz", map[string][]string{"catz": append([]string{"cat"}, catWords('a', 's')...)}},
		{"", map[string][]string{}},
	} {
		got, err := d.Neighbours(text.Words(tt.text))
		if err != nil {
			t.Errorf("Neighbours(%q): %v", tt.text, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("Neighbours(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	if n := d.Len(); n != 16+25 {
		t.Errorf("Len() = %d, want %d: repeats and terms of two words left out", n, 16+25)
	}
}

func TestMatches(t *testing.T) {
	const long = "abcdefghijklmnopqrstuvwxyzabcdefghijklmn" // 40 runes
	words := []string{"thames", "tames", "themes", "the", "tea", "ox", "abcd", "ab\u202fcd", "élan", long, long[:31]}
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	for _, a := range chars { // 1,296 words two insertions from "manyma"
		for _, b := range chars {
			words = append(words, "manyma"+string(a)+string(b))
		}
	}
	d, err := spell.NewDictionary(held(words...))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		words []string
		want  search.Matches
	}{
		{[]string{"thmes"}, search.Matches{"thmes": {"tames", "thames", "themes"}}},
		{[]string{"Thames"}, search.Matches{"Thames": {"tames", "thames", "themes"}}}, // itself, folded
		{[]string{"ox", "oz"}, search.Matches{"ox": {"ox"}, "oz": {}}},                // too short for a typo
		// A term of a narrow no-break space is matched, though it is no neighbour.
		{[]string{"abcd"}, search.Matches{"abcd": {"abcd", "ab\u202fcd"}}},
		{[]string{"tea", "tea"}, search.Matches{"tea": {"tea"}}},
		{[]string{"東京タワー", "zzzz"}, search.Matches{"zzzz": {}}}, // several terms: left out
		{[]string{"manyma"}, search.Matches{}},                  // more than MaxMatches: left out
		// Terms too long to index by what deleting runes leaves of them are compared one by one.
		{[]string{long[:39] + "x"}, search.Matches{long[:39] + "x": {long}}},
		{[]string{long[:30] + "xx"}, search.Matches{long[:30] + "xx": {long[:31]}}},
		{nil, search.Matches{}},
	} {
		for range 2 { // the second from the memo
			got, err := d.Matches(tt.words)
			if err != nil {
				t.Fatalf("Matches(%q): %v", tt.words, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Matches(%q) = %q, want %q", tt.words, got, tt.want)
			}
		}
	}
}

// held is words each held by one item.
func held(words ...string) []search.Word {
	out := make([]search.Word, len(words))
	for i, w := range words {
		out[i] = search.Word{Text: w, Items: 1}
	}
	return out
}

func catWords(from, to rune) []string {
	var out []string
	for r := from; r <= to; r++ {
		out = append(out, "cat"+string(r))
	}
	return out
}

// fixtureWords is the folded words of the test fixture's searched fields.
func fixtureWords(tb testing.TB) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range searchtest.Fixture(tb) {
		for _, s := range append(append([]string{it.Title, it.Summary, it.Description, it.Author}, it.Tags...), it.Keywords...) {
			for _, w := range text.Words(s) {
				if f := text.Fold(w); !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// FuzzNeighbours holds the dictionary's neighbours and matches to the contract's definition,
// computed by comparing the word with every word of the fixture.
func FuzzNeighbours(f *testing.F) {
	for _, s := range []string{"harbuor", "thmes", "teh", "pyhton", "histroy", "élan", "ab", "keynot", "ptyhno", "日本語"} {
		f.Add(s)
	}
	words := fixtureWords(f)
	d, err := spell.NewDictionary(held(words...))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := d.Neighbours(text.Words(s))
		if err != nil {
			t.Fatalf("Neighbours(%q): %v", s, err)
		}
		matches, err := d.Matches(text.Words(s))
		if err != nil {
			t.Fatalf("Matches(%q): %v", s, err)
		}
		for _, word := range text.Words(s) {
			if want := bruteNeighbours(words, word); !slices.Equal(got[word], want) {
				t.Errorf("Neighbours(%q)[%q] = %q, want %q", s, word, got[word], want)
			}
			if len(text.Terms(word)) != 1 {
				continue
			}
			if want := bruteMatches(words, word); !slices.Equal(matches[word], want) {
				t.Errorf("Matches(%q)[%q] = %q, want %q", s, word, matches[word], want)
			}
		}
	})
}

// bruteMatches is what Matches gives for word, a word of one term, among words (fewer than
// MaxMatches match any word of the fixture).
func bruteMatches(words []string, word string) []string {
	w := text.Terms(word)[0]
	out := []string{}
	for _, v := range words {
		if search.EditsWithin(w, v, search.TypoAllowance(w)) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

func bruteNeighbours(words []string, word string) []string {
	w := text.Fold(word)
	allow := search.TypoAllowance(w)
	out := []string{}
	for _, v := range words {
		if v != w && allow > 0 && slices.Equal(text.Words(v), []string{v}) && search.EditsWithin(w, v, allow) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), search.MaxNeighbours)]
}

// source lists the words of the index it serves now, counting the lists; a list waits on gate
// when it is set. The other calls of search.Backend are not made.
type source struct {
	search.Backend
	mu      sync.Mutex
	version string
	words   map[string][]search.Word
	err     error
	lists   int
	gate    chan struct{}
}

func (s *source) Words(ctx context.Context) ([]search.Word, error) {
	s.mu.Lock()
	s.lists++
	gate, v, err := s.gate, s.version, s.err
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.words[v], err
}

func (s *source) Version(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version, nil
}

func (s *source) set(f func(*source)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func near(t *testing.T, sp *spell.Speller, ctx context.Context, word string) ([]string, error) {
	t.Helper()
	got, err := sp.Neighbours(ctx, text.Words(word))
	return got[word], err
}

// TestSpellerFollowsTheIndex: the words are listed once per index version; after a reindex the
// words of the index before serve until the new ones are listed; a failed list is tried again.
func TestSpellerFollowsTheIndex(t *testing.T) {
	src := &source{version: "v1", words: map[string][]search.Word{"v1": held("thames"), "v2": held("tames")}}
	sp := spell.New(src, spell.Options{Live: live.New(src.Version, live.Options{})})
	ctx := t.Context()
	if got, err := near(t, sp, ctx, "thmes"); err != nil || !slices.Equal(got, []string{"thames"}) {
		t.Fatalf("v1: %q, %v", got, err)
	}
	if _, err := near(t, sp, ctx, "thmes"); err != nil || src.lists != 1 {
		t.Fatalf("v1 again: %v, %d lists, want 1", err, src.lists)
	}

	gate := make(chan struct{})
	src.set(func(s *source) { s.version, s.gate = "v2", gate })
	if got, err := near(t, sp, ctx, "thmes"); err != nil || !slices.Equal(got, []string{"thames"}) {
		t.Errorf("while v2 is listed: %q, %v; want v1's words", got, err)
	}
	close(gate)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := near(t, sp, ctx, "thmes")
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(got, []string{"tames"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("v2's words never served: %q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}

	failing := errors.New("engine down")
	src2 := &source{version: "v1", words: map[string][]search.Word{"v1": held("thames")}, err: failing}
	sp2 := spell.New(src2, spell.Options{Live: live.New(src2.Version, live.Options{})})
	if _, err := near(t, sp2, ctx, "thmes"); !errors.Is(err, failing) {
		t.Errorf("first list failing: %v, want %v", err, failing)
	}
	src2.set(func(s *source) { s.err = nil })
	if got, err := near(t, sp2, ctx, "thmes"); err != nil || !slices.Equal(got, []string{"thames"}) {
		t.Errorf("after the failure: %q, %v", got, err)
	}
}

// TestSpellerWaitsUntilTheDeadline: a caller with no words yet waits for the first list until its
// own context ends, and the list goes on for the next caller.
func TestSpellerWaitsUntilTheDeadline(t *testing.T) {
	gate := make(chan struct{})
	src := &source{version: "v1", words: map[string][]search.Word{"v1": held("thames")}, gate: gate}
	sp := spell.New(src, spell.Options{Live: live.New(src.Version, live.Options{})})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := near(t, sp, ctx, "thmes"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting past the deadline: %v, want context.DeadlineExceeded", err)
	}
	close(gate)
	if got, err := near(t, sp, t.Context(), "thmes"); err != nil || !slices.Equal(got, []string{"thames"}) || src.lists != 1 {
		t.Errorf("next caller: %q, %v after %d lists; want the first list's words", got, err, src.lists)
	}
}

// BenchmarkCorrection is the dictionary's part of a correction: the neighbours of a word with a
// typo, then the matches of it and of its neighbours (spell.Correct). The typos are new for the
// first thousands of rounds, as a memo would not hold them; the neighbours repeat, as in traffic.
func BenchmarkCorrection(b *testing.B) {
	words := fixtureWords(b)
	d, err := spell.NewDictionary(held(words...))
	if err != nil {
		b.Fatal(err)
	}
	var long []string
	for _, w := range words {
		if len([]rune(w)) >= 6 && isASCII(w) {
			long = append(long, w)
		}
	}
	i := 0
	for b.Loop() {
		w, n := long[i%len(long)], i/len(long)
		k := 1 + n%(len(w)-1)
		typo := w[:k] + string(rune('a'+n/(len(w)-1)%26)) + w[k+1:]
		i++
		near, err := d.Neighbours(text.Words(typo))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Matches(append([]string{typo}, near[typo]...)); err != nil {
			b.Fatal(err)
		}
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestSpellerMatches(t *testing.T) {
	src := &source{version: "v1", words: map[string][]search.Word{"v1": held("thames", "tames")}}
	for _, tt := range []struct {
		opts spell.Options
		want search.Matches
	}{
		{spell.Options{}, search.Matches{"thmes": {"tames", "thames"}}},
		{spell.Options{NoMatches: true}, nil}, // a backend that does not count by them
	} {
		got, err := spell.New(src, tt.opts).Matches(t.Context(), []string{"thmes"})
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("Matches with %+v = %q, %v; want %q", tt.opts, got, err, tt.want)
		}
	}
}
