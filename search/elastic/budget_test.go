package elastic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// manySynonyms searches every word as itself and 15 more, and pins ids for every text.
type manySynonyms struct{ ids []string }

func (manySynonyms) Alternatives(w string) []string {
	out := []string{w}
	for i := range 15 {
		out = append(out, fmt.Sprintf("%s%c", w, 'a'+i))
	}
	return out
}

func (c manySynonyms) Pinned(string) []string { return c.ids }

// leaves counts the leaf queries of an encoded query as Lucene counts them (every leaf of nested
// bools): each term of a match, each phrase, term, range and match_none.
func leaves(v any) int {
	switch v := v.(type) {
	case []any:
		n := 0
		for _, x := range v {
			n += leaves(x)
		}
		return n
	case map[string]any:
		n := 0
		for k, x := range v {
			switch k {
			case "match":
				for _, m := range x.(map[string]any) {
					n += max(1, len(strings.Fields(m.(map[string]any)["query"].(string))))
				}
			case "match_phrase", "term", "range", "match_none":
				n++
			case "sort", "aggs", "post_filter":
			default:
				n += leaves(x)
			}
		}
		return n
	}
	return 0
}

// TestRequestsKeepTheBudget: the search request the engine gets holds at most search.MaxClauses
// leaf queries, below every engine line's limit (1,024), whatever the search.
func TestRequestsKeepTheBudget(t *testing.T) {
	ids := make([]string, 1100)
	for i := range ids {
		ids[i] = fmt.Sprintf("item-%d", i)
	}
	var words []string
	for i := range 28 {
		words = append(words, fmt.Sprintf("w%02dxyz", i))
	}
	for _, tt := range []struct {
		name  string
		q     search.Query
		rules search.Curation
	}{
		{"190 random CJK ideographs", search.Query{Text: searchtest.Ideographs(1, 190)}, nil},
		{"200 hiragana", search.Query{Text: searchtest.Hiragana(1, search.MaxTextRunes)}, nil},
		{"28 typo words", search.Query{Text: strings.Join(words, " ")}, nil},
		{"28 words of 16 synonyms", search.Query{Text: strings.Join(words, " ")}, manySynonyms{}},
		{"a pin line of 1,100 ids", search.Query{Text: "winter"}, manySynonyms{ids: ids}},
		{"phrases, exclusions and filters", search.Query{Text: strings.Join(words[:10], " "), Type: "photo", Author: "x", From: "2001-01-01",
			Phrases: search.Phrases("").With("winter harbour").With(searchtest.Ideographs(2, 50)), Exclude: search.Phrases("").With("snow")}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.Sort, q.Page, q.PerPage = search.SortRelevance, 1, 10
			encoded, err := searchBodyUnder(q, tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(encoded, &body); err != nil {
				t.Fatal(err)
			}
			n := leaves(body["query"])
			if n > search.MaxClauses {
				t.Errorf("the request holds %d leaf queries, past %d", n, search.MaxClauses)
			}
			r := search.NewRequest(q)
			r.Curation = tt.rules
			if p := r.Plan(); n != p.Clauses {
				t.Errorf("the request holds %d leaf queries, the plan counts %d", n, p.Clauses)
			}
		})
	}
}
