package search

import (
	"context"
	"fmt"
	"mediagw/search/text"
	"slices"
	"strings"
	"testing"
)

// wordsBackend answers Search by counting the items whose words hold every word of the text
// exactly, and Neighbours from a fixed table: enough to hold Correct to its rule.
type wordsBackend struct {
	titles     []string
	neighbours map[string][]string
}

func (w wordsBackend) Search(_ context.Context, q Query) (Result, error) {
	n := 0
	for _, t := range w.titles {
		tw := text.Words(t)
		if !slices.ContainsFunc(text.Words(q.Text), func(x string) bool { return !slices.Contains(tw, x) }) {
			n++
		}
	}
	return Result{Items: []Item{}, Total: n}, nil
}

func (w wordsBackend) Neighbours(_ context.Context, word string, max int) ([]string, error) {
	return w.neighbours[word][:min(max, len(w.neighbours[word]))], nil
}

func (wordsBackend) Complete(context.Context, string, int) ([]Completion, error) { return nil, nil }
func (wordsBackend) Related(context.Context, string, int) ([]Item, error)        { return nil, nil }

func TestCorrect(t *testing.T) {
	b := wordsBackend{
		titles: []string{"river thames", "thames barrier", "the thames", "thames", "river severn", "tames"},
		neighbours: map[string][]string{
			"thmes": {"tames", "thames"}, "rivr": {"river"}, "severn": {"seven"}, "tames": {"thames"},
		},
	}
	for _, tt := range []struct{ text, want string }{
		{"thmes", "thames"},             // the neighbour that finds the most
		{"river thmes", "river thames"}, // one word changed: the one whose change finds the most
		{"rivr thmes", ""},              // two words wrong: no one change finds anything
		{"river severn", ""},            // no neighbour finds more
		{"thames", ""},                  // enough found already
		{"", ""},
	} {
		q := Query{Text: tt.text}
		res, _ := b.Search(context.Background(), q)
		got, err := Correct(context.Background(), b, q, res.Total)
		if err != nil || got != tt.want {
			t.Errorf("Correct(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
		}
	}
	if got, _ := Correct(context.Background(), b, Query{Text: "tames"}, 1); !strings.EqualFold(got, "thames") {
		t.Errorf("Correct(tames) = %q, want thames", got)
	}
}

// countingWords counts the engine calls made of it.
type countingWords struct {
	wordsBackend
	calls *int
}

func (c countingWords) Search(ctx context.Context, q Query) (Result, error) {
	*c.calls++
	return c.wordsBackend.Search(ctx, q)
}

func (c countingWords) Neighbours(ctx context.Context, word string, max int) ([]string, error) {
	*c.calls++
	return c.wordsBackend.Neighbours(ctx, word, max)
}

// TestCorrectBounded: a long query of words with many neighbours costs at most
// MaxCorrectionCalls engine calls; a correction found within them stands.
func TestCorrectBounded(t *testing.T) {
	words := make([]string, 12)
	b := wordsBackend{titles: []string{"aa0 thames"}, neighbours: map[string][]string{}}
	for i := range words {
		words[i] = fmt.Sprintf("w%02d", i)
		for j := range MaxNeighbours {
			b.neighbours[words[i]] = append(b.neighbours[words[i]], fmt.Sprintf("x%02d%02d", i, j))
		}
	}
	b.neighbours[words[0]][0] = "aa0" // the first candidate finds an item
	calls := 0
	got, err := Correct(context.Background(), countingWords{b, &calls}, Query{Text: strings.Join(words[:1], " ")}, 0)
	if err != nil || got != "aa0" {
		t.Fatalf("Correct(%s) = %q, %v; want aa0", words[0], got, err)
	}
	calls = 0
	got, err = Correct(context.Background(), countingWords{b, &calls}, Query{Text: strings.Join(words, " ")}, 0)
	if err != nil || got != "" {
		t.Errorf("Correct of 12 words = %q, %v; want none", got, err)
	}
	if calls != MaxCorrectionCalls {
		t.Errorf("%d engine calls, want %d", calls, MaxCorrectionCalls)
	}
}
