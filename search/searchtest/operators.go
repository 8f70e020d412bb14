package searchtest

import (
	"slices"
	"testing"

	"mediagw/search"
	"mediagw/search/text"
)

// The operators' model: a phrase matches an item that holds its terms side by side, in order,
// within one value of one searched field, exactly; an exclusion leaves out every item its phrase
// matches. The words outside the operators match as the rest of the suite holds them to.

// holdsPhrase reports whether a value of a searched field of it holds terms side by side.
func holdsPhrase(it search.Item, terms []string) bool {
	for _, v := range searched(it) {
		toks := text.IndexTerms(v)
		for i := 0; i+len(terms) <= len(toks); i++ {
			if slices.EqualFunc(toks[i:i+len(terms)], terms, func(t text.Token, term string) bool { return t.Term == term }) {
				return true
			}
		}
	}
	return false
}

// withOperators is what passes q's phrases and exclusions among found, the items its words and
// filters find.
func withOperators(found []search.Item, q search.Query) []string {
	var out []string
	for _, it := range found {
		ok := true
		for _, p := range q.Phrases.Terms() {
			ok = ok && holdsPhrase(it, p)
		}
		for _, p := range q.Exclude.Terms() {
			ok = ok && !holdsPhrase(it, p)
		}
		if ok {
			out = append(out, it.ID)
		}
	}
	return out
}

// phrases is the Phrases of ss.
func phrases(ss ...string) search.Phrases {
	var p search.Phrases
	for _, s := range ss {
		p = p.With(s)
	}
	return p
}

func testOperators(t *testing.T, b search.Backend, items []search.Item) {
	byID := map[string]search.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	tests := []struct {
		name             string
		q                search.Query
		min, max         int
		mustHave, absent []string
	}{
		{"phrase", search.Query{Phrases: phrases("Pride and Prejudice")}, 2, 2, []string{"pg-pride", "pg-pride-b"}, nil},
		{"phrase in another order", search.Query{Phrases: phrases("prejudice and pride")}, 0, 0, nil, nil},
		{"phrase of words apart", search.Query{Phrases: phrases("marsh birds")}, 1, 1, []string{"do-nature"}, []string{"vi-nature"}},
		{"phrase in the summary", search.Query{Phrases: phrases("lighthouse keeper")}, 1, 1, []string{"ph-summary"}, nil},
		{"phrase across punctuation and case", search.Query{Phrases: phrases("walking the dog")}, 4, 4, []string{"ph-tate-3"}, nil},
		{"phrase never spans two values of a list", search.Query{Phrases: phrases("harbour sunset")}, 0, 0, nil, []string{"ph-full"}},
		{"phrase within a value of a list", search.Query{Phrases: phrases("england fiction")}, 1, 1, []string{"pg-pride"}, nil},
		{"phrase has no typo allowance", search.Query{Phrases: phrases("pride and prejudise")}, 0, 0, nil, nil},
		{"one-word phrase is exact", search.Query{Phrases: phrases("harbor")}, 0, 0, nil, nil},
		{"CJK phrase", search.Query{Phrases: phrases("機械学習")}, 1, 1, []string{"vi-pyconjp"}, nil},
		{"CJK phrase inside a run", search.Query{Phrases: phrases("生門")}, 1, 1, []string{"pg-rashomon"}, nil},
		{"two phrases", search.Query{Phrases: phrases("the harbour", "boats coming")}, 1, 1, []string{"ph-full"}, nil},
		{"words and a phrase", search.Query{Text: "dog", Phrases: phrases("walking the")}, 4, 4, nil, nil},
		{"a word with a typo and a phrase", search.Query{Text: "harbur", Phrases: phrases("at night")}, 1, 1, []string{"ph-nodate-1"}, nil},
		{"exclusion", search.Query{Text: "harbour", Exclude: phrases("night")}, 2, 2, []string{"ph-full"}, []string{"ph-nodate-1"}},
		{"exclusion has no typo allowance", search.Query{Text: "harbour", Exclude: phrases("nigth")}, 3, 3, nil, nil},
		{"exclusion of a phrase", search.Query{Text: "pride", Exclude: phrases("another release")}, 1, 1, []string{"pg-pride"}, []string{"pg-pride-b"}},
		{"exclusion of words apart leaves them", search.Query{Text: "birds", Exclude: phrases("birds marsh")}, 2, 2, nil, nil},
		{"exclusion in a list's value", search.Query{Text: "pride", Exclude: phrases("england fiction")}, 1, 1, []string{"pg-pride-b"}, nil},
		{"only exclusions list every other item", search.Query{Exclude: phrases("untitled", "harbour")}, 60, len(items), nil, []string{"ut-a", "vi-nolang", "ph-full"}},
		{"exclusion of what a phrase finds", search.Query{Phrases: phrases("lightning talks"), Exclude: phrases("five")}, 0, 0, nil, nil},
		{"operators with filters", search.Query{Text: "harbour", Exclude: phrases("fog"), Type: search.TypePhoto, To: "2030-01-01"}, 1, 1, []string{"ph-full"}, nil},
		{"phrase of punctuation only is no phrase", search.Query{Text: "harbour", Phrases: phrases("-- !")}, 3, 3, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.Sort = search.SortNewest
			words := q
			words.Phrases, words.Exclude = "", ""
			var found []search.Item
			if words.Text != "" {
				found, _ = walk(t, b, words, 50)
			} else {
				for _, id := range expected(items, words) {
					found = append(found, byID[id])
				}
			}
			want := withOperators(found, q)
			if len(want) < tt.min || len(want) > tt.max {
				t.Fatalf("model: %s %q -%q finds %d items, the case needs %d to %d", describe(q), q.Phrases, q.Exclude, len(want), tt.min, tt.max)
			}
			for _, id := range tt.mustHave {
				if !slices.Contains(want, id) {
					t.Fatalf("model: %s %q -%q misses %s", describe(q), q.Phrases, q.Exclude, id)
				}
			}
			for _, id := range tt.absent {
				if slices.Contains(want, id) {
					t.Fatalf("model: %s %q -%q finds %s", describe(q), q.Phrases, q.Exclude, id)
				}
			}
			got, total := walk(t, b, q, 7)
			if total != len(want) {
				t.Errorf("Search(%s %q -%q): total %d, want %d", describe(q), q.Phrases, q.Exclude, total, len(want))
			}
			sameIDs(t, describe(q), ids(got), want)

			if !q.Searches() {
				return
			}
			// By relevance the same items, in pages that agree with one another.
			q.Sort = search.SortRelevance
			whole, _ := walk(t, b, q, 50)
			paged, _ := walk(t, b, q, 3)
			sameIDs(t, describe(q)+" in pages of 3", ids(paged), ids(whole))
			sorted := slices.Sorted(slices.Values(ids(whole)))
			sameIDs(t, describe(q)+" by relevance", sorted, slices.Sorted(slices.Values(want)))
		})
	}
}
