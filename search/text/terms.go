package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"mediagw/search/memo"
)

// Token is a term of a text and the bytes of the text it comes from.
type Token struct {
	Term       string
	Start, End int
}

// Terms returns the terms of one word (Words) as a query asks for them: folded (Fold, after
// full-width and half-width forms are made normal), and a run of Chinese or Japanese characters,
// which has no spaces between words, as its bigrams; a lone character stays whole. Korean words
// stay whole, as they are written with spaces.
func Terms(word string) []string {
	var out []string
	for _, t := range terms(word, 0, false) {
		if !contains(out, t.Term) {
			out = append(out, t.Term)
		}
	}
	return out
}

// IndexTerms returns the terms an index holds for text: the terms of each of its words, and for
// runs of Chinese or Japanese characters each character besides the bigrams, so that a query of
// one character finds them.
func IndexTerms(text string) []Token {
	return AppendIndex(nil, text, nil)
}

// AppendIndex appends the terms of text (IndexTerms) to toks and gives its words to stems when
// not nil, so that a text read once yields both.
func AppendIndex(toks []Token, text string, stems *Stems) []Token {
	for s := range Spans(text) {
		word := text[s.Start:s.End]
		toks = appendTerms(toks, word, s.Start, true)
		if stems != nil {
			stems.Add(word)
		}
	}
	return toks
}

// terms analyses word, which starts at byte offset at of its text.
func terms(word string, at int, index bool) []Token {
	return appendTerms(nil, word, at, index)
}

// appendTerms appends the terms of word, which starts at byte offset at of its text, to toks.
func appendTerms(toks []Token, word string, at int, index bool) []Token {
	if ascii(word) {
		// No mark and no character written without spaces: the word is its one term.
		if t := fold(word, at, at+len(word)); t.Term != "" {
			toks = append(toks, t)
		}
		return toks
	}
	key := termsKey{word, index}
	held, ok := wordTerms.Get(key)
	if !ok {
		held = otherTerms(word, index)
		// A copy: the word is a piece of its text, which the memo would keep whole.
		wordTerms.Put(termsKey{strings.Clone(word), index}, held)
	}
	for _, t := range held {
		toks = append(toks, Token{Term: t.Term, Start: at + t.Start, End: at + t.End})
	}
	return toks
}

// termsKey is a word, analysed for an index or for a query, whose terms wordTerms remembers.
type termsKey struct {
	word  string
	index bool
}

// wordTerms remembers the terms of the words of other than ASCII analysed lately, at their
// word's start: a catalogue repeats its words, and their folding costs most of their analysis.
var wordTerms = memo.New[termsKey, []Token](1 << 16)

// otherTerms are the terms of word, not ASCII alone, at offsets from its start.
func otherTerms(word string, index bool) []Token {
	var toks []Token
	type char struct {
		s          string
		start, end int
	}
	var out []Token
	var cjk []char
	flushCJK := func() {
		for i, c := range cjk {
			if index || len(cjk) == 1 {
				out = append(out, fold(c.s, c.start, c.end))
			}
			if i+1 < len(cjk) {
				out = append(out, fold(c.s+cjk[i+1].s, c.start, cjk[i+1].end))
			}
		}
		cjk = cjk[:0]
	}
	other := -1
	flushOther := func(end int) {
		if other >= 0 {
			out = append(out, fold(word[other:end], other, end))
			other = -1
		}
	}
	for i, r := range word {
		end := i + len(string(r))
		if n := len(cjk); n > 0 && (unicode.IsMark(r) || r == 'ﾞ' || r == 'ﾟ') {
			// A voicing mark written apart belongs to the character before it.
			cjk[n-1].s += string(r)
			cjk[n-1].end = end
			continue
		}
		if bigrammed(r) {
			flushOther(i)
			cjk = append(cjk, char{string(r), i, end})
			continue
		}
		flushCJK()
		if other < 0 {
			other = i
		}
	}
	flushOther(len(word))
	flushCJK()
	for _, t := range out {
		if t.Term != "" {
			toks = append(toks, t)
		}
	}
	return toks
}

// fold is the term of s: Fold after width folding, with the typographic apostrophe as the
// typewriter one ("don’t" is "don't").
func fold(s string, start, end int) Token {
	if ascii(s) {
		// Width folding and the apostrophe change nothing of ASCII, and would copy it.
		return Token{Term: Fold(s), Start: start, End: end}
	}
	return Token{Term: strings.ReplaceAll(Fold(foldWidth(s)), "’", "'"), Start: start, End: end}
}

// foldWidth is width.Fold of s, without its copy when s holds no character it changes: the
// ideographic space and the full-width and half-width forms.
func foldWidth(s string) string {
	for _, r := range s {
		if r == '\u3000' || r >= 0xFF01 && r <= 0xFFEE || r == utf8.RuneError {
			return width.Fold.String(s)
		}
	}
	return s
}

// ascii reports whether s is ASCII alone.
func ascii(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// firstBigrammed is the first character bigrammed holds, a Han radical.
const firstBigrammed = 0x2E80

// bigrammed reports whether r is written without spaces between words: Han, Hiragana and
// Katakana (with its prolonged sound mark and half-width forms).
func bigrammed(r rune) bool {
	if r < firstBigrammed {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー' || r == 'ｰ'
}

// QueryTerms returns the distinct terms of every word of text (Words, Terms), in order.
func QueryTerms(text string) []string {
	var out []string
	for _, w := range Words(text) {
		for _, t := range Terms(w) {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Synonyms says which words a query word is searched as: search/curation's rules.
type Synonyms interface {
	// Alternatives returns the words w is searched as, itself among them unless a one-way rule
	// replaces it; nil when it has no synonyms.
	Alternatives(w string) []string
}

// Alternatives returns the terms (Terms) of each word a query word w is searched as, w's own
// first unless syn replaces it: an item matches w when it matches any of them. Without syn, or
// a synonym of w, it is w's terms alone.
func Alternatives(w string, syn Synonyms) [][]string {
	var words []string
	if syn != nil {
		words = syn.Alternatives(w)
	}
	if len(words) == 0 {
		return [][]string{Terms(w)}
	}
	out := make([][]string, 0, len(words))
	seen := map[string]bool{}
	for _, a := range words {
		terms := Terms(a)
		if key := strings.Join(terms, " "); len(terms) > 0 && !seen[key] {
			seen[key] = true
			out = append(out, terms)
		}
	}
	return out
}
