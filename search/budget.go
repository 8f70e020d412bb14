package search

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"mediagw/search/text"
)

// MaxClauses is how many clauses the engine query of one search may hold (Plan keeps every
// search within it, and search/curation refuses a set whose own queries would pass it). The
// lowest limit of every engine line is 1,024: OpenSearch 2.x and 3.x default
// indices.query.bool.max_clause_count to it, Elasticsearch 8 and 9 compute theirs from the heap
// and the search threads, never below it; since Lucene 9 it counts every leaf of the whole query,
// nested bools included (too_many_nested_clauses), which OpenSearch answers with a 500. A quarter
// is left for what an engine may count that PlanCost does not (a phrase by its terms, the
// engines' own rewrites).
const MaxClauses = 768

// Variant is one word a search's word is searched as (text.Alternatives): its terms, all of
// which must be in the one field that matches, and whether they may match within their typo
// allowance too.
type Variant struct {
	Terms []string
	// Typo is set when the word is one of TypoWords' and a term has an allowance (a CJK bigram
	// has none): typo clauses of no fuzzy term would match what the exact ones match.
	Typo bool
	// Stems are the other forms the word matches as (WordStems), in each of StemFields.
	Stems []string
}

// Typo reports whether a word searched as alts may match within its typo allowance.
func Typo(alts []Variant) bool {
	return slices.ContainsFunc(alts, func(v Variant) bool { return v.Typo })
}

// Plan is the text of a search as both backends query it, within MaxClauses, so that no search
// passes an engine's limit and the embedded index, bound alike, gives the same answers.
type Plan struct {
	// Words are the searched words (text.Words, in order), each as its alternatives, its own
	// first unless a one-way rule replaces it.
	Words [][]Variant
	// Pins are the ids pinned for the text (Curation.Pinned) that the search scores, in order.
	Pins []string
	// Clauses is what the query costs (PlanCost), at most MaxClauses; Wanted what it would cost
	// with every typo word, alternative, term, stem, pin and word of its text; Unstemmed what the
	// stems it left out would cost.
	Clauses, Wanted, Unstemmed int
}

// Degraded reports whether the plan left out anything of its text but stems to stay within
// MaxClauses: other forms are what a long search does without first, and a search that loses
// only them keeps its did-you-mean, as an operators' rule that loses only them is accepted.
func (p Plan) Degraded() bool { return p.Clauses+p.Unstemmed < p.Wanted }

// PlanText plans q's text. A search past MaxClauses is degraded, never refused, by these steps in
// turn until it fits: its words lose their stems, the last word first; the pins are cut to what
// its text leaves (search/curation refuses a pinned query that would not leave room for its
// pins); its typo words lose their allowance, the shortest first; its words' alternatives are cut
// to fewer (the first kept); a long CJK run keeps only the bigrams that cover its characters (AB
// CD DE for ABCDE, a superset of its matches); the last words are left out (only a text longer
// than MaxTextRunes gets there).
// Callers take it from the request (Request.Plan), which plans once.
func PlanText(r *Request) Plan {
	q := &r.Query
	words := r.Words()
	typos := TypoWords(words)
	langs := q.Language.Values()
	if len(langs) == 0 {
		langs = r.Held.Values()
	}
	p := Plan{Words: make([][]Variant, len(words))}
	for i, w := range words {
		alts := text.Alternatives(w, r.Curation)
		p.Words[i] = make([]Variant, len(alts))
		for k, terms := range alts {
			p.Words[i][k] = Variant{Terms: terms, Typo: typos[i] && slices.ContainsFunc(terms, func(t string) bool {
				return TypoAllowance(t) > 0
			}), Stems: WordStems(w, terms, langs)}
		}
	}
	if r.Curation != nil && q.Sort == SortRelevance && q.Searches() {
		p.Pins = r.Curation.Pinned(q.Text)
	}
	p.Wanted = PlanCost(q, p)
	p.Clauses = p.Wanted
	for _, step := range []func(*Plan, *Request) bool{dropStems, fewerPins, dropTypos, fewerAlternatives, thinRuns, fewerWords} {
		for p.Clauses > MaxClauses && step(&p, r) {
			p.Clauses = PlanCost(q, p)
		}
	}
	return p
}

// PlanCost counts the clauses of p's query for q as the engines count them: each leaf query
// (a term, a phrase, a fuzzy term, which its expansion does not multiply) in each searched field
// it is asked of, each stem in each of StemFields (a match of any stem is a leaf per stem), and
// each filter and pin.
func PlanCost(q *Query, p Plan) int {
	n := len(p.Pins)
	if q.Author != "" {
		n++
	}
	// A list is one terms clause; each use and part named is a term clause of its own.
	for _, l := range []List{q.Type, q.Category, q.Language, q.License, q.Format, q.Duration} {
		if l != "" {
			n++
		}
	}
	n += len(q.Reuse.Values()) + len(q.Has.Values())
	if q.From != "" || q.To != "" {
		n++
	}
	fields := len(SearchedFields)
	for _, alts := range p.Words {
		for _, a := range alts {
			// A word of no term is still one clause per field (it matches everything).
			t := max(len(a.Terms), 1)
			n += fields * t
			if a.Typo {
				n += fields * t
			}
			n += len(StemFields) * len(a.Stems)
		}
	}
	return n + fields*(len(q.Phrases.Terms())+len(q.Exclude.Terms()))
}

// dropTypos takes the allowance of the typo word TypoWords would choose last; false when none has one.
func dropTypos(p *Plan, r *Request) bool {
	words := r.Words()
	var typo []int
	for i, alts := range p.Words {
		if Typo(alts) {
			typo = append(typo, i)
		}
	}
	if len(typo) == 0 {
		return false
	}
	last := slices.MinFunc(typo, func(a, b int) int {
		return cmp.Or(cmp.Compare(utf8.RuneCountInString(words[a]), utf8.RuneCountInString(words[b])), cmp.Compare(b, a))
	})
	for k := range p.Words[last] {
		p.Words[last][k].Typo = false
	}
	return true
}

// dropStems takes the stems of the last word that has any; false when none has. It comes first:
// another form counts at most what a typo does, and the engines spend a clause per stem and field.
func dropStems(p *Plan, _ *Request) bool {
	for i := len(p.Words) - 1; i >= 0; i-- {
		dropped := false
		for k, a := range p.Words[i] {
			if len(a.Stems) > 0 {
				p.Unstemmed += len(StemFields) * len(a.Stems)
				p.Words[i][k].Stems, dropped = nil, true
			}
		}
		if dropped {
			return true
		}
	}
	return false
}

// fewerAlternatives cuts every word to one alternative fewer than the most any has; false when
// each has one.
func fewerAlternatives(p *Plan, _ *Request) bool {
	most := 0
	for _, alts := range p.Words {
		most = max(most, len(alts))
	}
	if most <= 1 {
		return false
	}
	for i, alts := range p.Words {
		p.Words[i] = alts[:min(len(alts), most-1)]
	}
	return true
}

// thinRuns leaves out, in every alternative, each CJK bigram whose two characters the terms
// kept beside it hold (the second of ABC's AB BC CD is covered by AB and CD); false when none is.
func thinRuns(p *Plan, _ *Request) bool {
	thinned := false
	for _, alts := range p.Words {
		for k, a := range alts {
			kept := make([]string, 0, len(a.Terms))
			for j, t := range a.Terms {
				if j > 0 && j+1 < len(a.Terms) && len(kept) > 0 && covered(kept[len(kept)-1], t, a.Terms[j+1]) {
					thinned = true
					continue
				}
				kept = append(kept, t)
			}
			alts[k].Terms = kept
		}
	}
	return thinned
}

// covered reports whether the bigram t's first character ends before and its second starts next.
func covered(before, t, next string) bool {
	r := []rune(t)
	if len(r) != 2 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(before)
	first, _ := utf8.DecodeRuneInString(next)
	return last == r[0] && first == r[1]
}

// fewerPins cuts the pins to what the rest of the query leaves; false when there are none.
func fewerPins(p *Plan, _ *Request) bool {
	if len(p.Pins) == 0 {
		return false
	}
	p.Pins = p.Pins[:max(0, len(p.Pins)-(p.Clauses-MaxClauses))]
	return true
}

// fewerWords leaves the last word out; false when there is none.
func fewerWords(p *Plan, _ *Request) bool {
	if len(p.Words) == 0 {
		return false
	}
	p.Words = p.Words[:len(p.Words)-1]
	return true
}
