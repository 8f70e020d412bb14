package elastic

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	gojson "github.com/goccy/go-json"

	"mediagw/search"
)

// SearchRequest is what Search sends to the engine for a query: rendered once by NewSearchRequest,
// which a load harness (bench) calls too to send the very same request straight to the engine.
type SearchRequest struct {
	// Body is the JSON body of a search of <alias>/_search, or, when Searches > 0, the body of an
	// <alias>/_msearch of the page's search and its facets' (facetsApart).
	Body []byte
	// Searches is the number of searches in an _msearch body; 0 for a _search's.
	Searches int
	// walk is the query's walk and walking whether it is one (search.Request.Walk).
	walk    search.Cursor
	walking bool
}

// NewSearchRequest renders r, the request of a normalized query (the query codec's,
// search.Query.Normalize), as the engine's request. A walk's cursor that does not fit the query is
// an error wrapping search.ErrCursorInvalid.
func NewSearchRequest(r *search.Request) (SearchRequest, error) {
	cur, walking, err := walkOf(r)
	if err != nil {
		return SearchRequest{}, err
	}
	body, searches, err := searchRequest(r, cur)
	if err != nil {
		return SearchRequest{}, err
	}
	return SearchRequest{Body: body, Searches: searches, walk: cur, walking: walking}, nil
}

// searchRequest is the body of r's search and the number of searches in it when
// it is an _msearch's (0 when not): the page's first, then its facets'.
func searchRequest(r *search.Request, cur search.Cursor) ([]byte, int, error) {
	if !facetsApart(&r.Query) {
		body, err := marshal(pageBody(r, cur))
		return body, 0, err
	}
	searches := append([]obj{pageBody(r, cur)}, facetsBodies(&r.Query)...)
	body, err := multiBody(searches)
	return body, len(searches), err
}

// multiBody is the body of an _msearch of the alias holding searches, in order.
func multiBody(searches []obj) ([]byte, error) {
	var buf bytes.Buffer
	for _, s := range searches {
		part, err := marshal(s)
		if err != nil {
			return nil, err
		}
		// Each search is a line of parameters, none here (the path names the alias), then its
		// body on one line.
		buf.WriteString("{}\n")
		buf.Write(part)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// marshal encodes a request body with go-json, which writes the bytes encoding/json writes (keys
// sorted, HTML escaped: TestBodiesEncodeAsEncodingJSON) in less time, since encoding bodies (maps
// of maps) is a visible share of the gateway's CPU when the cache is off.
func marshal(v any) ([]byte, error) { return gojson.Marshal(v) }

// walkOf is r's walk (search.Request.Walk), its position checked against its order.
func walkOf(r *search.Request) (search.Cursor, bool, error) {
	cur, walking, err := r.Walk()
	if err == nil && cur.After != nil {
		err = search.CheckAfter(cur.After, sortKinds(&r.Query))
	}
	if err != nil {
		return search.Cursor{}, false, err
	}
	return cur, walking, nil
}

// ItemRequest is the JSON body Item sends to <alias>/_search for id, a search on the id field; a
// load harness sends it straight to the engine too.
func ItemRequest(id string) ([]byte, error) {
	return marshal(obj{
		"query":            obj{"bool": obj{"filter": []any{obj{"term": obj{"id": id}}}}},
		"size":             1,
		"track_total_hits": false,
	})
}

// List names one of the counted lists: the distinct values of a field with the number of items
// holding each.
type List int

// The counted lists.
const (
	// ListCategories counts the category field; each value also gets the category_name most of
	// its items carry.
	ListCategories List = iota
	// ListAuthors counts the author_key field (search.AuthorKey): the engine gives the authors
	// in order.
	ListAuthors
	// ListWords counts the vocabulary field: every word of the searched fields, for the
	// did-you-mean's dictionary (search/spell).
	ListWords
)

func (l List) String() string {
	switch l {
	case ListCategories:
		return "categories"
	case ListAuthors:
		return "authors"
	}
	return "words"
}

// listLimits size the terms requests of a list. A partition asks for up to size values and
// expects about target of them, so that the partitions, which split the values by a hash of each,
// can vary in size without running over. size is bounded by the engine's search.max_buckets
// (65,535 by default), which counts a category twice, for its name.
type listLimits struct{ size, target int }

var defaultLimits = map[List]listLimits{
	ListCategories: {size: 30000, target: 20000},
	ListAuthors:    {size: 60000, target: 40000},
	ListWords:      {size: 60000, target: 40000},
}

// maxSplits is how many times a Counter doubles its partitions when one of them overflows
// (the cardinality was underestimated) before it gives up.
const maxSplits = 4

// TermCount is one value of a counted list.
type TermCount struct {
	Value string
	// Name is the category name most items of a category carry; empty for authors.
	Name  string
	Count int
}

// Counter is the exchange behind a categories, authors or words list, as a sequence of request bodies to
// send to <alias>/_search and answers to give back: first an estimate of the number of distinct
// values, then one terms aggregation per partition of them. A terms aggregation reads each
// document once, where paging a composite aggregation reads them all for every page.
// A partition whose answer left values out (sum_other_doc_count > 0) makes the Counter start
// again with twice the partitions, so every count is exact. The load harness replays the same
// exchange straight to the engine.
type Counter struct {
	list       List
	limits     listLimits
	partitions int // 0 until the estimate is known
	next       int // partition asked for next
	splits     int
	values     []TermCount
	// filters restrict the counted items (filterClauses); none counts every item.
	filters []any
}

// NewCounter starts the exchange for l over every item.
func NewCounter(l List) *Counter { return newCounter(l, defaultLimits[l], search.Query{}) }

// newCounter starts the exchange for l over the items f's filters find.
func newCounter(l List, limits listLimits, f search.Query) *Counter {
	return &Counter{list: l, limits: limits, filters: filterClauses(&f)}
}

// body is a request of no hits with aggs, over the counted items.
func (c *Counter) body(aggs obj) ([]byte, error) {
	b := obj{"size": 0, "track_total_hits": false, "aggs": aggs}
	if len(c.filters) > 0 {
		b["query"] = obj{"bool": obj{"filter": c.filters}}
	}
	return marshal(b)
}

func (c *Counter) field() string {
	switch c.list {
	case ListCategories:
		return "category"
	case ListAuthors:
		return "author_key"
	}
	return "vocabulary"
}

// Request is the body of the next request to send.
func (c *Counter) Request() ([]byte, error) {
	if c.partitions == 0 {
		// 40,000 is the engine's most precise setting: exact below it, within a few percent above.
		return c.body(obj{"values": obj{"cardinality": obj{"field": c.field(), "precision_threshold": 40000}}})
	}
	terms := obj{
		"field":      c.field(),
		"size":       c.limits.size,
		"shard_size": c.limits.size,
		"order":      obj{"_key": "asc"},
	}
	if c.partitions > 1 {
		terms["include"] = obj{"partition": c.next, "num_partitions": c.partitions}
	}
	agg := obj{"terms": terms}
	if c.list == ListCategories && len(c.filters) == 0 {
		// A filtered list's categories are named over all their items (categoryNames), not only those counted.
		agg["aggs"] = obj{"name": obj{"terms": obj{"field": "category_name", "size": 1}}}
	}
	return c.body(obj{"groups": agg})
}

// countsAnswer is the part of an answer to a Counter's request that it reads.
type countsAnswer struct {
	answerShards
	Aggregations struct {
		Values struct {
			Value int `json:"value"`
		} `json:"values"`
		Groups struct {
			SumOtherDocCount int           `json:"sum_other_doc_count"`
			Buckets          []countBucket `json:"buckets"`
		} `json:"groups"`
	} `json:"aggregations"`
}

// countBucket is one value of a countsAnswer with its count (and, for a category, its name).
type countBucket struct {
	Key      string `json:"key"`
	DocCount int    `json:"doc_count"`
	Name     struct {
		Buckets []struct {
			Key string `json:"key"`
		} `json:"buckets"`
	} `json:"name"`
}

// termCount is b as a value of the list.
func (b countBucket) termCount() TermCount {
	tc := TermCount{Value: b.Key, Count: b.DocCount}
	if len(b.Name.Buckets) > 0 {
		tc.Name = b.Name.Buckets[0].Key
	}
	return tc
}

// maxPrealloc bounds the room the estimate makes for a list's values: four times the authors of
// a million items.
const maxPrealloc = 1 << 19

// newAnswer is where to decode the answer to the last Request: with room for the values a
// partition is expected to hold, so that decoding does not copy them again as they come.
func (c *Counter) newAnswer() *countsAnswer {
	a := new(countsAnswer)
	if c.partitions > 0 {
		a.Aggregations.Groups.Buckets = make([]countBucket, 0, min(ceilDiv(cap(c.values), c.partitions), c.limits.size))
	}
	return a
}

// answer takes the decoded answer to the last Request and reports whether the list is complete.
func (c *Counter) answer(a *countsAnswer) (done bool, err error) {
	if c.partitions == 0 {
		n := a.Aggregations.Values.Value
		c.partitions = max(1, ceilDiv(n, c.limits.target))
		// The estimate is within a few percent: room for all of them, appended partition by partition.
		c.values = make([]TermCount, 0, min(n+n/16, maxPrealloc))
		return false, nil
	}
	g := &a.Aggregations.Groups
	if g.SumOtherDocCount > 0 {
		if c.splits == maxSplits {
			return false, fmt.Errorf("%s: still incomplete in %d partitions of %d values", c.list, c.partitions, c.limits.size)
		}
		c.splits++
		c.partitions *= 2
		c.next = 0
		c.values = c.values[:0]
		return false, nil
	}
	// The engine gives a partition in byte order (the request asks for _key asc); one that is not
	// is sorted, so that merging keeps the list in order.
	byKey := func(x, y countBucket) int { return strings.Compare(x.Key, y.Key) }
	if !slices.IsSortedFunc(g.Buckets, byKey) {
		slices.SortFunc(g.Buckets, byKey)
	}
	c.values = mergeInto(c.values, g.Buckets)
	c.next++
	return c.next == c.partitions, nil
}

// Answer takes the body of the answer to the last Request and reports whether the list is
// complete; Values then holds it.
func (c *Counter) Answer(body []byte) (done bool, err error) {
	a := c.newAnswer()
	if err := gojson.Unmarshal(body, a); err != nil {
		return false, fmt.Errorf("%s: decode answer: %w", c.list, err)
	}
	// A partial answer (some shards failed) would pass for a complete list. Its error names the
	// list; the caller, which sent the request, knows the engine.
	if err := a.failure("", c.list.String()); err != nil {
		return false, err
	}
	return c.answer(a)
}

// Values is the complete list, in the byte order of the values.
func (c *Counter) Values() []TermCount { return c.values }

// mergeInto merges a partition's buckets, in byte order, into values, in byte order: from the back,
// in the room the estimate made, each value moved once a partition at most, where sorting the
// whole list again would dominate a long authors list's CPU.
func mergeInto(values []TermCount, buckets []countBucket) []TermCount {
	i := len(values) - 1
	values = slices.Grow(values, len(buckets))[:len(values)+len(buckets)]
	for k, j := len(values)-1, len(buckets)-1; j >= 0; k-- {
		if i >= 0 && values[i].Value > buckets[j].Key {
			values[k] = values[i]
			i--
			continue
		}
		values[k] = buckets[j].termCount()
		j--
	}
	return values
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
