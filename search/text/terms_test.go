package text

import (
	"slices"
	"testing"
	"unicode/utf8"
)

func TestQueryTerms(t *testing.T) {
	for _, w := range []string{"Élan", "ÉLAN", "elan", "Straße", "Jöns", "HARBOUR", "Ηλέκτρα", "ΣΟΦΟΚΛΗΣ", "Война", "Łukasz", "Nuñez", "שִׁיר", "ألف", "ǅemal", "K"} {
		if got, want := QueryTerms(w), []string{Fold(w)}; !slices.Equal(got, want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", w, got, want)
		}
	}
	tests := []struct {
		text string
		want []string
	}{
		{"Sunset over the harbour", []string{"sunset", "over", "the", "harbour"}},
		{"title:harbour", []string{"title", "harbour"}},
		{"title：harbour", []string{"title", "harbour"}},
		{`"(harbour*)" OR \sunset`, []string{"harbour", "or", "sunset"}},
		{"harbour harbour", []string{"harbour"}},
		{"羅生門", []string{"羅生", "生門"}},
		{"門", []string{"門"}},
		{"ｈａｒｂｏｕｒ", []string{"harbour"}},
		{"ｶﾞｲﾄﾞ", []string{"カイ", "イト"}},
		{"ガイド", []string{"カイ", "イト"}},
		{"서울 타워", []string{"서울", "타워"}},
		{`"*:\`, nil},
		// Apostrophes: possessives and elided articles are no part of the word.
		{"Winter's Tale", []string{"winter", "tale"}},
		{"Manila’s harbour", []string{"manila", "harbour"}},
		{"l'Amérique du Nord", []string{"amerique", "du", "nord"}},
		{"dell’arto", []string{"arto"}},
		{"Qu'est-ce", []string{"est", "ce"}},
		{"jusqu'au bout", []string{"au", "bout"}},
		{"O'Brien don’t", []string{"o'brien", "don't"}},
		{"aujourd'hui", []string{"aujourd'hui"}},
		{"rock'n'roll", []string{"rock'n'roll"}},
	}
	for _, tt := range tests {
		if got := QueryTerms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("QueryTerms(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestIndexTerms(t *testing.T) {
	tests := []struct {
		text string
		want []Token
	}{
		{"Winter's Tale", []Token{{"winter", 0, 6}, {"tale", 9, 13}}},
		{"l'Amérique", []Token{{"amerique", 2, 11}}},
		{"羅生門", []Token{{"羅", 0, 3}, {"羅生", 0, 6}, {"生", 3, 6}, {"生門", 3, 9}, {"門", 6, 9}}},
	}
	for _, tt := range tests {
		if got := IndexTerms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("IndexTerms(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// FuzzAnalysis: no text makes the analysis panic, folding is idempotent, every word of a text is
// found again among the words of its own span, and every query term of a text is a term its
// index holds.
func FuzzAnalysis(f *testing.F) {
	for _, s := range []string{"Winter's Tale", "l'Amérique", "羅生門", "ｶﾞｲﾄﾞ", "a:b", "1,000 don't", "\xff'", "l'", "'s", "x’s’s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Text from JSON and from the gateway's parameters is valid UTF-8; the bytes of invalid
		// text fold as the original transform chain folded them, which is not idempotent.
		if f := Fold(s); utf8.ValidString(s) && Fold(f) != f {
			t.Errorf("Fold(Fold(%q)) = %q, not %q", s, Fold(f), f)
		}
		index := map[string]bool{}
		for _, tok := range IndexTerms(s) {
			index[tok.Term] = true
			if tok.Start < 0 || tok.End > len(s) || tok.Start >= tok.End {
				t.Errorf("IndexTerms(%q): token %v outside the text", s, tok)
			}
		}
		for sp := range Spans(s) {
			w := s[sp.Start:sp.End]
			if ws := Words(w); !slices.Contains(ws, w) {
				t.Errorf("Words(%q) = %q: the word %q of %q is not a word of itself", w, ws, w, s)
			}
		}
		for _, term := range QueryTerms(s) {
			if !index[term] {
				t.Errorf("QueryTerms(%q) has %q, which IndexTerms lacks (%v)", s, term, IndexTerms(s))
			}
		}
	})
}
