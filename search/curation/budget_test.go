package curation

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/text"
)

// TestRulesWithinTheBudget: a set whose single rules each search within search.MaxClauses is
// accepted, however many of them; a rule whose own search would pass it is refused, naming its
// line, and its search is the one the engines would have had to cut.
func TestRulesWithinTheBudget(t *testing.T) {
	ids := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("item-%d", i)
		}
		return strings.Join(out, ", ")
	}
	thesaurus := func(lines int) string {
		var out []string
		for l := range lines {
			var words []string
			for w := range MaxAlternatives {
				words = append(words, fmt.Sprintf("word%c%c", 'a'+l%26, 'a'+w))
			}
			out = append(out, strings.Join(words, ", "))
		}
		return strings.Join(out, "\n")
	}
	// 190 distinct ideographs: one word of 189 bigrams.
	var run strings.Builder
	for i := range 190 {
		run.WriteRune(rune(0x4E00 + i*53))
	}
	tests := []struct {
		name string
		f    Files
		// bad is the refused line, "" when the set is accepted.
		bad string
	}{
		{"an ordinary set", Files{Synonyms: "tv, television\nlaptop => notebook\n", Pins: "winter => a, b, c\n"}, ""},
		{"60 words of 16 synonyms", Files{Synonyms: thesaurus(4)}, ""},
		{"a pin line of the most ids", Files{Pins: "winter => " + ids(MaxPinned)}, ""},
		{"a pinned CJK query", Files{Pins: "# pins\n" + string([]rune(run.String())[:150]) + " => " + ids(MaxPinned)}, "pins line 2"},
		{"a long CJK synonym", Files{Synonyms: "tv, television\n\nkanto, " + run.String() + "\n"}, "synonyms line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.f)
			var refused *Error
			switch {
			case tt.bad == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.bad == "":
			case !errors.As(err, &refused) || len(refused.Lines) != 1 || !strings.HasPrefix(refused.Lines[0].Error(), tt.bad+": ") ||
				!strings.Contains(err.Error(), fmt.Sprint(search.MaxClauses)):
				t.Fatalf("Parse: %v, want %s refused past %d clauses", err, tt.bad, search.MaxClauses)
			}
		})
	}
}

// TestTermsAtMost: the bound overBudget spares plans by is never below a word's terms.
func TestTermsAtMost(t *testing.T) {
	for _, w := range []string{"tv", "ελάφι", "don't", "東京タワー", "abc東京def", "ｶﾀｶﾅ", "ガ", "𠀋𡈽𡌛", "々〆ヵ", "⺀⺁⺂"} {
		if got, bound := len(text.Terms(w)), termsAtMost(w); got > bound {
			t.Errorf("%q: %d terms, bound %d", w, got, bound)
		}
	}
}
