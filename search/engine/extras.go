package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"mediagw/search"
	"mediagw/search/text"
)

// The search-box extras on OpenSearch: disjunctive facets as filter aggregations beside the hits
// (the filters some asked facet ignores move to post_filter), or in searches of their own beside
// the page's for a search without text (facetsApart), completions on the title's edge n-grams,
// related items by more_like_this, and a correction's totals by filters aggregations in one call
// (its candidates come from search/spell, of the words Backend.Words lists).

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
func facetAggs(q search.Query) obj {
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
func (b *Backend) facets(ctx context.Context, q search.Query, a facetAnswer, index string) (map[search.Facet][]search.FacetValue, error) {
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
		"query":   obj{"bool": filter},
		"sort":    []any{obj{"downloads": obj{"order": "desc"}}, obj{"id": obj{"order": "asc"}}},
		"size":    n,
		"_source": []string{"id", "title"},
		// No count of the matches: the engine then skips those whose downloads cannot reach the
		// first n from the start, instead of after counting 10,000.
		"track_total_hits": false,
	}
}

// completeMaxExpansions bounds the title prefixes within an edit of a completion's last word:
// more than a catalogue's titles hold, so that every one counts, as in search/bleve.
const completeMaxExpansions = 1000

// Complete returns the titles holding every word of text, the last as a prefix, most downloaded
// first; then, when those are fewer than n and the last word may differ by an edit
// (search.CompleteTypo), the titles it completes within that edit, most downloaded first.
func (b *Backend) Complete(ctx context.Context, q string, n int) ([]search.Completion, error) {
	out := []search.Completion{}
	words := text.Words(q)
	if len(words) == 0 || n < 1 {
		return out, nil
	}
	terms := text.Terms(words[len(words)-1])
	for _, typo := range []bool{false, true} {
		if typo && (len(terms) != 1 || !search.CompleteTypo(terms[0])) {
			break
		}
		body, err := marshal(completeBody(q, n-len(out), typo))
		var resp searchResponse
		if err := b.doSearch(ctx, "complete", body, err, &resp); err != nil {
			return nil, err
		}
		for _, h := range resp.Hits.Hits {
			out = append(out, search.Completion{Text: h.Source.Title, ID: h.Source.ID})
		}
		if len(out) == n {
			break
		}
	}
	return out, nil
}

// Related returns the items most like the item: more_like_this on its title, tags and keywords,
// or the same category or author; never the item itself.
func (b *Backend) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	it, err := b.Item(ctx, id)
	if err != nil {
		return nil, err
	}
	should := []any{obj{"more_like_this": obj{
		"fields":               []string{"w_title", "w_tags", "w_keywords"},
		"like":                 []any{obj{"_id": id}},
		"min_term_freq":        1,
		"min_doc_freq":         1,
		"max_query_terms":      25,
		"minimum_should_match": "1",
	}}}
	if it.Category != "" {
		should = append(should, obj{"term": obj{"category": obj{"value": it.Category, "boost": 0.5}}})
	}
	if it.Author != "" {
		should = append(should, obj{"term": obj{"author": obj{"value": it.Author, "boost": 1}}})
	}
	body, err := marshal(obj{
		"query": obj{"bool": obj{"should": should, "minimum_should_match": 1,
			"must_not": []any{obj{"term": obj{"id": id}}}}},
		"sort": []any{obj{"_score": obj{"order": "desc"}}, obj{"id": obj{"order": "asc"}}},
		// Always the same number of hits, cut to n below: the engine skips the items that cannot
		// reach the top size, and adds up the others' scores in an order that depends on size,
		// so alike items' scores could differ in the last bit and swap places, and n=3 would not
		// be the first 3 of n=10. (Scoring every match instead costs twice as much.)
		"size":             max(n, search.MaxPerPage),
		"track_total_hits": false,
	})
	var resp searchResponse
	if err := b.doSearch(ctx, "related", body, err, &resp); err != nil {
		return nil, err
	}
	hits := resp.Hits.Hits[:min(n, len(resp.Hits.Hits))]
	out := make([]search.Item, len(hits))
	for i, h := range hits {
		out[i] = h.item()
	}
	return out, nil
}

// Totals counts the alternatives of q in one search of no hits: the query's filters, and under
// them one filter aggregation per word replaced, matching the other words, whose filters
// aggregation has a bucket per alternative, matching its new word (countQuery). The search
// matches only the items some bucket counts, so that the aggregations look at those alone, not
// at every item the filters let through.
func (b *Backend) Totals(ctx context.Context, q search.Query, alts []search.Alternative, m search.Matches) ([]int, error) {
	words := text.Words(q.Text)
	base := q
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
	query := boolQuery(base)
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
