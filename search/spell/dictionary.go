// Package spell finds a did-you-mean's candidates: the indexed words near each word of a search
// (Correct counts them). It keeps every word the index holds in memory, indexed by what
// deleting a rune or two leaves of it, for the index version (Speller), so that finding them
// costs the engine nothing and a correction costs it one call, the count; and every backend
// finds the same ones, by the contract's definition (search.EditsWithin, search.TypoAllowance).
package spell

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"mediagw/search"
	"mediagw/search/memo"
	"mediagw/search/text"
)

// Dictionary is a set of indexed words. It is safe for concurrent use.
type Dictionary struct {
	// terms are the held terms in byte order; isWord[i] tells whether terms[i] is a word, which
	// may be a neighbour, and items[i] how many items hold it. n counts the words.
	terms  []string
	isWord []bool
	items  []int
	n      int
	// stems are the held stems (search.StemFields, keyed by language) with the items holding
	// each: no neighbour nor match, but a word whose stem is held is spelt right (Items).
	stems map[string]int

	// variants index the terms by what deleting up to maxEdits of their runes leaves (symmetric
	// delete): each entry a variant's hash (seed) in the high 32 bits, the term's index in the
	// low, sorted. A term within k edits of a word (runes inserted, deleted, changed or two
	// adjacent ones swapped) leaves some string the word leaves too with at most k deletions
	// each, so a lookup hashes the word's variants and checks the terms under them: tens of
	// microseconds, where a walk of every term within two edits' reach cost a millisecond.
	variants []uint64
	seed     maphash.Seed
	// long are the terms of more than maxIndexedRunes runes, left out of variants (a term of n
	// runes leaves some n²/2 of them): a word that long is checked against each.
	long []int32

	// memo keeps what lookups of recent words found: a search box sends the same typo with every
	// keystroke after it.
	memo *memo.Map[string, near]
}

// near is what a lookup of a folded term finds: its neighbours, the first search.MaxNeighbours
// held words within its allowance but itself, and its matches, every held term within it,
// itself included (nil: more than MaxMatches).
type near struct{ neighbours, matches []string }

// MaxMatches bounds the terms Matches gives for one word: a word that matches more is left for
// the engine to expand, as many (search/elastic), and keeps its request small.
const MaxMatches = 1000

// maxMemo bounds Dictionary.memo, and maxMemoMatches the matches of a lookup it keeps: some 20
// neighbours and 64 matches of a dozen bytes each, about 16 MiB at most, however many terms
// hostile searches make a word match.
const (
	maxMemo        = 8192
	maxMemoMatches = 64
)

// maxEdits is the most edits a word may be allowed (search.TypoAllowance); maxIndexedRunes the
// longest term indexed by its variants.
const (
	maxEdits        = 2
	maxIndexedRunes = 32
)

// NewDictionary holds words: each as the index holds it (folded), in any order; of a word given
// twice, the larger count. A term that is not one word to text.Words (a narrow no-break space is
// part of a term to some tokenizers) is held for Matches but is no neighbour: it could not be a
// word of a correction.
func NewDictionary(words []search.Word) (*Dictionary, error) {
	sorted := slices.Clone(words)
	slices.SortFunc(sorted, func(a, b search.Word) int {
		return cmp.Or(strings.Compare(a.Text, b.Text), -cmp.Compare(a.Items, b.Items))
	})
	sorted = slices.CompactFunc(sorted, func(a, b search.Word) bool { return a.Text == b.Text })
	if len(sorted) > 0 && sorted[0].Text == "" {
		sorted = sorted[1:]
	}
	stems := map[string]int{}
	sorted = slices.DeleteFunc(sorted, func(w search.Word) bool {
		if strings.Contains(w.Text, ":") {
			stems[w.Text] = w.Items
			return true
		}
		return false
	})
	if len(sorted) > math.MaxInt32 {
		return nil, fmt.Errorf("dictionary: %d terms, over %d", len(sorted), math.MaxInt32)
	}
	d := &Dictionary{
		terms:  make([]string, len(sorted)),
		isWord: make([]bool, len(sorted)),
		items:  make([]int, len(sorted)),
		stems:  stems,
		seed:   maphash.MakeSeed(),
		memo:   memo.New[string, near](maxMemo),
	}
	for i, w := range sorted {
		d.terms[i], d.items[i] = w.Text, w.Items
	}
	terms := d.terms
	// Sized at once: grown by appending, the array and its last copies took twice its size at the
	// end of the build.
	size := 0
	for _, t := range terms {
		if n := utf8.RuneCountInString(t); n <= maxIndexedRunes {
			size += termVariants(n)
		}
	}
	d.variants = make([]uint64, 0, size)
	var h maphash.Hash
	h.SetSeed(d.seed)
	var runes []int
	for i, t := range terms {
		if isWord(t) {
			d.isWord[i] = true
			d.n++
		}
		runes = runeStarts(runes[:0], t)
		if len(runes)-1 > maxIndexedRunes {
			d.long = append(d.long, int32(i))
			continue
		}
		eachVariant(&h, t, runes, maxEdits, true, func(v uint32) {
			d.variants = append(d.variants, uint64(v)<<32|uint64(i))
		})
	}
	slices.Sort(d.variants)
	return d, nil
}

// indexed reports whether a term of n runes is filed under what deleting k of them leaves: only
// if a word within its allowance may leave that too. A word allowed one edit has at least
// search.OneTypoFrom runes and leaves at least one fewer; one allowed two, search.TwoTyposFrom
// and two fewer; and k deletions of a term need an allowance of k.
func indexed(n, k int) bool {
	switch k {
	case 0:
		return true
	case 1:
		return n-1 >= min(search.OneTypoFrom-1, search.TwoTyposFrom-2)
	default:
		return n-2 >= search.TwoTyposFrom-2
	}
}

// termVariants is how many variants eachVariant gives for a term of n runes.
func termVariants(n int) int {
	count := 1
	if indexed(n, 1) {
		count += n
	}
	if indexed(n, 2) {
		count += n * (n - 1) / 2
	}
	return count
}

// runeStarts appends to out the byte offset of each rune of s, then len(s).
func runeStarts(out []int, s string) []int {
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// eachVariant calls f with the hash of each string s leaves with up to max of its runes deleted
// (runes: runeStarts of s), s itself included; for a term (index), only those a word within its
// allowance may leave too (indexed). A string left several ways may come several times.
func eachVariant(h *maphash.Hash, s string, runes []int, max int, index bool, f func(uint32)) {
	n := len(runes) - 1
	sum := func(parts ...string) {
		h.Reset()
		for _, p := range parts {
			h.WriteString(p)
		}
		f(uint32(h.Sum64()))
	}
	sum(s)
	if max < 1 || index && !indexed(n, 1) {
		return
	}
	for i := range n {
		sum(s[:runes[i]], s[runes[i+1]:])
	}
	if max < 2 || index && !indexed(n, 2) {
		return
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			sum(s[:runes[i]], s[runes[i+1]:runes[j]], s[runes[j+1]:])
		}
	}
}

// isWord reports whether w is a single word as text.Words splits a text.
func isWord(w string) bool {
	words := text.Words(w)
	return len(words) == 1 && words[0] == w
}

// Len is the number of words held.
func (d *Dictionary) Len() int { return d.n }

// Neighbours maps each of words (text.Words) to its neighbours, as Correct takes them:
// the first search.MaxNeighbours held words, in byte order, within search.TypoAllowance edits of
// the folded word as search.EditsWithin counts them, the word itself excluded. The lists are
// shared: callers must not modify them.
func (d *Dictionary) Neighbours(words []string) (map[string][]string, error) {
	out := make(map[string][]string, len(words))
	for _, word := range words {
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

// Items maps each of words (text.Words) that is one term (text.Terms) to the number of items
// holding that term, or, when none does, holding another form of it (the most of its stems'
// in any language, search.WordStems): 0 when none does. A word of several terms is left out.
func (d *Dictionary) Items(words []string) map[string]int {
	out := make(map[string]int, len(words))
	for _, word := range words {
		terms := text.Terms(word)
		if len(terms) != 1 {
			continue
		}
		out[word] = 0
		if i, ok := slices.BinarySearch(d.terms, terms[0]); ok {
			out[word] = d.items[i]
			continue
		}
		if len(d.stems) == 0 {
			continue
		}
		for _, stem := range search.WordStems(word, terms, nil) {
			out[word] = max(out[word], d.stems[stem])
		}
	}
	return out
}

// lookup is what the folded term w finds, from the memo if a lookup found it lately. One
// lookup serves both: a correction asks for the neighbours of a search's words, then for the
// matches of the same words and of their neighbours.
func (d *Dictionary) lookup(w string) (near, error) {
	if n, ok := d.memo.Get(w); ok {
		return n, nil
	}
	within, err := d.within(w)
	if err != nil {
		return near{}, err
	}
	n := near{neighbours: []string{}, matches: []string{}}
	for _, i := range within {
		t := d.terms[i]
		if t != w && d.isWord[i] && len(n.neighbours) < search.MaxNeighbours {
			n.neighbours = append(n.neighbours, t)
		}
	}
	if len(within) <= MaxMatches {
		for _, i := range within {
			n.matches = append(n.matches, d.terms[i])
		}
	} else {
		n.matches = nil
	}
	if len(n.matches) <= maxMemoMatches {
		d.memo.Put(w, n)
	}
	return n, nil
}

// within returns the indices of the held terms within search.TypoAllowance(w) edits of w, w
// included, in byte order.
func (d *Dictionary) within(w string) ([]int32, error) {
	allow := search.TypoAllowance(w)
	if allow > maxEdits {
		return nil, fmt.Errorf("typo allowance of %q: %d edits, over the dictionary's %d", w, allow, maxEdits)
	}
	if allow == 0 {
		if i, ok := slices.BinarySearch(d.terms, w); ok {
			return []int32{int32(i)}, nil
		}
		return nil, nil
	}
	runes := runeStarts(nil, w)
	n := len(runes) - 1
	var found []int32
	if n-allow <= maxIndexedRunes {
		var h maphash.Hash
		h.SetSeed(d.seed)
		eachVariant(&h, w, runes, allow, false, func(v uint32) {
			key := uint64(v) << 32
			k, _ := slices.BinarySearch(d.variants, key)
			for ; k < len(d.variants) && d.variants[k]&^math.MaxUint32 == key; k++ {
				found = append(found, int32(d.variants[k]))
			}
		})
	}
	if n+allow > maxIndexedRunes {
		found = append(found, d.long...)
	}
	slices.Sort(found)
	found = slices.Compact(found)
	return slices.DeleteFunc(found, func(i int32) bool { return !search.EditsWithin(w, d.terms[i], allow) }), nil
}
