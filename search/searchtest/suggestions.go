package searchtest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/sync/errgroup"

	"mediagw/search"
	"mediagw/search/spell"
	"mediagw/search/text"
)

// The kinds of did-you-mean query SuggestionQueries makes: what a correction must leave
// alone, and the typos the typo allowance may find but a person still wants named.
const (
	// KindCorrectTitle: the title's first suggestionWords words, spelt right; the share that gets
	// a suggestion is the share of correct words changed.
	KindCorrectTitle QueryKind = "a correct title"
	// KindSwappedShort: KindCorrectTitle with two adjacent letters of its longest word of four or
	// five letters swapped ("bilss and heaven"); the share corrected back.
	KindSwappedShort QueryKind = "a short word with two letters swapped"
	// KindSwappedDropped: KindCorrectTitle with two adjacent letters of its longest word of seven
	// letters or more swapped and one more letter dropped ("preforance still"); the share
	// corrected back.
	KindSwappedDropped QueryKind = "a long word with two letters swapped and one dropped"
)

// SuggestionKinds are the did-you-mean kinds in the order reports list them.
var SuggestionKinds = []QueryKind{KindCorrectTitle, KindSwappedShort, KindSwappedDropped}

// suggestionAims are the did-you-mean's aims: at most this share of correct titles get a
// suggestion, at least this share of each typo kind is corrected back.
var suggestionAims = map[QueryKind]float64{KindCorrectTitle: 0.02, KindSwappedShort: 0.60, KindSwappedDropped: 0.60}

// suggestionWords is how many of a title's first words a did-you-mean query types.
const suggestionWords = 4

// SuggestionQuery is a search whose did-you-mean is known: Want is Text as the title spells it,
// which a correction of a typo kind must give back (folded), and which a correct title must not
// change at all.
type SuggestionQuery struct {
	Kind       QueryKind
	Text, Want string
}

// SuggestionQueries makes the did-you-mean queries of a catalogue, from the items KnownItems
// takes (every tenth, of a title no other item has): for each, one of each kind that applies.
func SuggestionQueries(items []search.Item) []SuggestionQuery {
	titles := map[string]int{}
	for _, it := range items {
		titles[text.Fold(it.Title)]++
	}
	var out []SuggestionQuery
	for i := 0; i < len(items); i += 10 {
		it := items[i]
		words := text.Words(it.Title)
		if titles[text.Fold(it.Title)] > 1 || len(words) == 0 {
			continue
		}
		words = words[:min(len(words), suggestionWords)]
		want := strings.Join(words, " ")
		out = append(out, SuggestionQuery{Kind: KindCorrectTitle, Text: want, Want: want})
		if typo, ok := withWordTypo(words, 4, 5, swapped); ok {
			out = append(out, SuggestionQuery{Kind: KindSwappedShort, Text: typo, Want: want})
		}
		if typo, ok := withWordTypo(words, 7, math.MaxInt, swappedDropped); ok {
			out = append(out, SuggestionQuery{Kind: KindSwappedDropped, Text: typo, Want: want})
		}
	}
	return out
}

// withWordTypo is words joined with the longest one of shortest to longest runes (the first on a
// tie) changed by typo, if there is such a word and typo can change it.
func withWordTypo(words []string, shortest, longest int, typo func([]rune) ([]rune, bool)) (string, bool) {
	pick, n := -1, 0
	for j, w := range words {
		if l := len([]rune(w)); l >= shortest && l <= longest && l > n {
			pick, n = j, l
		}
	}
	if pick < 0 {
		return "", false
	}
	changed, ok := typo([]rune(words[pick]))
	if !ok {
		return "", false
	}
	out := slices.Clone(words)
	out[pick] = string(changed)
	return strings.Join(out, " "), true
}

// swapped is w with its second and third letters swapped ("bliss": "bilss"), or its third and
// fourth when those are the same letter: one transposition.
func swapped(w []rune) ([]rune, bool) {
	for i := 1; i+1 < len(w) && i <= 2; i++ {
		a, b := w[i], w[i+1]
		if unicode.IsLetter(a) && unicode.IsLetter(b) && unicode.ToLower(a) != unicode.ToLower(b) {
			out := slices.Clone(w)
			out[i], out[i+1] = b, a
			return out, true
		}
	}
	return nil, false
}

// swappedDropped is swapped w with the letter after its middle dropped ("performance":
// "preforance"): two edits.
func swappedDropped(w []rune) ([]rune, bool) {
	out, ok := swapped(w)
	if !ok {
		return nil, false
	}
	drop := len(out)/2 + 1
	if !unicode.IsLetter(out[drop]) {
		return nil, false
	}
	return slices.Delete(out, drop, drop+1), true
}

// Suggestions is how a did-you-mean answers the queries of one kind: of Queries, Suggested got a
// suggestion and Right got Want back (folded).
type Suggestions struct {
	Queries, Suggested, Right int
}

// Share is the figure the kind is judged by: for correct titles the share suggested, for typos
// the share corrected back.
func (s Suggestions) Share(kind QueryKind) float64 {
	if s.Queries == 0 {
		return 0
	}
	return float64(s.counted(kind)) / float64(s.Queries)
}

// counted is the queries Share counts.
func (s Suggestions) counted(kind QueryKind) int {
	if kind == KindCorrectTitle {
		return s.Suggested
	}
	return s.Right
}

// RunSuggestions loads the real catalogue into two backends, puts a did-you-mean
// (spell.Speller) in front of each, and checks its corrections of the did-you-mean queries
// (SuggestionQueries): the same from both for every query, and within suggestionAims per kind. It
// logs the figures per kind; MEDIA_SUGGEST_MARGINS (a comma list) logs them for other margins
// too (docs/relevance.md, "The did-you-mean"). It skips when the real catalogue is not there.
func RunSuggestions(t *testing.T, openA, openB Open) {
	AnswersOnly(t)
	_, items, _ := realCatalogue(t)
	queries := SuggestionQueries(items)
	a, b := openA(t, items), openB(t, items)
	margins := []int{spell.DefaultMargin}
	if s := os.Getenv("MEDIA_SUGGEST_MARGINS"); s != "" {
		margins = nil
		for _, f := range strings.Split(s, ",") {
			m, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || m < 1 {
				t.Fatalf("MEDIA_SUGGEST_MARGINS=%q: want whole numbers from 1", s)
			}
			margins = append(margins, m)
		}
	}
	head := "| margin |"
	for _, kind := range SuggestionKinds {
		head += " " + string(kind) + " |"
	}
	t.Log(head)
	for _, margin := range margins {
		var (
			gotA []string
			errA error
			done = make(chan struct{})
		)
		go func() {
			defer close(done)
			gotA, errA = corrections(t.Context(), spell.New(a, spell.Options{Margin: margin}), queries)
		}()
		gotB, errB := corrections(t.Context(), spell.New(b, spell.Options{Margin: margin}), queries)
		<-done
		if err := cmp.Or(errA, errB); err != nil {
			t.Fatal(err)
		}
		sums := map[QueryKind]Suggestions{}
		for i, k := range queries {
			if gotA[i] != gotB[i] {
				t.Errorf("margin %d: Correct(%q) (%s): A %q, B %q", margin, k.Text, k.Kind, gotA[i], gotB[i])
			}
			s := sums[k.Kind]
			s.Queries++
			if gotA[i] != "" {
				s.Suggested++
			}
			if text.Fold(gotA[i]) == text.Fold(k.Want) {
				s.Right++
			}
			sums[k.Kind] = s
		}
		line := fmt.Sprintf("| %d |", margin)
		for _, kind := range SuggestionKinds {
			s := sums[kind]
			line += fmt.Sprintf(" %.3f (%d of %d) |", s.Share(kind), s.counted(kind), s.Queries)
		}
		t.Log(line)
		if margin != spell.DefaultMargin {
			continue
		}
		for _, kind := range SuggestionKinds {
			share, aim := sums[kind].Share(kind), suggestionAims[kind]
			if kind == KindCorrectTitle && share > aim || kind != KindCorrectTitle && share < aim {
				t.Errorf("%s: %.3f, the aim is %.2f", kind, share, aim)
			}
		}
	}
}

// corrections are the did-you-mean of each query, pageWorkers at a time.
func corrections(ctx context.Context, sp *spell.Speller, queries []SuggestionQuery) ([]string, error) {
	if err := sp.Warm(ctx); err != nil {
		return nil, err
	}
	out := make([]string, len(queries))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(pageWorkers)
	for i, k := range queries {
		g.Go(func() error {
			c, cancel := context.WithTimeout(ctx, callTimeout)
			defer cancel()
			got, err := sp.Correct(c, search.NewRequest(search.Query{Text: k.Text, Sort: search.SortRelevance, Page: 1, PerPage: rankingPage}))
			if err != nil {
				return fmt.Errorf("Correct(%q): %w", k.Text, err)
			}
			out[i] = got
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}
