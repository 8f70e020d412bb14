package search

import (
	"context"
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
		tw := Words(t)
		if !slices.ContainsFunc(Words(q.Text), func(x string) bool { return !slices.Contains(tw, x) }) {
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
