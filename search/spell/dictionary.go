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

	"mediagw/search"
	"mediagw/search/memo"
	"mediagw/search/text"
)

// Dictionary is a set of indexed words. It is safe for concurrent use.
type Dictionary struct {
	fst *vellum.FST
	n   int

	// memo keeps what walks from recent words found: a search box sends the same typo with every
	// keystroke after it, and a walk costs up to a few hundred microseconds a word.
	memo *memo.Map[string, near]
	// walks are kept for the next walk: a new one allocates its stacks anew.
	walks sync.Pool
}

// walk is what a walk of the dictionary steps: the automaton and the iterator over the words.
type walk struct {
	a  within
	it vellum.FSTIterator
}

// near is what a walk from a folded term finds: its neighbours, the first search.MaxNeighbours
// held words within its allowance but itself, and its matches, every held term within it,
// itself included (nil: more than MaxMatches).
type near struct{ neighbours, matches []string }

// MaxMatches bounds the terms Matches gives for one word: a word that matches more is left for
// the engine to expand, as many (search/engine), and keeps its request small.
const MaxMatches = 1000

// maxMemo bounds Dictionary.memo, and maxMemoMatches the matches of a walk it keeps: some 20
// neighbours and 64 matches of a dozen bytes each, about 16 MiB at most, however many terms
// hostile searches make a word match.
const (
	maxMemo        = 8192
	maxMemoMatches = 64
)

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
		kind := kindTerm
		if isWord(w) {
			kind = kindWord
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
	return &Dictionary{fst: fst, n: n, memo: memo.New[string, near](maxMemo)}, nil
}

// The value a held term maps to: whether it is a word, which may be a neighbour.
const (
	kindTerm uint64 = iota
	kindWord
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
		n, err := d.lookup(text.Fold(word))
		if err != nil {
			return nil, fmt.Errorf("neighbours of %q: %w", word, err)
		}
		out[word] = n.neighbours
	}
	return out, nil
}

// Matches maps each of words (text.Words) that is one term (text.Terms) to the held terms it
// matches, as search.Matches holds them: the term, if held, and those within
// search.TypoAllowance edits of it as search.EditsWithin counts them, in byte order; a word of
// several terms, or matching more than MaxMatches, is left out. The lists are shared: callers
// must not modify them.
func (d *Dictionary) Matches(words []string) (search.Matches, error) {
	out := search.Matches{}
	for _, word := range words {
		if _, done := out[word]; done {
			continue
		}
		terms := text.Terms(word)
		if len(terms) != 1 {
			continue
		}
		n, err := d.lookup(terms[0])
		if err != nil {
			return nil, fmt.Errorf("matches of %q: %w", word, err)
		}
		if n.matches != nil {
			out[word] = n.matches
		}
	}
	return out, nil
}

// lookup is what a walk from the folded term w finds, from the memo if a walk found it lately.
// One walk serves both: a correction asks for the neighbours of a search's words, then for the
// matches of the same words and of their neighbours.
func (d *Dictionary) lookup(w string) (near, error) {
	if n, ok := d.memo.Get(w); ok {
		return n, nil
	}
	n := near{neighbours: []string{}, matches: []string{}}
	err := d.each(w, func(t string, kind uint64) bool {
		if t != w && kind == kindWord && len(n.neighbours) < search.MaxNeighbours {
			n.neighbours = append(n.neighbours, t)
		}
		if n.matches != nil {
			if n.matches = append(n.matches, t); len(n.matches) > MaxMatches {
				n.matches = nil
			}
		}
		return n.matches != nil || len(n.neighbours) < search.MaxNeighbours
	})
	if err != nil {
		return near{}, err
	}
	if len(n.matches) <= maxMemoMatches {
		d.memo.Put(w, n)
	}
	return n, nil
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
	if allow > maxEdits {
		return fmt.Errorf("typo allowance of %q: %d edits, over the automaton's %d", w, allow, maxEdits)
	}
	wk, _ := d.walks.Get().(*walk)
	if wk == nil {
		wk = new(walk)
	}
	defer d.walks.Put(wk)
	wk.a.reset(w, allow)
	it := &wk.it
	err := it.Reset(d.fst, nil, nil, &wk.a)
	for err == nil {
		k, kind := it.Current()
		if !f(string(k), kind) {
			return nil
		}
		err = it.Next()
	}
	if !errors.Is(err, vellum.ErrIteratorDone) {
		return err
	}
	return nil
}
