package opensearch

import (
	"encoding/json"

	"mediagw/search"
)

// The request bodies the backend sends, exported so a load harness can send the very same
// requests straight to the engine and compare.

// CompositePageSize is how many buckets one page of the categories or authors aggregation asks for;
// a page with fewer buckets, or without an after_key, is the last. Pages are large because each
// is a round trip: 100,000 authors take 10 instead of 100. The engine's search.max_buckets
// (65,535 by default) bounds it, and the categories count two buckets per category.
const CompositePageSize = 10000

// SearchRequest is the JSON body Search sends to <alias>/_search for q.
func SearchRequest(q search.Query) ([]byte, error) { return json.Marshal(searchBody(q)) }

// ItemRequest is the JSON body Item sends to <alias>/_search for id: a search on the id field.
func ItemRequest(id string) ([]byte, error) {
	return json.Marshal(obj{
		"query":            obj{"bool": obj{"filter": []any{obj{"term": obj{"id": id}}}}},
		"size":             1,
		"track_total_hits": false,
	})
}

// CategoriesRequest is the JSON body of one page of the Categories aggregation; after is the
// previous page's after_key, nil for the first page.
func CategoriesRequest(after map[string]any) ([]byte, error) {
	return categoriesRequest(after, CompositePageSize)
}

func categoriesRequest(after map[string]any, size int) ([]byte, error) {
	// The name is the one most items of the category carry.
	subs := obj{"name": obj{"terms": obj{"field": "category_name", "size": 1}}}
	return json.Marshal(compositeBody("category", size, after, subs))
}

// AuthorsRequest is the JSON body of one page of the Authors aggregation; after is the previous
// page's after_key, nil for the first page.
func AuthorsRequest(after map[string]any) ([]byte, error) {
	return authorsRequest(after, CompositePageSize)
}

func authorsRequest(after map[string]any, size int) ([]byte, error) {
	return json.Marshal(compositeBody("author", size, after, nil))
}
