package curation

import (
	"fmt"
	"strings"

	"unicode/utf8"

	"mediagw/search"
)

// overBudget names each line of r's files whose own search would pass search.MaxClauses and be
// cut to fit (search.Request.Plan): a word of a synonyms line searched alone, a pinned query with its
// ids. A search of many words, each searched as many synonyms, is cut at query time as any search
// past the budget is; a set whose single rules cannot be served whole is refused instead.
func (r *Rules) overBudget() []LineError {
	var bad []LineError
	// Most words cost far less than the budget: a bound of their alternatives' terms, each in
	// every field exactly and within the typo allowance, spares planning their searches.
	heavy := map[string]bool{}
	for k, alts := range r.synonyms {
		n := 0
		for _, a := range alts {
			n += termsAtMost(a)
		}
		if 2*len(search.SearchedFields)*n > search.MaxClauses {
			heavy[k] = true
		}
	}
	plan := func(q string) search.Plan {
		req := search.NewRequest(search.Query{Text: q, Sort: search.SortRelevance})
		req.Curation = r
		return req.Plan()
	}
	if len(heavy) > 0 {
		eachRule(r.files.Synonyms, func(n int, line string) {
			left, _, _ := strings.Cut(line, "=>")
			for w := range strings.SplitSeq(left, ",") {
				w = strings.TrimSpace(w)
				if !heavy[key(w)] {
					continue
				}
				if p := plan(w); p.Degraded() {
					bad = append(bad, LineError{"synonyms", n, fmt.Errorf("a search of %q alone would take %d engine clauses, past %d (search.MaxClauses): list fewer or shorter synonyms",
						w, p.Wanted, search.MaxClauses)})
					return
				}
			}
		})
	}
	eachRule(r.files.Pins, func(n int, line string) {
		q, _, _ := strings.Cut(line, "=>")
		if p := plan(q); p.Degraded() {
			bad = append(bad, LineError{"pins", n, fmt.Errorf("a search of %q with its %d pins would take %d engine clauses, past %d (search.MaxClauses): pin fewer ids",
				strings.TrimSpace(q), len(r.Pinned(q)), p.Wanted, search.MaxClauses)})
		}
	})
	return bad
}

// termsAtMost bounds the terms of the word w (text.Terms): one, but a bigram per character of a
// word with Chinese or Japanese in it, whose characters all lie from U+2E80 on.
func termsAtMost(w string) int {
	for _, r := range w {
		if r >= 0x2E80 {
			return utf8.RuneCountInString(w)
		}
	}
	return 1
}

// eachRule calls rule with each rule line of a file and its number, as Parse reads them.
func eachRule(file string, rule func(n int, line string)) {
	for i, line := range strings.Split(file, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			rule(i+1, line)
		}
	}
}
