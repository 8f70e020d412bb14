package bleve

import (
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"mediagw/search"
)

// textQuery requires every word of text in some searched field and scores an item by
// search.Clauses' rule: for each word the best clause it matches, summed. It reports whether text
// held any term; text with none is no query (nil).
func textQuery(m mapping.IndexMapping, text string) (query.Query, bool) {
	var words []query.Query
	for _, w := range search.Words(text) {
		if terms := analyze(m, w); len(terms) > 0 {
			words = append(words, wordQuery(terms))
		}
	}
	switch len(words) {
	case 0:
		return nil, false
	case 1:
		return words[0], true
	}
	return query.NewConjunctionQuery(words), true
}

// wordQuery matches the terms of one word (several for CJK bigrams, all in one field) in any
// searched field, exactly or within the typo allowance, scoring the best clause matched.
func wordQuery(terms []string) query.Query {
	dis := make([]query.Query, 0, len(search.Clauses))
	for _, c := range search.Clauses {
		field := textFields[c.Field]
		parts := make([]query.Query, len(terms))
		typo := false
		for i, t := range terms {
			if n := search.TypoAllowance(t); c.Typo && n > 0 {
				fq := query.NewFuzzyQuery(t)
				fq.SetField(field)
				fq.SetFuzziness(n)
				parts[i], typo = fq, true
				continue
			}
			tq := query.NewTermQuery(t)
			tq.SetField(field)
			parts[i] = tq
		}
		if c.Typo && !typo {
			// No term may differ: the clause would match as the exact one, which scores more.
			continue
		}
		match := parts[0]
		if len(parts) > 1 {
			match = query.NewConjunctionQuery(parts)
		}
		dis = append(dis, constantScore(match, clauseCode(c.Score)))
	}
	return query.NewCustomScoreQueryWithScorer(query.NewDisjunctionQuery(dis), bestClause, nil, nil)
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

// bestClause turns a word's disjunction score into the best clause's score (see codeBase).
func bestClause(_ context.Context, d *bsearch.DocumentMatch) (float64, error) {
	for r := len(clauseScores) - 1; r > 0; r-- {
		if d.Score >= math.Pow(codeBase, float64(r))/maxClauses {
			return clauseScores[r], nil
		}
	}
	return clauseScores[0], nil
}

// constantScore scores every match of q at score.
func constantScore(q query.Query, score float64) query.Query {
	return query.NewCustomScoreQueryWithScorer(q, func(context.Context, *bsearch.DocumentMatch) (float64, error) {
		return score, nil
	}, nil, nil)
}
