package spell

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/text"
)

// wordsBackend answers Search by counting the items whose words hold every word of the text
// exactly, and Totals from its Search; a word is held by the titles that have it, and its
// neighbours are a fixed table: enough to hold Correct to its rule.
type wordsBackend struct {
	titles     []string
	neighbours map[string][]string
	// totals counts the Totals calls and the alternatives they carried; matched, when not nil,
	// gets the words of the last call's search.Matches.
	totals, alts *int
	matched      *[]string
}

func (w wordsBackend) Neighbours(_ context.Context, words []string) (map[string][]string, error) {
	near := map[string][]string{}
	for _, x := range words {
		near[x] = w.neighbours[x][:min(search.MaxNeighbours, len(w.neighbours[x]))]
	}
	return near, nil
}

// Items counts the titles holding each word.
func (w wordsBackend) Items(_ context.Context, words []string) (map[string]int, error) {
	out := map[string]int{}
	for _, x := range words {
		out[x] = 0
		for _, t := range w.titles {
			if slices.Contains(text.Words(t), x) {
				out[x]++
			}
		}
	}
	return out, nil
}

// search.Matches has every word of a title match itself alone, and any other word nothing.
func (w wordsBackend) Matches(_ context.Context, words []string) (search.Matches, error) {
	m := search.Matches{}
	for _, x := range words {
		m[x] = []string{}
		if slices.ContainsFunc(w.titles, func(t string) bool { return slices.Contains(text.Words(t), x) }) {
			m[x] = []string{x}
		}
	}
	return m, nil
}

func (w wordsBackend) Search(_ context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	n := 0
	for _, t := range w.titles {
		tw := text.Words(t)
		if !slices.ContainsFunc(text.Words(q.Text), func(x string) bool { return !slices.Contains(tw, x) }) {
			n++
		}
	}
	return search.Result{Items: []search.Item{}, Total: n}, nil
}

func (w wordsBackend) Totals(ctx context.Context, req *search.Request, alts []search.Alternative, m search.Matches) ([]int, error) {
	q := req.Query
	if w.totals != nil {
		*w.totals++
		*w.alts += len(alts)
	}
	if w.matched != nil {
		*w.matched = slices.Sorted(maps.Keys(m))
	}
	out := make([]int, len(alts))
	for i, a := range alts {
		alt := q
		alt.Text = a.Text(q.Text)
		res, err := w.Search(ctx, search.NewRequest(alt))
		if err != nil {
			return nil, err
		}
		out[i] = res.Total
	}
	return out, nil
}

// correct is Correct of a search of s with margin.
func (w wordsBackend) correct(t *testing.T, s string, margin int) string {
	t.Helper()
	got, err := Correct(context.Background(), w, search.NewRequest(search.Query{Text: s}), w, margin)
	if err != nil {
		t.Fatalf("Correct(%q): %v", s, err)
	}
	return got
}

func TestCorrect(t *testing.T) {
	b := wordsBackend{
		titles: []string{"river thames", "thames barrier", "the thames", "thames", "river severn", "tames", "hero and leander"},
		neighbours: map[string][]string{
			"thmes": {"tames", "thames"}, "rivr": {"river"}, "severn": {"seven"}, "tames": {"thames"},
			"thames": {"tames"}, "river": {"rivers"}, "hreo": {"hero"},
		},
	}
	for _, tt := range []struct {
		text   string
		margin int
		want   string
	}{
		{"thmes", DefaultMargin, "thames"},             // no item holds it: the neighbour that finds the most
		{"river thmes", DefaultMargin, "river thames"}, // one word changed
		{"rivr thmes", DefaultMargin, ""},              // two words wrong: no one change finds anything
		{"river severn", DefaultMargin, ""},            // correctly spelt, though it finds little
		{"severn", DefaultMargin, ""},                  // its neighbour is held by no item
		{"thames", DefaultMargin, ""},                  // its neighbour is held by fewer items
		{"tames", DefaultMargin, ""},                   // held by 1, its neighbour by 4: not margin times more
		{"tames", 4, "thames"},                         // 4 times more: it looks misspelt
		{"tames", 5, ""},
		{"thmes  thmes", DefaultMargin, "thames  thames"},               // a word twice is one word, changed at both places
		{"thmes, river", DefaultMargin, "thames, river"},                // the rest as it was
		{"hreo and leander and", DefaultMargin, "hero and leander and"}, // a repeated word kept
		{"", DefaultMargin, ""},
	} {
		if got := b.correct(t, tt.text, tt.margin); got != tt.want {
			t.Errorf("Correct(%q) with margin %d = %q; want %q", tt.text, tt.margin, got, tt.want)
		}
	}
	var matched []string
	b.matched = &matched
	b.correct(t, "river thmes", 1)
	if want := []string{"river", "tames", "thames", "thmes"}; !slices.Equal(matched, want) {
		t.Errorf("Correct(%q) counts with the matches of %q, want those of the words and alternatives %q", "river thmes", matched, want)
	}
}

// synonyms is a search.Curation of synonyms alone: each word to the words it is searched as.
type synonyms map[string][]string

func (s synonyms) Alternatives(w string) []string { return s[w] }
func (synonyms) Pinned(string) []string           { return nil }

// TestCorrectLeavesSynonyms: a word the operators' synonyms name finds what they said it means,
// though the index does not hold it: it is never corrected, and the other words still are.
func TestCorrectLeavesSynonyms(t *testing.T) {
	b := wordsBackend{
		titles:     []string{"color plates", "color film", "river thames"},
		neighbours: map[string][]string{"colour": {"color"}, "thmes": {"thames"}},
	}
	syn := synonyms{"colour": {"colour", "color"}, "color": {"color", "colour"}}
	for _, tt := range []struct {
		text     string
		curation search.Curation
		want     string
	}{
		{"colour", nil, "color"},
		{"colour", syn, ""},
		{"colour thmes", nil, ""}, // two words wrong: no one change finds anything
		{"thmes", syn, "thames"},
	} {
		r := search.NewRequest(search.Query{Text: tt.text})
		r.Curation = tt.curation
		got, err := Correct(context.Background(), b, r, b, DefaultMargin)
		if err != nil || got != tt.want {
			t.Errorf("Correct(%q) with synonyms %v = %q, %v; want %q", tt.text, tt.curation, got, err, tt.want)
		}
	}
}

// TestCorrectCountsWhatMayFind: a text whose words all look right costs no call; an alternative
// that keeps a word matching no indexed term is not counted, and a text with two such words costs
// no call either.
func TestCorrectCountsWhatMayFind(t *testing.T) {
	calls, alts := 0, 0
	b := wordsBackend{
		titles:     []string{"river thames", "river severn"},
		neighbours: map[string][]string{"thmes": {"tames", "thames"}, "rivr": {"river"}, "river": {"rover"}},
		totals:     &calls, alts: &alts,
	}
	for _, tt := range []struct {
		text        string
		want        string
		calls, alts int
	}{
		{"river thmes", "river thames", 1, 1}, // not "river tames": no item holds tames
		{"rivr thmes", "", 0, 0},              // each alternative keeps a word of no item
		{"river", "", 0, 0},                   // held, and its neighbour is not
		{"river thames", "", 0, 0},
	} {
		calls, alts = 0, 0
		if got := b.correct(t, tt.text, DefaultMargin); got != tt.want || calls != tt.calls || alts != tt.alts {
			t.Errorf("Correct(%q) = %q in %d calls of %d alternatives; want %q in %d of %d",
				tt.text, got, calls, alts, tt.want, tt.calls, tt.alts)
		}
	}
}

// TestCorrectOneCall: whatever the number of words, a correction costs one call, which weighs
// at most search.MaxAlternatives alternatives, each word's neighbours in turn.
func TestCorrectOneCall(t *testing.T) {
	words := make([]string, 12)
	calls, alts := 0, 0
	b := wordsBackend{titles: []string{"aa0 thames", "aa0 river", "", ""}, neighbours: map[string][]string{}, totals: &calls, alts: &alts}
	for i := range words {
		words[i] = fmt.Sprintf("w%02d", i)
		b.titles[2] += " " + words[i] // one item holds every word
		for j := range search.MaxNeighbours {
			x := fmt.Sprintf("x%02d%02d", i, j)
			b.neighbours[words[i]] = append(b.neighbours[words[i]], x)
			b.titles[3] += " " + x // and another every neighbour
		}
	}
	b.neighbours[words[0]][0] = "aa0" // the first alternative finds two items
	if got := b.correct(t, words[0], 1); got != "aa0" || calls != 1 || alts != search.MaxNeighbours {
		t.Errorf("Correct(%s) = %q in %d calls of %d alternatives; want aa0 in 1 of %d", words[0], got, calls, alts, search.MaxNeighbours)
	}
	calls, alts = 0, 0
	if got := b.correct(t, strings.Join(words, " "), 1); got != "" || calls != 1 || alts != search.MaxAlternatives {
		t.Errorf("Correct of 12 words = %q in %d calls of %d alternatives; want none in 1 of %d", got, calls, alts, search.MaxAlternatives)
	}
}
