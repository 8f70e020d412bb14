package elastic

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"

	gojson "github.com/goccy/go-json"

	"mediagw/search"
)

// Facets on the engines: disjunctive facets as filter aggregations beside the hits (the filters
// some asked facet ignores move to post_filter), or in searches of their own beside the page's for
// a search without text (facetsApart).

// facetFields are the keyword fields the facets count. The year is a field of its own
// (Document.Year) rather than a date_histogram over the date, which would round each match's date.
var facetFields = map[search.Facet]string{
	search.FacetType: "type", search.FacetCategory: "category", search.FacetLanguage: "language", search.FacetYear: "year",
	search.FacetLicense: "media_license.id", search.FacetFormat: "format", search.FacetDuration: "duration",
}

// maxFacetTerms is how many values of a facet each shard counts: more than any facet has, so
// the top search.MaxFacetValues the engine keeps, in the contract's order, have exact counts.
const maxFacetTerms = 10_000

// facetAggs are the aggregations of q's facets: each over q's text and every other filter of q.
// Beside the hits (searchBody), q holds only the filters its facets ignore; the query holds the
// others, and post_filter gives the hits and the total every filter.
// Facets whose other filters are the same (with a type filter: the category, language and year
// facets) count under one filter aggregation, which finds their items once instead of once each.
// A facet with no other filter counts at the top level, with no filter aggregation to test each match.
func facetAggs(q *search.Query) obj {
	aggs := obj{}
	for _, g := range facetGroups(q) {
		// The text is the query's, shared by every aggregation.
		if len(g.filters) == 0 {
			maps.Copy(aggs, facetAggsOf(g.facets))
			continue
		}
		aggs["filtered_"+g.facets[0].String()] = obj{"filter": obj{"bool": obj{"filter": g.filters}}, "aggs": facetAggsOf(g.facets)}
	}
	return aggs
}

// facetAggsOf are the terms aggregations of facets, each named after its facet.
func facetAggsOf(facets []search.Facet) obj {
	aggs := make(obj, len(facets))
	for _, f := range facets {
		aggs["facet_"+f.String()] = facetTerms(f)
	}
	return aggs
}

// facetTerms is the terms aggregation of f's values, in the contract's order.
func facetTerms(f search.Facet) obj {
	return obj{"terms": obj{"field": facetFields[f], "size": search.MaxFacetValues, "shard_size": maxFacetTerms,
		"order": []any{obj{"_count": "desc"}, obj{"_key": "asc"}}}}
}

// facetBuckets are the buckets of one facet's values.
type facetBuckets struct {
	Buckets []struct {
		Key   string `json:"key"`
		Count int    `json:"doc_count"`
	} `json:"buckets"`
}

// facetAnswer is the aggregations part of an answer with facets: each facet's buckets by
// facetAggs' name for it, whether counted at the top level or in a filter aggregation.
type facetAnswer map[string]facetBuckets

// UnmarshalJSON reads the facets out of the aggregations, those of the filter aggregations too,
// with go-json as decodeBody reads the rest of the answer.
func (a *facetAnswer) UnmarshalJSON(data []byte) error {
	var aggs map[string]json.RawMessage
	if err := gojson.Unmarshal(data, &aggs); err != nil {
		return err
	}
	*a = make(facetAnswer, len(aggs))
	return a.add(aggs)
}

// add decodes the facets among aggs, and those of the filter aggregations among them.
func (a facetAnswer) add(aggs map[string]json.RawMessage) error {
	for name, raw := range aggs {
		switch {
		case strings.HasPrefix(name, "facet_"):
			var fb facetBuckets
			if err := gojson.Unmarshal(raw, &fb); err != nil {
				return fmt.Errorf("aggregation %s: %w", name, err)
			}
			a[name] = fb
		case strings.HasPrefix(name, "filtered_"):
			var sub map[string]json.RawMessage
			if err := gojson.Unmarshal(raw, &sub); err != nil {
				return fmt.Errorf("aggregation %s: %w", name, err)
			}
			if err := a.add(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// facets reads q's facets out of an answer, naming categories as Categories names them; index
// is the index that answered, "" when unknown.
func (b *Backend) facets(ctx context.Context, q *search.Query, a facetAnswer, index string) (map[search.Facet][]search.FacetValue, error) {
	out := make(map[search.Facet][]search.FacetValue, len(search.Facets))
	for _, f := range q.Facets.All() {
		buckets := a["facet_"+f.String()].Buckets
		values := []search.FacetValue{}
		for _, bk := range buckets {
			values = append(values, search.FacetValue{Value: bk.Key, Count: bk.Count})
		}
		out[f] = search.TopFacetValues(values)
	}
	if cats := out[search.FacetCategory]; len(cats) > 0 {
		slugs := make([]string, len(cats))
		for i, c := range cats {
			slugs[i] = c.Value
		}
		names, err := b.categoryNames(ctx, index, slugs)
		if err != nil {
			return nil, err
		}
		for i := range cats {
			cats[i].Name = names[cats[i].Value]
		}
	}
	return out, nil
}

// nameCache holds the category names of the index that answered last. An index never changes
// once live (a load builds a new one), and naming a category costs a request over all its items,
// more than the facets themselves.
type nameCache struct {
	mu    sync.Mutex
	index string
	names map[string]string
}

// lookup returns the cached names of slugs in index and the slugs it does not know.
func (c *nameCache) lookup(index string, slugs []string) (map[string]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make(map[string]string, len(slugs))
	var missing []string
	for _, s := range slugs {
		if n, ok := c.names[s]; ok && index == c.index {
			names[s] = n
		} else {
			missing = append(missing, s)
		}
	}
	return names, missing
}

// store remembers names of index, forgetting those of any other index.
func (c *nameCache) store(index string, names map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if index != c.index || c.names == nil {
		c.index, c.names = index, map[string]string{}
	}
	maps.Copy(c.names, names)
}

// categoryNames names the given categories of index over all their items, as Categories does:
// the name most items give, ties to the first in byte order, else one derived from the slug.
func (b *Backend) categoryNames(ctx context.Context, index string, slugs []string) (map[string]string, error) {
	// A page past the last hit must still find the names remembered for its index: naming the
	// categories again costs a search over all their items.
	index, err := b.answeredBy(ctx, index)
	if err != nil {
		return nil, err
	}
	names, missing := b.names.lookup(index, slugs)
	if len(missing) == 0 {
		return names, nil
	}
	body, err := marshal(obj{
		// One hit, to learn which index answered.
		"size":    1,
		"_source": false,
		"sort":    []string{"_doc"},
		"query":   obj{"terms": obj{"category": missing}},
		"aggs": obj{"slugs": obj{
			"terms": obj{"field": "category", "size": len(missing)},
			"aggs": obj{"name": obj{"terms": obj{"field": "category_name", "size": 1,
				"order": []any{obj{"_count": "desc"}, obj{"_key": "asc"}}}}},
		}},
	})
	var a struct {
		answerShards
		Hits struct {
			Hits []struct {
				Index string `json:"_index"`
			} `json:"hits"`
		} `json:"hits"`
		Aggregations struct {
			Slugs struct {
				Buckets []struct {
					Key  string `json:"key"`
					Name struct {
						Buckets []struct {
							Key string `json:"key"`
						} `json:"buckets"`
					} `json:"name"`
				} `json:"buckets"`
			} `json:"slugs"`
		} `json:"aggregations"`
	}
	if err := b.doSearch(ctx, "facet names", body, err, &a); err != nil {
		return nil, err
	}
	found := make(map[string]string, len(missing))
	for _, s := range missing {
		found[s] = search.CategoryName(s)
	}
	for _, bk := range a.Aggregations.Slugs.Buckets {
		if len(bk.Name.Buckets) > 0 {
			found[bk.Key] = bk.Name.Buckets[0].Key
		}
	}
	if len(a.Hits.Hits) > 0 {
		b.names.store(a.Hits.Hits[0].Index, found)
	}
	maps.Copy(names, found)
	return names, nil
}
