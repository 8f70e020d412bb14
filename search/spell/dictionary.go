// Package spell finds a did-you-mean's candidates: the indexed words near each word of a search
// (search.Correct counts them). It keeps every word the index holds in memory, as an automaton,
// for the index version (Speller), so that finding them costs the engine nothing and a
// correction costs it one call, the count; and every backend finds the same ones, by the
// contract's definition (search.EditsWithin, search.TypoAllowance).
package spell

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/blevesearch/vellum"
	"github.com/blevesearch/vellum/levenshtein"

	"mediagw/search"
	"mediagw/search/memo"
	"mediagw/search/text"
)

// Dictionary is a set of indexed words. It is safe for concurrent use.
type Dictionary struct {
	fst *vellum.FST
	n   int

	// memo keeps the neighbours of recent words, and matches their matches (nil: more than
	// MaxMatches): a search box sends the same typo with every keystroke after it, and walking
	// the automaton costs up to a millisecond a word.
	memo, matches *memo.Map[string, []string]
}

// MaxMatches bounds the terms Matches gives for one word: a word that matches more is left for
// the engine to expand, as many (search/engine), and keeps its request small.
const MaxMatches = 1000

// maxMemo bounds Dictionary.memo: some 20 neighbours of a dozen bytes each, about 2 MiB at most.
const maxMemo = 8192

// NewDictionary holds words: each as the index holds it (folded), in any order, repeats allowed.
// A term that is not one word to text.Words (a narrow no-break space is part of a term to some
// tokenizers) is held for Matches but is no neighbour: it could not be a word of a correction.
func NewDictionary(words []string) (*Dictionary, error) {
	sorted := slices.Clone(words)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var buf bytes.Buffer
	b, err := vellum.New(&buf, nil)
	if err != nil {
		return nil, fmt.Errorf("dictionary: %w", err)
	}
	n := 0
	for _, w := range sorted {
		if w == "" {
			continue
		}
		var kind uint64 = termOnly
		if isWord(w) {
			kind = word
			n++
		}
		if err := b.Insert([]byte(w), kind); err != nil {
			return nil, fmt.Errorf("dictionary: %q: %w", w, err)
		}
	}
	if err := b.Close(); err != nil {
		return nil, fmt.Errorf("dictionary: %w", err)
	}
	fst, err := vellum.Load(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("dictionary: %w", err)
	}
	return &Dictionary{fst: fst, n: n, memo: memo.New[string, []string](maxMemo),
		matches: memo.New[string, []string](maxMemo)}, nil
}

// The value a held term maps to.
const (
	termOnly uint64 = iota
	word
)

// isWord reports whether w is a single word as text.Words splits a text.
func isWord(w string) bool {
	words := text.Words(w)
	return len(words) == 1 && words[0] == w
}

// Len is the number of words held.
func (d *Dictionary) Len() int { return d.n }

// Neighbours maps each word of s (text.Words) to its neighbours, as search.Correct takes them:
// the first search.MaxNeighbours held words, in byte order, within search.TypoAllowance edits of
// the folded word as search.EditsWithin counts them, the word itself excluded. The lists are
// shared: callers must not modify them.
func (d *Dictionary) Neighbours(s string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, word := range text.Words(s) {
		near, err := d.near(text.Fold(word))
		if err != nil {
			return nil, fmt.Errorf("neighbours of %q: %w", word, err)
		}
		out[word] = near
	}
	return out, nil
}

// near is the neighbours of the folded word w, which callers must not modify.
func (d *Dictionary) near(w string) ([]string, error) {
	if out, ok := d.memo.Get(w); ok {
		return out, nil
	}
	out, err := d.walk(w)
	if err != nil {
		return nil, err
	}
	d.memo.Put(w, out)
	return out, nil
}

// walk finds the neighbours of the folded word w. The automaton walks the dictionary in byte
// order, so the walk stops at the MaxNeighbours-th.
func (d *Dictionary) walk(w string) ([]string, error) {
	out := []string{}
	err := d.each(w, func(t string, kind uint64) bool {
		if t != w && kind == word {
			out = append(out, t)
		}
		return len(out) < search.MaxNeighbours
	})
	return out, err
}

// Matches maps each of words (text.Words) that is one term (text.Terms) to the held terms it
// matches, as search.Matches holds them: the term, if held, and those within
// search.TypoAllowance edits of it as search.EditsWithin counts them, in byte order; a word of
// several terms, or matching more than MaxMatches, is left out. The lists are shared: callers
// must not modify them.
func (d *Dictionary) Matches(words []string) (search.Matches, error) {
	out := search.Matches{}
	for _, word := range words {
		terms := text.Terms(word)
		if len(terms) != 1 {
			continue
		}
		if _, done := out[word]; done {
			continue
		}
		m, err := d.match(terms[0])
		if err != nil {
			return nil, fmt.Errorf("matches of %q: %w", word, err)
		}
		if m != nil {
			out[word] = m
		}
	}
	return out, nil
}

// match is the terms the term w matches, nil when more than MaxMatches.
func (d *Dictionary) match(w string) ([]string, error) {
	if out, ok := d.matches.Get(w); ok {
		return out, nil
	}
	out := []string{}
	err := d.each(w, func(t string, _ uint64) bool {
		out = append(out, t)
		return len(out) <= MaxMatches
	})
	if err != nil {
		return nil, err
	}
	if len(out) > MaxMatches {
		out = nil
	}
	d.matches.Put(w, out)
	return out, nil
}

// each calls f with the held terms within search.TypoAllowance(w) edits of w, w included, and
// their kind, in byte order, until f returns false.
func (d *Dictionary) each(w string, f func(term string, kind uint64) bool) error {
	allow := search.TypoAllowance(w)
	if allow == 0 {
		kind, ok, err := d.fst.Get([]byte(w))
		if err != nil || !ok {
			return err
		}
		f(w, kind)
		return nil
	}
	dfa, err := automaton(w, allow)
	if err != nil {
		return err
	}
	it, err := d.fst.Search(dfa, nil, nil)
	for err == nil {
		k, kind := it.Current()
		if t := string(k); search.EditsWithin(w, t, allow) && !f(t, kind) {
			return nil
		}
		err = it.Next()
	}
	if !errors.Is(err, vellum.ErrIteratorDone) {
		return err
	}
	return nil
}

// builders make the automata of one and two edits, a transposition counting as one, as in
// search.EditsWithin. Making one costs milliseconds, so each is made once.
var builders = sync.OnceValues(func() ([2]*levenshtein.LevenshteinAutomatonBuilder, error) {
	var out [2]*levenshtein.LevenshteinAutomatonBuilder
	for i := range out {
		b, err := levenshtein.NewLevenshteinAutomatonBuilder(uint8(i+1), true)
		if err != nil {
			return out, fmt.Errorf("automaton builder of %d edits: %w", i+1, err)
		}
		out[i] = b
	}
	return out, nil
})

// automaton accepts the words within allow (1 or 2) edits of w.
func automaton(w string, allow int) (*levenshtein.DFA, error) {
	bs, err := builders()
	if err != nil {
		return nil, err
	}
	dfa, err := bs[allow-1].BuildDfa(w, uint8(allow))
	if err != nil {
		return nil, fmt.Errorf("automaton of %q: %w", w, err)
	}
	return dfa, nil
}
