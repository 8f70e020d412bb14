package elastic

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"mediagw/search"
	"mediagw/search/text"
)

// A correction's totals on the engines, by filters aggregations in one call (its candidates come
// from search/spell, of the words Backend.Words lists).

// Totals counts the alternatives of r in one search of no hits: the query's filters, and under
// them one filter aggregation per word replaced, matching the other words, whose filters
// aggregation has a bucket per alternative, matching its new word (countQuery). The search
// matches only the items some bucket counts, so that the aggregations look at those alone, not
// at every item the filters let through.
func (b *Backend) Totals(ctx context.Context, r *search.Request, alts []search.Alternative, m search.Matches) ([]int, error) {
	words := r.Words()
	base := r.Query
	base.Text = ""
	aggs := obj{}
	type slot struct{ agg, bucket int }
	slots := make([]slot, len(alts))
	var replaced []string
	buckets := map[string][]any{}
	for i, a := range alts {
		k := slices.Index(replaced, a.Word)
		if k < 0 {
			k = len(replaced)
			replaced = append(replaced, a.Word)
		}
		slots[i] = slot{k, len(buckets[a.Word])}
		buckets[a.Word] = append(buckets[a.Word], countQuery(a.With, m))
	}
	counted := make([]any, len(replaced))
	for k, w := range replaced {
		rest := []any{}
		for _, x := range words {
			if x != w {
				rest = append(rest, countQuery(x, m))
			}
		}
		aggs[strconv.Itoa(k)] = obj{
			"filter": obj{"bool": obj{"filter": rest}},
			"aggs":   obj{"alts": obj{"filters": obj{"filters": buckets[w]}}},
		}
		counted[k] = obj{"bool": obj{"filter": append(rest, obj{"bool": obj{"should": buckets[w]}})}}
	}
	query := boolQuery(r.With(base))
	query["filter"] = append(query["filter"].([]any), obj{"bool": obj{"should": counted}})
	body, err := marshal(obj{
		"size": 0, "track_total_hits": false,
		"query": obj{"bool": query},
		"aggs":  aggs,
	})
	var a struct {
		answerShards
		Aggregations map[string]struct {
			Alts struct {
				Buckets []struct {
					DocCount int `json:"doc_count"`
				} `json:"buckets"`
			} `json:"alts"`
		} `json:"aggregations"`
	}
	if err := b.doSearch(ctx, "totals", body, err, &a); err != nil {
		return nil, err
	}
	out := make([]int, len(alts))
	for i, s := range slots {
		bs := a.Aggregations[strconv.Itoa(s.agg)].Alts.Buckets
		if s.bucket >= len(bs) {
			return nil, fmt.Errorf("%s totals: %d buckets for word %d, want %d", b.name(), len(bs), s.agg, s.bucket+1)
		}
		out[i] = bs[s.bucket].DocCount
	}
	return out, nil
}

// countMaxExpansions bounds the indexed words a countQuery's typo allowance matches in "words":
// all of a word's neighbours, as the search's clauses may each match a different 50 in their
// own fields; as many as search/spell lists at most (spell.MaxMatches), beyond which it leaves a
// word to this expansion.
const countMaxExpansions = 1000

// countQuery matches the items wordQuery(w) matches, without scoring them: a word of one term
// matches in any searched field exactly or within its allowance, which is to match it so in
// "words", the copy of every searched field. Its matches in m are those terms: listed, they spare
// the engine expanding the allowance itself (same counts); else one fuzzy query where the search
// has six. A word of several terms (CJK) must have them all in one field: wordQuery.
func countQuery(w string, m search.Matches) any {
	terms := text.Terms(w)
	if len(terms) != 1 {
		return wordQuery(terms, nil, true)
	}
	if matched, ok := m[w]; ok {
		return obj{"terms": obj{"words": matched}}
	}
	q := obj{"query": terms[0]}
	rule := typoRule
	rule.MaxExpansions = countMaxExpansions
	rule.set(q)
	return obj{"match": obj{"words": q}}
}
