package elastic

import (
	"context"
	"strings"
	"unicode/utf8"

	"mediagw/search"
	"mediagw/search/text"
)

// Completions on the engines, from the title's edge n-grams.

// maxPrefixRunes is the longest prefix of a title's term a document holds (Document.TitlePrefixes).
const maxPrefixRunes = 20

// completeBody: every word but the last a whole title word, the last a prefix of one; or (typo)
// a prefix of one within an edit but not a prefix of one as typed: the prefixes the document holds
// (Document.TitlePrefixes) are those within an edit of the last word (search.CompleteTypo).
func completeBody(q string, n int, typo bool) obj {
	words := text.Words(q)
	must := make([]any, 0, len(words))
	var mustNot []any
	for i, w := range words {
		terms := text.Terms(w)
		joined := strings.Join(terms, " ")
		switch {
		case i < len(words)-1:
			must = append(must, obj{"match": obj{"w_title": obj{"query": joined, "operator": "and"}}})
		case typo:
			m := obj{"query": joined, "fuzziness": 1, "max_expansions": completeMaxExpansions}
			m["fuzzy_transpositions"] = true
			must = append(must, obj{"match": obj{"title_prefixes": m}})
			mustNot = append(mustNot, obj{"match": obj{"title_prefixes": obj{"query": joined}}})
		case utf8.RuneCountInString(w) <= maxPrefixRunes || len(terms) != 1:
			must = append(must, obj{"match": obj{"title_prefixes": obj{"query": joined, "operator": "and"}}})
		default:
			// Longer than any prefix held: the exact prefix query, on the term.
			must = append(must, obj{"prefix": obj{"w_title": obj{"value": terms[0]}}})
		}
	}
	filter := obj{"filter": must}
	if mustNot != nil {
		filter["must_not"] = mustNot
	}
	return obj{
		"query": obj{"bool": filter},
		// The index's own order (settings.index.sort): the engine stops at each segment's first n.
		"sort":    []any{obj{"downloads": obj{"order": "desc"}}, obj{"id": obj{"order": "asc"}}},
		"size":    n,
		"_source": []string{"id", "title"},
		// No count of the matches: a count would visit them all.
		"track_total_hits": false,
	}
}

// completeMaxExpansions bounds the title prefixes within an edit of a completion's last word:
// more than a catalogue's titles hold, so that every one counts, as in search/bleve.
const completeMaxExpansions = 1000

// Complete returns the titles holding every word of text, the last as a prefix, most downloaded
// first; then, when those are fewer than n and the last word may differ by an edit
// (search.CompleteTypo), the titles it completes within that edit, most downloaded first. Such a
// completion asks both in one _msearch, which the engine answers at once, rather than the second
// after the first.
func (b *Backend) Complete(ctx context.Context, q string, n int) ([]search.Completion, error) {
	out := []search.Completion{}
	words := text.Words(q)
	if len(words) == 0 || n < 1 {
		return out, nil
	}
	var answers []searchResponse
	if terms := text.Terms(words[len(words)-1]); len(terms) == 1 && search.CompleteTypo(terms[0]) {
		body, err := multiBody([]obj{completeBody(q, n, false), completeBody(q, n, true)})
		both, err := b.doMultiSearch(ctx, "complete", body, err, 2)
		if err != nil {
			return nil, err
		}
		answers = []searchResponse{both[0].searchResponse, both[1].searchResponse}
	} else {
		body, err := marshal(completeBody(q, n, false))
		answers = make([]searchResponse, 1)
		if err := b.doSearch(ctx, "complete", body, err, &answers[0]); err != nil {
			return nil, err
		}
	}
	for _, a := range answers {
		for _, h := range a.Hits.Hits {
			if len(out) == n {
				return out, nil
			}
			out = append(out, search.Completion{Text: h.Source.Title, ID: h.Source.ID})
		}
	}
	return out, nil
}
