package search

import (
	"strings"

	"mediagw/search/text"
)

// Phrases is a list of phrases, each the terms of its words in order (text.IndexTerms, the terms
// an index holds for the same text, so a phrase of CJK characters is their unigrams and bigrams):
// terms apart by a space, phrases by a newline, neither of which a term holds. One string keeps
// Query comparable and gives one list one form, so that "Forest Path" and "forest path" are one
// query. A phrase matches an item that holds its terms side by side, in order, within one value
// of one searched field, exactly (no typo allowance).
type Phrases string

// With is p with the phrase of s added, unless s holds no term or p holds it already.
func (p Phrases) With(s string) Phrases {
	var terms []string
	for _, t := range text.IndexTerms(s) {
		terms = append(terms, t.Term)
	}
	phrase := strings.Join(terms, " ")
	if phrase == "" || p.has(phrase) {
		return p
	}
	if p == "" {
		return Phrases(phrase)
	}
	return p + "\n" + Phrases(phrase)
}

func (p Phrases) has(phrase string) bool {
	for x := range strings.SplitSeq(string(p), "\n") {
		if x == phrase {
			return true
		}
	}
	return false
}

// Terms lists each phrase's terms, in the order they were added.
func (p Phrases) Terms() [][]string {
	if p == "" {
		return nil
	}
	var out [][]string
	for x := range strings.SplitSeq(string(p), "\n") {
		out = append(out, strings.Split(x, " "))
	}
	return out
}

// Searches reports whether q asks for text: words or phrases an item must hold, which relevance
// orders by. Exclusions alone only leave items out.
func (q *Query) Searches() bool { return q.Text != "" || q.Phrases != "" }
