package elastic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"mediagw/search"
)

// maxWindow is OpenSearch's default index.max_result_window: from+size may not pass it.
const maxWindow = 10000

// indexFields names each searched field as the index mapping (mappings/items.json) does.
var indexFields = map[search.Field]string{
	search.FieldTitle:       "w_title",
	search.FieldSummary:     "w_summary",
	search.FieldDescription: "w_description",
	search.FieldTags:        "w_tags",
	search.FieldKeywords:    "w_keywords",
	search.FieldAuthor:      "w_author",
	search.FieldTitleStems:  "s_title",
	search.FieldTextStems:   "s_text",
}

// typoRule is search's typo allowance in OpenSearch's terms, applied to each token of a word as
// search/bleve applies it to each term. A variable only so that the typo-cost harness
// (typocost_test.go) can measure other rules against it without the constants edited.
var typoRule = fuzzyRule{OneTypoFrom: search.OneTypoFrom, TwoTyposFrom: search.TwoTyposFrom}

// fuzzyRule is how a match query is fuzzy: fuzziness AUTO:OneTypoFrom,TwoTyposFrom, and at most
// MaxExpansions terms a fuzzy token expands to in a field (0: the engine's default, 50).
type fuzzyRule struct {
	OneTypoFrom, TwoTyposFrom, MaxExpansions int
}

// set adds the rule's parameters to the match query m.
func (r fuzzyRule) set(m obj) {
	m["fuzziness"] = fmt.Sprintf("AUTO:%d,%d", r.OneTypoFrom, r.TwoTyposFrom)
	// Two adjacent letters swapped are one edit (search.EditsWithin), as in search/bleve: the
	// engines' default, asked for so that no engine line's default can differ.
	m["fuzzy_transpositions"] = true
	if r.MaxExpansions > 0 {
		m["max_expansions"] = r.MaxExpansions
	}
}

func (r fuzzyRule) String() string {
	if r.MaxExpansions > 0 {
		return fmt.Sprintf("%d/%d, max_expansions %d", r.OneTypoFrom, r.TwoTyposFrom, r.MaxExpansions)
	}
	return fmt.Sprintf("%d/%d", r.OneTypoFrom, r.TwoTyposFrom)
}

// obj is a JSON object in a request body.
type obj = map[string]any

// searchBody is the request body of a search: one bool query with the filters in filter context
// (cached, unscored) and the text, if any, in match queries that never parse query syntax.
// A walk's page (its Cursor) starts at the first match; pageBody starts it after its cursor.
func searchBody(r *search.Request) obj {
	q := &r.Query
	page, perPage := q.Page, q.PerPage
	from := (page - 1) * perPage
	size := perPage
	if q.Cursor != "" {
		from = 0
	}
	if from+size > maxWindow {
		// The engine refuses a window past maxWindow; the API never asks for one, but a page
		// there must still say how many items match.
		size = max(maxWindow-from, 0)
		if size == 0 {
			from = 0
		}
	}
	faceted := q.Facets != 0 && !facetsApart(q)
	query, own := r, search.Query{}
	if faceted {
		// Disjunctive facets: the query holds the filters no facet asked for ignores, which the
		// aggregations then never see past (their cost is linear in what they see: an author's
		// filter spares them the text's other matches); each aggregation adds the others but
		// its facet's own, and post_filter gives them to the hits and total.
		var shared search.Query
		shared, own = facetFilters(q)
		query = r.With(shared)
	}
	body := obj{
		"query":            obj{"bool": boolQuery(query)},
		"sort":             sortClauses(q),
		"from":             from,
		"size":             size,
		"track_total_hits": true,
	}
	if faceted {
		if filters := filterClauses(&own); len(filters) > 0 {
			body["post_filter"] = obj{"bool": obj{"filter": filters}}
		}
		body["aggs"] = facetAggs(&own)
	}
	return body
}

// facetFilters parts q's filters by the facets q asks for: shared holds those no such facet
// ignores (an author's, and those of the facets not asked for), own the others; each keeps the
// rest of q.
func facetFilters(q *search.Query) (shared, own search.Query) {
	shared, own = *q, *q
	own.Author = ""
	for _, f := range search.Facets {
		if q.Facets.Has(f) {
			shared = shared.Without(f)
		} else {
			own = own.Without(f)
		}
	}
	return shared, own
}

// pageBody is searchBody of a numbered page or a walk's page, the latter after the position its
// cursor names, if any.
func pageBody(r *search.Request, cur search.Cursor) obj {
	body := searchBody(r)
	if cur.After != nil {
		body["search_after"] = cur.After
	}
	return body
}

// facetsApart reports whether q's facets are counted by searches of their own (facetsBodies),
// sent beside the page's in one _msearch: those of a search without text. The engine's shard
// request cache keeps only the answers of searches of no hits, so the counts of a browse, whose
// filters many visitors repeat, are then counted once for them all. A search with text
// keeps them beside its hits, where its text is matched once for both, and its counts are seldom
// asked for again.
func facetsApart(q *search.Query) bool {
	return q.Facets != 0 && q.Text == "" && q.Phrases == "" && q.Exclude == ""
}

// facetsBodies are the searches of q's facets apart from its hits: no hits, no total, so that the
// engine caches their answers. Facets whose other filters are the same count in one search whose
// query is those filters, which visits their items only, where a filter aggregation visits every
// item; a facet with no other filter counts alone, since the engine takes the counts of a sole
// terms aggregation of every item straight from its term index, and of two or more by visiting
// every item.
func facetsBodies(q *search.Query) []obj {
	var bodies []obj
	for _, g := range facetGroups(q) {
		if len(g.filters) == 0 {
			for _, f := range g.facets {
				bodies = append(bodies, obj{"size": 0, "track_total_hits": false, "aggs": facetAggsOf([]search.Facet{f})})
			}
			continue
		}
		bodies = append(bodies, obj{"size": 0, "track_total_hits": false, "aggs": facetAggsOf(g.facets),
			"query": obj{"bool": obj{"filter": g.filters}}})
	}
	return bodies
}

// facetGroup is facets of a query whose other filters (search.Query.Without) are the same.
type facetGroup struct {
	filters []any
	facets  []search.Facet
}

// facetGroups groups q's facets by their other filters, in the order of q's facets.
func facetGroups(q *search.Query) []facetGroup {
	var groups []facetGroup
	index := map[search.Query]int{}
	for _, f := range q.Facets.All() {
		without := q.Without(f)
		i, ok := index[without]
		if !ok {
			i = len(groups)
			index[without] = i
			groups = append(groups, facetGroup{filters: filterClauses(&without)})
		}
		groups[i].facets = append(groups[i].facets, f)
	}
	return groups
}

func boolQuery(r *search.Request) obj {
	q := &r.Query
	b := obj{"filter": filterClauses(q)}
	plan := r.Plan()
	phrases := q.Phrases.Terms()
	if len(plan.Words) > 0 || len(phrases) > 0 {
		// Every word and every phrase must match, each in any field, as in the embedded index: a
		// query per word or phrase, all of them required.
		must := make([]any, 0, len(plan.Words)+len(phrases))
		for _, alts := range plan.Words {
			must = append(must, synonymsQuery(alts))
		}
		for _, p := range phrases {
			must = append(must, phraseQuery(p))
		}
		// The score adds the item's bonus, stored by the loader (search.Bonus).
		b["must"] = []any{obj{"function_score": obj{
			"query":              obj{"bool": obj{"must": must}},
			"field_value_factor": obj{"field": "bonus", "missing": 0},
			"boost_mode":         "sum",
		}}}
		if pins := pinClauses(plan.Pins); pins != nil {
			b["should"] = pins
		}
	} else if q.Text != "" {
		// Text with nothing searchable in it (only punctuation) matches nothing.
		b["must"] = []any{obj{"match_none": obj{}}}
	}
	if exclude := q.Exclude.Terms(); len(exclude) > 0 {
		var not []any
		for _, p := range exclude {
			for _, f := range search.SearchedFields {
				not = append(not, phraseMatch(f.Field, p))
			}
		}
		b["must_not"] = not
	}
	return b
}

// phraseQuery matches a phrase's terms side by side, in order, within one value of any searched
// field, exactly (the positions the mapping keeps; a list's values lie far apart), scoring the
// best exact clause of search.Clauses it matches, as a word found exactly scores.
func phraseQuery(terms []string) obj {
	var clauses []any
	for _, c := range search.Clauses {
		if !c.Typo && !c.Stem {
			clauses = append(clauses, obj{"constant_score": obj{"filter": phraseMatch(c.Field, terms), "boost": c.Score}})
		}
	}
	return obj{"dis_max": obj{"queries": clauses}}
}

// phraseMatch is the engine's match of terms side by side in f's index field. The terms are
// made already (search.Phrases) and the field's analyzer splits at spaces only, so they reach
// the index unchanged.
func phraseMatch(f search.Field, terms []string) obj {
	return obj{"match_phrase": obj{indexFields[f]: obj{"query": strings.Join(terms, " "), "slop": 0}}}
}

// filterClauses are q's filters, in filter context: cached by the engine, unscored.
func filterClauses(q *search.Query) []any {
	filters := []any{}
	if q.Author != "" {
		filters = append(filters, obj{"term": obj{"author": q.Author}})
	}
	// A list's values are alternatives: one terms query of them.
	for _, f := range []struct {
		field string
		list  search.List
	}{
		{"type", q.Type}, {"category", q.Category}, {"language", q.Language},
		{"media_license.id", q.License}, {"format", q.Format}, {"duration", q.Duration},
	} {
		switch vs := f.list.Values(); len(vs) {
		case 0:
		case 1:
			filters = append(filters, obj{"term": obj{f.field: vs[0]}})
		default:
			filters = append(filters, obj{"terms": obj{f.field: vs}})
		}
	}
	// Every use and every part named is required: a term query each.
	for _, v := range q.Reuse.Values() {
		filters = append(filters, obj{"term": obj{"media_license." + v: true}})
	}
	for _, v := range q.Has.Values() {
		filters = append(filters, obj{"term": obj{"has": v}})
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
	return filters
}

// synonymsQuery matches one word searched as each of its alternatives (search.Plan) and their
// stems: the best of them scores.
func synonymsQuery(alts []search.Variant) json.RawMessage {
	if len(alts) == 1 {
		return wordQuery(alts[0].Terms, alts[0].Stems, alts[0].Typo)
	}
	queries := make([]json.RawMessage, len(alts))
	for i, a := range alts {
		queries[i] = wordQuery(a.Terms, a.Stems, a.Typo)
	}
	b, err := marshal(obj{"dis_max": obj{"queries": queries}})
	if err != nil {
		panic(fmt.Sprintf("encode a word's synonyms: %v", err)) // encoded queries always encode
	}
	return b
}

// pinClauses add search.PinBoost to the pinned items ids (search.Plan's, of a search by
// relevance), nil when there are none: optional clauses, which score and never filter.
func pinClauses(ids []string) []any {
	if len(ids) == 0 {
		return nil
	}
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = obj{"constant_score": obj{"filter": obj{"term": obj{"id": id}}, "boost": search.PinBoost(i, len(ids))}}
	}
	return out
}

// wordQuery matches one word of the text in any searched field, exactly or (typo) within the typo
// allowance, or as one of its stems in a stem field, scoring the best of search.Clauses it
// matches: constant scores under dis_max, so the engine's score is the rule's sum, not BM25's, as
// in search/bleve. A word may have several terms (CJK bigrams, search/text.Terms); those must all
// be in the one field that matches.
//
// It is wordClauses of w's terms and stems, encoded. The clauses differ from word to word only by
// those, so they are encoded once (wordTemplate) and the terms and stems set between their parts,
// rather than building and encoding every clause's objects per word (BenchmarkSearchRequest).
func wordQuery(termsOfW, stems []string, typo bool) json.RawMessage {
	cached := &wordTemplates[b2i(typo)][b2i(len(stems) > 0)]
	t := cached.Load()
	if t == nil || t.rule != typoRule {
		t = newWordTemplate(typoRule, typo, len(stems) > 0)
		cached.Store(t)
	}
	terms, err := marshal(strings.Join(termsOfW, " "))
	encodedStems, serr := marshal(strings.Join(stems, " "))
	if err != nil || serr != nil {
		panic(fmt.Sprintf("encode the terms %q and stems %q: %v, %v", termsOfW, stems, err, serr)) // strings always encode
	}
	var b []byte
	for i, p := range t.parts {
		b = append(b, p...)
		if i < len(t.stems) {
			if t.stems[i] {
				b = append(b, encodedStems...)
			} else {
				b = append(b, terms...)
			}
		}
	}
	return b
}

// wordTemplate is wordClauses of placeholders under a typo rule (or exact), encoded and cut where
// the placeholders stood: after parts[i] stood the stems' when stems[i], else the terms'.
type wordTemplate struct {
	rule  fuzzyRule
	parts [][]byte
	stems []bool
}

// wordTemplates are the templates of exact words ([0]) and of words with a typo allowance ([1]),
// each without stems ([.][0]) and with them ([.][1]).
var wordTemplates [2][2]atomic.Pointer[wordTemplate]

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wordPlaceholder and stemsPlaceholder stand for a word's terms and stems in wordTemplate, whose
// constant parts never hold them.
const (
	wordPlaceholder  = "\x00terms\x00"
	stemsPlaceholder = "\x00stems\x00"
)

func newWordTemplate(rule fuzzyRule, typo, stemmed bool) *wordTemplate {
	stems := ""
	if stemmed {
		stems = stemsPlaceholder
	}
	encoded, err := marshal(wordClauses(wordPlaceholder, stems, rule, typo))
	termsAt, terr := marshal(wordPlaceholder)
	stemsAt, serr := marshal(stemsPlaceholder)
	if err != nil || terr != nil || serr != nil {
		panic(fmt.Sprintf("encode the word query's template: %v, %v, %v", err, terr, serr)) // constant objects
	}
	t := &wordTemplate{rule: rule}
	for {
		i, j := bytes.Index(encoded, termsAt), bytes.Index(encoded, stemsAt)
		if i < 0 && j < 0 {
			t.parts = append(t.parts, encoded)
			return t
		}
		at, n, stems := i, len(termsAt), false
		if i < 0 || (j >= 0 && j < i) {
			at, n, stems = j, len(stemsAt), true
		}
		t.parts = append(t.parts, encoded[:at])
		t.stems = append(t.stems, stems)
		encoded = encoded[at+n:]
	}
}

// wordClauses is wordQuery as objects, for the terms and the stems of a word, each joined by
// spaces, under rule; an exact word (not typo) has no typo clauses, which would match what its
// exact ones match, for less. A stem field's clause matches any of the stems: the field holds an
// item's stems apart by spaces, which its analyzer splits at; a word of no stems has none, which
// would match nothing and count against the engine's clause limit.
func wordClauses(terms, stems string, rule fuzzyRule, typo bool) obj {
	clauses := make([]any, 0, len(search.Clauses))
	for _, c := range search.Clauses {
		if c.Typo && !typo {
			continue
		}
		if c.Stem {
			if stems == "" {
				continue
			}
			clauses = append(clauses, obj{"constant_score": obj{
				"filter": obj{"match": obj{indexFields[c.Field]: obj{"query": stems, "operator": "or"}}},
				"boost":  c.Score,
			}})
			continue
		}
		m := obj{
			"query":    terms,
			"operator": "and",
			// A word with no terms leaves the others to decide.
			"zero_terms_query": "all",
		}
		if c.Typo {
			rule.set(m)
		}
		clauses = append(clauses, obj{"constant_score": obj{
			"filter": obj{"match": obj{indexFields[c.Field]: m}},
			"boost":  c.Score,
		}})
	}
	return obj{"dis_max": obj{"queries": clauses}}
}

// sortClauses is the contract's total order for q: every order ends with id ascending, and items
// without a date come last in both date orders.
func sortClauses(q *search.Query) []any {
	dateDesc := obj{"date": obj{"order": "desc", "missing": "_last"}}
	dateAsc := obj{"date": obj{"order": "asc", "missing": "_last"}}
	byID := obj{"id": obj{"order": "asc"}}
	switch q.Sort {
	case search.SortRelevance:
		// q is normalized (search.Query.Normalize): relevance has text.
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

// sortKinds are the kinds of the sort values the engine gives for sortClauses(q): a score is a
// float, dates (epoch milliseconds, a missing one as the long the engine sorts it as) and
// downloads are whole numbers, the title key and the id strings.
func sortKinds(q *search.Query) []search.SortValue {
	clauses := sortClauses(q)
	kinds := make([]search.SortValue, len(clauses))
	for i, c := range clauses {
		for field := range c.(obj) {
			switch field {
			case "_score":
				kinds[i] = search.SortFloat
			case "date", "downloads":
				kinds[i] = search.SortInteger
			default:
				kinds[i] = search.SortString
			}
		}
	}
	return kinds
}
