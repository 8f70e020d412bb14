package text

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"

	"mediagw/search/memo"
)

// stemmers are the Snowball algorithms by the ISO 639-1 code of their language.
var stemmers = map[string]func(*snowball.Env) bool{
	"da": danish.Stem, "de": german.Stem, "en": english.Stem, "es": spanish.Stem, "fi": finnish.Stem,
	"fr": french.Stem, "hu": hungarian.Stem, "it": italian.Stem, "nl": dutch.Stem, "no": norwegian.Stem,
	"pt": portuguese.Stem, "ro": romanian.Stem, "ru": russian.Stem, "sv": swedish.Stem, "tr": turkish.Stem,
}

// StemLanguages are the ISO 639-1 codes of the languages with a stemmer, sorted.
var StemLanguages = func() []string {
	out := make([]string, 0, len(stemmers))
	for lang := range stemmers {
		out = append(out, lang)
	}
	slices.Sort(out)
	return out
}()

// stem is the keyed stem of word in lang ("de:schnell" of "Schnelleren"): the Snowball algorithm
// reads the word lower-cased with its accents, which its suffixes are spelt with, and the stem is
// then folded as terms are (Fold), the language and a colon before it, so that the stems of two
// languages never meet. It reports false when lang has no stemmer and for a word the stemmers do
// not read: one with a character written without spaces (Terms' bigrams) or without a letter.
func stem(lang, word string) (string, bool) {
	f := stemmers[lang]
	if f == nil || !stemmable(word) {
		return "", false
	}
	held := stemmed[lang]
	if s, ok := held.Get(word); ok {
		return s, s != ""
	}
	env := snowball.NewEnv(strings.ReplaceAll(strings.ToLower(foldWidth(word)), "’", "'"))
	f(env)
	s := fold(env.Current(), 0, 0).Term
	if s != "" {
		s = lang + ":" + s
	}
	held.Put(word, s)
	return s, s != ""
}

// stemmed remembers, a language at a time, the stems of the words stemmed lately ("" for none): a
// catalogue repeats its words, and the Snowball algorithms cost most of a load's analysis. A
// memo a language keys it by the word alone, cheaper to hash than the word and its language.
var stemmed = func() map[string]*memo.Map[string, string] {
	m := make(map[string]*memo.Map[string, string], len(stemmers))
	for lang := range stemmers {
		m[lang] = memo.New[string, string](1 << 16)
	}
	return m
}()

// stemmable reports whether word holds a letter and no character written without spaces.
func stemmable(word string) bool {
	letter := false
	for _, r := range word {
		if r < utf8.RuneSelf {
			letter = letter || 'a' <= r|0x20 && r|0x20 <= 'z'
			continue
		}
		if bigrammed(r) {
			return false
		}
		letter = letter || unicode.IsLetter(r)
	}
	return letter
}

// IndexStems returns the distinct stems (keyed by lang, as stem makes them) of the words of texts
// in the language lang, in the order of their first word: what an index holds beside the terms
// so that another form of a word finds it. Nil when lang has no stemmer.
func IndexStems(lang string, texts ...string) []string {
	st := NewStems(lang)
	defer st.Release()
	for _, t := range texts {
		for s := range Spans(t) {
			st.Add(t[s.Start:s.End])
		}
	}
	return slices.Clone(st.List())
}

// Stems gathers the distinct stems of the words given to it in one language, in the order of
// their first word (IndexStems of the texts those words are of).
type Stems struct {
	lang    string
	stemmed bool
	// seen holds the words given and the stems gathered, which never meet: a word holds no
	// colon, a stem always does.
	seen map[string]bool
	out  []string
}

// stemSets keeps the sets released, whose maps a load would otherwise make for every item.
var stemSets = sync.Pool{New: func() any { return &Stems{seen: map[string]bool{}} }}

// maxPooledWords bounds the words of a set kept for reuse, so that one long text does not pin
// its map for good.
const maxPooledWords = 4096

// clearedWords bounds the words of a set whose map is cleared for reuse rather than made anew.
const clearedWords = 256

// NewStems gathers stems in lang; a language without a stemmer gathers none.
func NewStems(lang string) *Stems {
	st := stemSets.Get().(*Stems)
	st.lang, st.stemmed = lang, stemmers[lang] != nil
	return st
}

// Add gives the stems word's, a word of a text (Spans).
func (st *Stems) Add(word string) {
	// A text repeats its words: each is stemmed once.
	if !st.stemmed || st.seen[word] {
		return
	}
	st.seen[word] = true
	if k, ok := stem(st.lang, word); ok && !st.seen[k] {
		st.seen[k] = true
		st.out = append(st.out, k)
	}
}

// List returns the stems gathered, nil for none, until Release.
func (st *Stems) List() []string {
	if len(st.out) == 0 {
		return nil
	}
	return st.out
}

// Release hands the set back for reuse: neither it nor its List may be used after.
func (st *Stems) Release() {
	if len(st.seen) > maxPooledWords {
		return
	}
	if len(st.seen) > clearedWords {
		// Clearing a map costs its capacity, which a long text leaves behind for every later set.
		st.seen = map[string]bool{}
	} else {
		clear(st.seen)
	}
	st.out = st.out[:0]
	stemSets.Put(st)
}

// QueryStems returns the stems a query word is matched against, in each of langs that has a
// stemmer (StemLanguages when langs is empty): the stem of the word as typed and of its folded
// form, which differ when a suffix the stemmer knows has an accent the user left out or typed.
// Nil for a word the stemmers do not read.
func QueryStems(word string, langs []string) []string {
	if len(langs) == 0 {
		langs = StemLanguages
	}
	var out []string
	for _, lang := range langs {
		for _, w := range []string{word, Fold(word)} {
			if k, ok := stem(lang, w); ok && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}
