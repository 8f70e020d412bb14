package bench

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"unicode/utf8"
)

// CompletionOptions shape a mix of completions.
type CompletionOptions struct {
	Seed uint64
	// Distinct is how many distinct texts the mix draws from (default 5,000).
	Distinct int
	// Length is the length of the sequence (default 100,000).
	Length int
}

// BuildCompletions draws a mix of resource=suggest requests from c: what someone has typed so far
// of one or two of the catalogue's words, the last one cut short (at least two letters, as a
// search box waits for), with the words' popularity and the requests' repetition of BuildMix.
func BuildCompletions(c *Corpus, opt CompletionOptions) (*Mix, error) {
	if opt.Distinct <= 0 {
		opt.Distinct = 5000
	}
	if opt.Length <= 0 {
		opt.Length = 100000
	}
	if len(c.Words) == 0 {
		return nil, errors.New("bench: no words to complete")
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x73756767657374)) // second word: "suggest"
	words := rand.NewZipf(rng, zipfExponent, 1, uint64(max(len(c.Words)-1, 1)))
	word := func() string { return c.Words[min(int(words.Uint64()), len(c.Words)-1)] }
	pool := make([]*Request, 0, opt.Distinct)
	seen := map[string]bool{}
	for tries := 0; len(pool) < opt.Distinct && tries < 20*opt.Distinct; tries++ {
		text := typedSoFar(rng, word())
		if rng.IntN(100) < 30 {
			text = word() + " " + text
		}
		q := url.Values{"resource": {"suggest"}, "q": {text}}.Encode()
		if !seen[q] {
			seen[q] = true
			pool = append(pool, &Request{Kind: KindSuggest, Query: q})
		}
	}
	rank := rand.NewZipf(rng, zipfExponent, 1, uint64(max(len(pool)-1, 1)))
	mix := &Mix{Seq: make([]*Request, opt.Length)}
	used := map[*Request]bool{}
	for i := range mix.Seq {
		r := pool[min(int(rank.Uint64()), len(pool)-1)]
		mix.Seq[i] = r
		used[r] = true
	}
	mix.Distinct = len(used)
	return mix, nil
}

// typedSoFar is the start of w someone has typed: two letters up to the whole word.
func typedSoFar(rng *rand.Rand, w string) string {
	n := utf8.RuneCountInString(w)
	if n <= 2 {
		return w
	}
	cut := 2 + rng.IntN(n-1)
	return string([]rune(w)[:cut])
}
