package bleve

import (
	"context"
	"math"
	"slices"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	"mediagw/search"
	"mediagw/search/memo"
)

// textQuery requires every word of plan (search.Request.Plan) and every phrase of q.Phrases in
// some searched field and scores an item by search.Clauses' rule: for each word or phrase the best
// clause it matches, summed, plus the item's search.Bonus (bonus by document number; nil leaves it
// out). Only the plan's typo alternatives have typo clauses, which keep their candidates in fuzzy
// (nil: nowhere). It reports whether q held any term; one with none is no query (nil).
func textQuery(q *search.Query, plan search.Plan, bonus []float64, fuzzy *fuzzyCache) (query.Query, bool) {
	var all allWords
	for _, alts := range plan.Words {
		if len(alts) > 0 && len(alts[0].Terms) > 0 {
			all.words = append(all.words, synonymsQuery(alts, fuzzy))
			// A conjunction's Count is no count of its matches, so a word of several terms (a CJK
			// run) never ends the search early either.
			all.typo = append(all.typo, search.Typo(alts) || slices.ContainsFunc(alts, func(v search.Variant) bool { return len(v.Terms) > 1 }))
		}
	}
	for _, p := range q.Phrases.Terms() {
		// A phrase searcher's Count is not its matches', so a phrase, like a typo word, never
		// ends the search early.
		all.words = append(all.words, phraseQuery(p, true))
		all.typo = append(all.typo, true)
	}
	if len(all.words) == 0 {
		return nil, false
	}
	var tq query.Query = all
	if len(all.words) == 1 {
		tq = all.words[0]
	}
	if bonus == nil {
		return tq, true
	}
	return scored(tq, func(d *bsearch.DocumentMatch) float64 {
		if doc := d.IndexInternalID.Value(); doc < uint64(len(bonus)) {
			return d.Score + bonus[doc]
		}
		return d.Score
	}), true
}

// allWords matches the items every one of its words' queries matches, as query.ConjunctionQuery
// does, but builds the searchers of its exact words (typo false) first and gives up as soon as
// one of those matches nothing: a search of many unknown words then costs their lookups, not the expansion
// of its typo words.
type allWords struct {
	words []query.Query
	typo  []bool
}

func (q allWords) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	ss := make([]bsearch.Searcher, len(q.words))
	closeAll := func() {
		for _, s := range ss {
			if s != nil {
				_ = s.Close()
			}
		}
	}
	for _, typo := range []bool{false, true} {
		for k, w := range q.words {
			if q.typo[k] != typo {
				continue
			}
			s, err := w.Searcher(ctx, i, m, options)
			if err != nil {
				closeAll()
				return nil, err
			}
			ss[k] = s
			// An exact word's Count is its terms' postings; a typo word's was seen 0 though it
			// matched (the real catalogue's known items), so only exact words end the search.
			if !typo && s.Count() == 0 {
				closeAll()
				return searcher.NewMatchNoneSearcher(i)
			}
		}
	}
	// In the words' order, which the scores' sum keeps.
	return searcher.NewConjunctionSearcher(ctx, i, ss, options)
}

// phraseQuery matches a phrase's terms side by side, in order, within one value of any searched
// field, exactly (the positions the mapping keeps: IncludeTermVectors); when scoring, by the best
// exact clause of search.Clauses it matches, as a word that matches exactly scores.
func phraseQuery(terms []string, scoring bool) query.Query {
	var dis []query.Query
	for _, c := range search.Clauses {
		if c.Typo || c.Stem {
			continue
		}
		field := textFields[c.Field]
		var match query.Query
		if len(terms) == 1 {
			tq := query.NewTermQuery(terms[0])
			tq.SetField(field)
			match = tq
		} else {
			match = query.NewPhraseQuery(terms, field)
		}
		if scoring {
			match = constantScore(match, clauseCode(c.Score))
		}
		dis = append(dis, match)
	}
	if !scoring {
		return query.NewDisjunctionQuery(dis)
	}
	return scored(query.NewDisjunctionQuery(dis), bestClause)
}

// wordQuery matches the terms of one word (several for CJK bigrams, all in one field) in any
// searched field, exactly or (typo) within the typo allowance, or any of its stems in a stem
// field, scoring the best clause matched. Its typo clauses keep their candidates in fuzzy (nil:
// nowhere).
func wordQuery(terms, stems []string, typo bool, fuzzy *fuzzyCache) query.Query {
	// The clauses of one score match as one: Bleve merges the postings of an unscored
	// disjunction, and the word's disjunction then has one child per score.
	byScore := make([][]query.Query, len(clauseScores))
	for _, c := range search.Clauses {
		field := textFields[c.Field]
		r := slices.Index(clauseScores, c.Score)
		if c.Stem {
			if len(stems) > 0 {
				byScore[r] = append(byScore[r], anyTerm(stems, field))
			}
			continue
		}
		parts := make([]query.Query, len(terms))
		fuzzed := false
		for i, t := range terms {
			if n := search.TypoAllowance(t); typo && c.Typo && n > 0 {
				parts[i], fuzzed = fuzzyQuery{fuzzyKey: fuzzyKey{term: t, field: field, fuzziness: n}, cache: fuzzy}, true
				continue
			}
			tq := query.NewTermQuery(t)
			tq.SetField(field)
			parts[i] = tq
		}
		if c.Typo && !fuzzed {
			// No term may differ: the clause would match as the exact one, which scores more.
			continue
		}
		match := parts[0]
		if len(parts) > 1 {
			match = query.NewConjunctionQuery(parts)
		}
		byScore[r] = append(byScore[r], match)
	}
	dis := make([]query.Query, 0, len(byScore))
	for r, matches := range byScore {
		switch len(matches) {
		case 0:
		case 1:
			dis = append(dis, constantScore(matches[0], clauseCode(clauseScores[r])))
		default:
			dis = append(dis, constantScore(query.NewDisjunctionQuery(matches), clauseCode(clauseScores[r])))
		}
	}
	return scored(query.NewDisjunctionQuery(dis), bestClause)
}

// anyTerm matches any of terms in field.
func anyTerm(terms []string, field string) query.Query {
	each := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := query.NewTermQuery(t)
		tq.SetField(field)
		each[i] = tq
	}
	if len(each) == 1 {
		return each[0]
	}
	return query.NewDisjunctionQuery(each)
}

// Bleve has no dis_max, and its disjunction multiplies the sum of its matched clauses' scores by
// their share of all clauses (coord), which depends on which ones matched. So each clause scores
// codeBase to the power of its score's rank among clauseScores, and bestClause reads the highest
// rank back: with at most maxClauses clauses, the disjunction's score lies between
// codeBase^r/maxClauses and maxClauses*codeBase^r*(1+1/(codeBase-1)) for the best rank r, and
// these ranges, far apart, never meet.
const (
	codeBase   = 1024
	maxClauses = 16
)

// clauseScores are the distinct scores of search.Clauses, ascending: a clause's code is
// codeBase^(its index here).
var clauseScores = func() []float64 {
	var out []float64
	for _, c := range search.Clauses {
		if !slices.Contains(out, c.Score) {
			out = append(out, c.Score)
		}
	}
	if len(out) > 6 || len(search.Clauses) > maxClauses {
		// codeBase^len(out) must stay an exact float64 with room for maxClauses of them.
		panic("bleve: too many clause scores to code")
	}
	slices.Sort(out)
	return out
}()

func clauseCode(score float64) float64 {
	return math.Pow(codeBase, float64(slices.Index(clauseScores, score)))
}

// clauseFloors are, by rank, the least disjunction score whose best clause has that rank (see
// codeBase), computed once: bestClause runs for every match of every word.
var clauseFloors = func() []float64 {
	out := make([]float64, len(clauseScores))
	for r := range out {
		out[r] = math.Pow(codeBase, float64(r)) / maxClauses
	}
	return out
}()

// bestClause turns a word's disjunction score into the best clause's score (see codeBase).
func bestClause(d *bsearch.DocumentMatch) float64 {
	for r := len(clauseScores) - 1; r > 0; r-- {
		if d.Score >= clauseFloors[r] {
			return clauseScores[r]
		}
	}
	return clauseScores[0]
}

// constantScore scores every match of q at score. q does not score its matches, which spares
// reading term frequencies and lets Bleve merge a disjunction's postings (a fuzzy word's
// candidates) into one.
func constantScore(q query.Query, score float64) query.Query {
	return scoredQuery{Query: q, score: func(*bsearch.DocumentMatch) float64 { return score }, unscored: true}
}

// scoredQuery matches what its query matches, scoring each match by score (given the match as the
// query scored it). Bleve's CustomScoreQuery does the same but looks up every match's external
// id, a stored-field read per clause and match.
type scoredQuery struct {
	query.Query
	score func(*bsearch.DocumentMatch) float64
	// unscored: score does not read the query's score, so the query need not make it.
	unscored bool
}

func scored(q query.Query, score func(*bsearch.DocumentMatch) float64) query.Query {
	return scoredQuery{Query: q, score: score}
}

func (q scoredQuery) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	if q.unscored {
		options.Score = blevesearch.ScoreNone
	}
	s, err := q.Query.Searcher(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	return scoredSearcher{Searcher: s, score: q.score}, nil
}

// scoredSearcher is the searcher of a scoredQuery.
type scoredSearcher struct {
	bsearch.Searcher
	score func(*bsearch.DocumentMatch) float64
}

func (s scoredSearcher) Next(ctx *bsearch.SearchContext) (*bsearch.DocumentMatch, error) {
	return s.rescore(s.Searcher.Next(ctx))
}

func (s scoredSearcher) Advance(ctx *bsearch.SearchContext, id index.IndexInternalID) (*bsearch.DocumentMatch, error) {
	return s.rescore(s.Searcher.Advance(ctx, id))
}

func (s scoredSearcher) rescore(d *bsearch.DocumentMatch, err error) (*bsearch.DocumentMatch, error) {
	if d != nil && err == nil {
		d.Score = s.score(d)
	}
	return d, err
}

// fuzzyQuery is query.FuzzyQuery's match of term in field within fuzziness edits (no prefix, boost
// 1), its candidate terms kept for the index's next searches of the word in cache (nil: nowhere):
// finding them runs a Levenshtein automaton over the field's term dictionary, about a fifth of a
// search's CPU, and the index is read-only.
type fuzzyQuery struct {
	fuzzyKey
	cache *fuzzyCache
}

// fuzzyKey is a fuzzyQuery's match: what its candidates depend on.
type fuzzyKey struct {
	term, field string
	fuzziness   int
}

// fuzzyCache holds an index's fuzzyQuery candidates, up to fuzzyCacheSize words.
type fuzzyCache = memo.Map[fuzzyKey, fuzzyTerms]

const fuzzyCacheSize = 20000

func newFuzzyCache() *fuzzyCache { return memo.New[fuzzyKey, fuzzyTerms](fuzzyCacheSize) }

func (q fuzzyQuery) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	// Bleve builds every clause's searcher before it looks at the context: each expansion here is
	// a walk of a term dictionary, and a search of many words kept running long after its deadline.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cand, ok, err := q.terms(ctx, i)
	if err != nil {
		return nil, err
	}
	if !ok {
		fq := query.NewFuzzyQuery(q.term)
		fq.SetField(q.field)
		fq.SetFuzziness(q.fuzziness)
		return fq.Searcher(ctx, i, m, options)
	}
	// As searcher.NewFuzzySearcher does with the candidates it finds.
	if len(cand.terms) == 0 || (len(cand.terms) == 1 && cand.terms[0] == q.term) {
		return searcher.NewTermSearcher(ctx, i, q.term, q.field, 1, options)
	}
	return searcher.NewMultiTermSearcherBoosted(ctx, i, cand.terms, q.field, 1, cand.distances, options, true)
}

// terms are q's candidate terms, kept or found on i; false when i has no fuzzy automatons.
func (q fuzzyQuery) terms(ctx context.Context, i index.IndexReader) (fuzzyTerms, bool, error) {
	if cand, ok := q.cache.Get(q.fuzzyKey); ok {
		return cand, true, nil
	}
	fi, ok := i.(index.IndexReaderFuzzy)
	if !ok {
		return fuzzyTerms{}, false, nil
	}
	cand, err := q.candidates(ctx, fi)
	if err != nil {
		return fuzzyTerms{}, false, err
	}
	q.cache.Put(q.fuzzyKey, cand)
	return cand, true, nil
}

// fuzzyTerms are a fuzzyQuery's candidate terms with their edit distances.
type fuzzyTerms struct {
	terms     []string
	distances []uint8
}

// candidates finds q's candidate terms, until ctx ends, as searcher.NewFuzzySearcher does on a reader with fuzzy
// automatons (Scorch's), for an index without synonyms (and with no limit on a disjunction's
// clauses, searcher.DisjunctionMaxClauseCount, which mediagw leaves unset).
func (q fuzzyQuery) candidates(ctx context.Context, r index.IndexReaderFuzzy) (out fuzzyTerms, err error) {
	dict, _, err := r.FieldDictFuzzyAutomaton(q.field, q.term, q.fuzziness, "")
	if err != nil {
		return out, err
	}
	defer func() {
		if cerr := dict.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return fuzzyTerms{}, err
		}
		e, err := dict.Next()
		if err != nil || e == nil {
			return out, err
		}
		out.terms = append(out.terms, e.Term)
		out.distances = append(out.distances, e.EditDistance)
	}
}
