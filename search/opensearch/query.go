package opensearch

import (
	"strings"

	"mediagw/search"
)

// maxWindow is OpenSearch's default index.max_result_window: from+size may not pass it.
const maxWindow = 10000

// textFields are the fields the user's text is matched against, with their boosts: a word in the
// title or the author says more about an item than one deep in its description.
var textFields = []string{"title^3", "author.text^2", "tags^2", "keywords^1.5", "summary^1.5", "description"}

// obj is a JSON object in a request body.
type obj = map[string]any

// searchBody is the request body of a search: one bool query with the filters in filter context
// (cached, unscored) and the text, if any, in a multi_match that never parses query syntax.
func searchBody(q search.Query) obj {
	page, perPage := max(q.Page, 1), q.PerPage
	if perPage <= 0 {
		perPage = 20
	}
	from := (page - 1) * perPage
	size := perPage
	if from+size > maxWindow {
		// The engine refuses a window past maxWindow; the API never asks for one, but a page
		// there must still say how many items match.
		size = max(maxWindow-from, 0)
		if size == 0 {
			from = 0
		}
	}
	body := obj{
		"query":            obj{"bool": boolQuery(q)},
		"sort":             sortClauses(q),
		"from":             from,
		"size":             size,
		"track_total_hits": true,
	}
	return body
}

func boolQuery(q search.Query) obj {
	filters := []any{}
	for _, f := range []struct{ field, value string }{
		{"type", q.Type}, {"category", q.Category}, {"author", q.Author}, {"language", q.Language},
	} {
		if f.value != "" {
			filters = append(filters, obj{"term": obj{f.field: f.value}})
		}
	}
	if q.From != "" || q.To != "" {
		r := obj{"format": "yyyy-MM-dd"}
		if q.From != "" {
			r["gte"] = q.From
		}
		if q.To != "" {
			r["lte"] = q.To
		}
		filters = append(filters, obj{"range": obj{"date": r}})
	}
	b := obj{"filter": filters}
	if text := strings.TrimSpace(q.Text); text != "" {
		b["must"] = []any{obj{"multi_match": obj{
			"query": text,
			// best_fields, since cross_fields cannot be fuzzy; the tie breaker still rewards
			// an item that matches in several fields.
			"type":        "best_fields",
			"fields":      textFields,
			"fuzziness":   "AUTO",
			"tie_breaker": 0.3,
			"operator":    "or",
		}}}
	}
	return b
}

// sortClauses is the contract's total order for q: every order ends with id ascending, and items
// without a date come last in both date orders.
func sortClauses(q search.Query) []any {
	dateDesc := obj{"date": obj{"order": "desc", "missing": "_last"}}
	dateAsc := obj{"date": obj{"order": "asc", "missing": "_last"}}
	byID := obj{"id": obj{"order": "asc"}}
	s := q.Sort
	if s == "" {
		s = search.SortNewest
		if strings.TrimSpace(q.Text) != "" {
			s = search.SortRelevance
		}
	}
	switch s {
	case search.SortRelevance:
		if strings.TrimSpace(q.Text) == "" {
			// Without text every score is equal: the order is newest.
			return []any{dateDesc, byID}
		}
		return []any{obj{"_score": obj{"order": "desc"}}, dateDesc, byID}
	case search.SortOldest:
		return []any{dateAsc, byID}
	case search.SortDownloads:
		return []any{obj{"downloads": obj{"order": "desc"}}, dateDesc, byID}
	case search.SortAZ:
		return []any{obj{"title_sort": obj{"order": "asc"}}, byID}
	default:
		return []any{dateDesc, byID}
	}
}
