package text

import (
	"slices"
	"strings"
	"unicode"

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
	"golang.org/x/text/width"

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
	key := stemKey{lang, word}
	if s, ok := stemmed.Get(key); ok {
		return s, s != ""
	}
	env := snowball.NewEnv(strings.ReplaceAll(strings.ToLower(width.Fold.String(word)), "’", "'"))
	f(env)
	s := fold(env.Current(), 0, 0).Term
	if s != "" {
		s = lang + ":" + s
	}
	stemmed.Put(key, s)
	return s, s != ""
}

// stemKey is a word in a language, whose stem stemmed remembers.
type stemKey struct{ lang, word string }

// stemmed remembers the stems of the words stemmed lately ("" for none): a catalogue repeats its
// words, and the Snowball algorithms cost most of a load's analysis.
var stemmed = memo.New[stemKey, string](1 << 16)

// stemmable reports whether word holds a letter and no character written without spaces.
func stemmable(word string) bool {
	letter := false
	for _, r := range word {
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
	if stemmers[lang] == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		for s := range Spans(t) {
			if k, ok := stem(lang, t[s.Start:s.End]); ok && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
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
