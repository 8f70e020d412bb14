package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mediagw/search/text"
)

// ideographs are n distinct CJK ideographs, scattered as random ones would be: one word the text
// analysis cuts into n-1 bigrams.
func ideographs(seed, n int) string {
	out := make([]rune, n)
	for i := range out {
		out[i] = rune(0x4E00 + (seed*7919+i*131)%20000)
	}
	return string(out)
}

// fakeCuration searches every word as itself and alts more, and pins ids for every text.
type fakeCuration struct {
	alts int
	ids  []string
}

func (c fakeCuration) Alternatives(w string) []string {
	if c.alts == 0 {
		return nil
	}
	out := []string{w}
	for i := range c.alts {
		out = append(out, fmt.Sprintf("%s%c%d", w, 'a'+i, i))
	}
	return out
}

func (c fakeCuration) Pinned(string) []string { return c.ids }

// TestPlanKeepsTheBudget: whatever a search holds, its plan costs at most MaxClauses, degraded
// only when it must be, and keeps every word of a text within MaxTextRunes.
func TestPlanKeepsTheBudget(t *testing.T) {
	ids := make([]string, 1100)
	for i := range ids {
		ids[i] = fmt.Sprintf("item-%d", i)
	}
	words := make([]string, 28)
	for i := range words {
		words[i] = fmt.Sprintf("word%c", 'a'+i%26)
	}
	long := strings.Join(words, " ")
	tests := []struct {
		name     string
		q        Query
		rules    Curation
		degraded bool
		// typos is how many words keep their allowance.
		typos int
	}{
		{"a plain search", Query{Text: "winter harbour"}, nil, false, 2},
		{"190 random CJK ideographs", Query{Text: ideographs(1, 190)}, nil, true, 0},
		{"200 hiragana", Query{Text: strings.Repeat("あいうえおかきくけこ", 20)}, nil, false, 0},
		{"200 scattered hiragana", Query{Text: func() string {
			var b strings.Builder
			for i := range 200 {
				b.WriteRune(rune(0x3041 + ((i*7919)/7+i*131*i/3)%86))
			}
			return b.String()
		}()}, nil, true, 0},
		{"28 typo words", Query{Text: long}, nil, false, MaxTypoWords},
		{"28 words of 16 alternatives", Query{Text: long, Sort: SortRelevance}, fakeCuration{alts: 15}, true, 0},
		{"4 words of 16 alternatives", Query{Text: "tv lamp desk sofa", Sort: SortRelevance}, fakeCuration{alts: 15}, false, 3},
		{"a pin line of 1,100 ids", Query{Text: "winter", Sort: SortRelevance}, fakeCuration{ids: ids}, true, 1},
		{"a text past MaxTextRunes", Query{Text: strings.Repeat(long+" ", 10) + ideographs(3, 400)}, nil, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRequest(tt.q)
			r.Curation = tt.rules
			p := PlanText(r)
			if p.Clauses > MaxClauses || p.Clauses != PlanCost(&tt.q, p) {
				t.Errorf("plan costs %d (PlanCost %d), want at most %d", p.Clauses, PlanCost(&tt.q, p), MaxClauses)
			}
			if p.Degraded() != tt.degraded {
				t.Errorf("Degraded() = %v (%d of %d wanted), want %v", p.Degraded(), p.Clauses, p.Wanted, tt.degraded)
			}
			typos := 0
			for _, alts := range p.Words {
				if Typo(alts) {
					typos++
				}
			}
			if typos != tt.typos {
				t.Errorf("%d typo words, want %d", typos, tt.typos)
			}
			if utf8.RuneCountInString(tt.q.Text) <= MaxTextRunes && len(p.Words) != len(text.Words(tt.q.Text)) {
				t.Errorf("%d words planned of %d", len(p.Words), len(text.Words(tt.q.Text)))
			}
			if tt.rules != nil && len(tt.rules.Pinned("")) > 0 && len(p.Pins) == 0 {
				t.Error("every pin left out")
			}
		})
	}
}

// TestPlanDropsStemsFirst: a long search loses the stems of its last words before anything else,
// and a language filter, else the languages held, leaves every word the stems of its languages.
func TestPlanDropsStemsFirst(t *testing.T) {
	words := make([]string, 28)
	for i := range words {
		words[i] = fmt.Sprintf("houses%c%c", 'a'+i/26, 'a'+i%26)
	}
	long := strings.Join(words, " ")
	stemmed := func(p Plan) int {
		n := 0
		for _, alts := range p.Words {
			if slices.ContainsFunc(alts, func(v Variant) bool { return len(v.Stems) > 0 }) {
				n++
			}
		}
		return n
	}
	p := PlanText(NewRequest(Query{Text: long}))
	if n := stemmed(p); n == 0 || n == len(words) || len(p.Words[0][0].Stems) == 0 {
		t.Errorf("every language: %d of %d words keep their stems (the first %q), want the first ones only", n, len(words), p.Words[0][0].Stems)
	}
	if p.Degraded() || p.Unstemmed == 0 || p.Clauses+p.Unstemmed != p.Wanted {
		t.Errorf("every language: Degraded() = %v, %d + %d unstemmed of %d wanted, want only stems left out", p.Degraded(), p.Clauses, p.Unstemmed, p.Wanted)
	}
	for _, tt := range []struct {
		name  string
		q     Query
		held  List
		langs []string
	}{
		{"language=de,fr", Query{Text: long, Language: "de,fr"}, "", []string{"de", "fr"}},
		{"de and fr held", Query{Text: long}, "de,fr", []string{"de", "fr"}},
		{"language=de, en and fr held", Query{Text: long, Language: "de"}, "en,fr", []string{"de"}},
	} {
		r := NewRequest(tt.q)
		r.Held = tt.held
		p = PlanText(r)
		if p.Unstemmed != 0 {
			t.Errorf("%s: %d stem clauses left out, want none", tt.name, p.Unstemmed)
		}
		for i, w := range words {
			if want := WordStems(w, text.Terms(w), tt.langs); !slices.Equal(p.Words[i][0].Stems, want) {
				t.Errorf("%s: %q has stems %q, want %q", tt.name, w, p.Words[i][0].Stems, want)
			}
		}
	}
}

// TestThinRunsCoverEveryCharacter: a thinned run still holds each of its characters, so that it
// finds what the whole run finds, and more.
func TestThinRunsCoverEveryCharacter(t *testing.T) {
	for _, n := range []int{3, 4, 5, 190} {
		run := ideographs(n, n)
		p := Plan{Words: [][]Variant{{{Terms: text.Terms(run)}}}}
		thinRuns(&p, NewRequest(Query{}))
		kept := p.Words[0][0].Terms
		var covered strings.Builder
		for _, t := range kept {
			covered.WriteString(t)
		}
		for _, r := range run {
			if !strings.ContainsRune(covered.String(), r) {
				t.Errorf("%d characters: %q left out of %q", n, r, kept)
			}
		}
		if want := n / 2; len(kept) > want+1 {
			t.Errorf("%d characters: %d bigrams kept, want at most %d", n, len(kept), want+1)
		}
	}
}

// FuzzPlanText: whatever the text, with whatever synonyms, its plan costs what PlanCost counts and
// at most MaxClauses, and keeps its words' order.
func FuzzPlanText(f *testing.F) {
	for _, s := range []string{"", "winter harbour", ideographs(1, 190), "東京 タワー \"big apple\" -snow", strings.Repeat("ab cd ", 40)} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, alts int) {
		r := NewRequest(Query{Text: s, Sort: SortRelevance})
		r.Curation = fakeCuration{alts: min(max(alts, 0), 15)}
		p := PlanText(r)
		if p.Clauses > MaxClauses || p.Clauses != PlanCost(&r.Query, p) || p.Clauses > p.Wanted {
			t.Fatalf("%q: plan costs %d (PlanCost %d, wanted %d), budget %d", s, p.Clauses, PlanCost(&r.Query, p), p.Wanted, MaxClauses)
		}
		words := text.Words(s)
		for i, alts := range p.Words {
			if len(alts) == 0 || !slices.Equal(alts[0].Terms, text.Terms(words[i])) && !p.Degraded() {
				t.Fatalf("%q: word %d planned as %v, want %q first", s, i, alts, words[i])
			}
		}
	})
}
