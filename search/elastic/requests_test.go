package elastic

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
	"mediagw/search/text"
)

func TestRequestsAreTheBackendsBodies(t *testing.T) {
	q := search.Query{Text: "harbour", Type: "photo", Sort: search.SortRelevance, Page: 2, PerPage: 20}
	got, err := searchBodyOf(q)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(searchBody(search.NewRequest(q)))
	if string(got) != string(want) {
		t.Errorf("searchBodyOf = %s, want %s", got, want)
	}
}

// counterRequest is the part of a Counter's request the tests read.
type counterRequest struct {
	Aggs struct {
		Values struct {
			Cardinality struct {
				Field string `json:"field"`
			} `json:"cardinality"`
		} `json:"values"`
		Groups struct {
			Terms struct {
				Field   string `json:"field"`
				Size    int    `json:"size"`
				Include *struct {
					Partition     int `json:"partition"`
					NumPartitions int `json:"num_partitions"`
				} `json:"include"`
			} `json:"terms"`
			Aggs map[string]any `json:"aggs"`
		} `json:"groups"`
	} `json:"aggs"`
}

// TestCounter plays the engine's side of the list exchange: an estimate, then partitions; an
// overflowing partition starts the list again with twice the partitions. The list comes out in
// byte order, the partitions merged, each in that order as the engine gives it, or sorted when not.
func TestCounter(t *testing.T) {
	estimate := func(n int) string { return fmt.Sprintf(`{"aggregations":{"values":{"value":%d}}}`, n) }
	page := func(other int, keys ...string) string {
		var bs []string
		for _, k := range keys {
			bs = append(bs, fmt.Sprintf(`{"key":%q,"doc_count":2,"name":{"buckets":[{"key":"Name of %s"}]}}`, k, k))
		}
		return fmt.Sprintf(`{"aggregations":{"groups":{"sum_other_doc_count":%d,"buckets":[%s]}}}`, other, strings.Join(bs, ","))
	}
	type step struct {
		answer string
		// partition and partitions the request answered must have asked for; -1: the estimate.
		partition, partitions int
	}
	for _, tc := range []struct {
		name   string
		list   List
		limits listLimits
		steps  []step
		want   []string // values, or nil when the exchange must fail
	}{
		{"empty index", ListAuthors, listLimits{10, 5}, []step{{estimate(0), -1, 0}, {page(0), 0, 1}}, []string{}},
		{"one partition", ListCategories, listLimits{10, 5}, []step{{estimate(4), -1, 0}, {page(0, "a", "b", "c", "d"), 0, 1}},
			[]string{"a", "b", "c", "d"}},
		{"three partitions", ListAuthors, listLimits{10, 5}, []step{
			{estimate(11), -1, 0}, {page(0, "a", "d"), 0, 3}, {page(0, "b", "e", "f"), 1, 3}, {page(0, "c"), 2, 3},
		}, []string{"a", "b", "c", "d", "e", "f"}},
		{"five partitions, one empty", ListAuthors, listLimits{10, 2}, []step{
			{estimate(9), -1, 0}, {page(0, "c", "h"), 0, 5}, {page(0, "a", "e", "i"), 1, 5}, {page(0), 2, 5},
			{page(0, "b", "f"), 3, 5}, {page(0, "d", "g"), 4, 5},
		}, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}},
		{"a partition out of order", ListAuthors, listLimits{10, 5}, []step{
			{estimate(6), -1, 0}, {page(0, "b", "d", "a"), 0, 2}, {page(0, "f", "c", "e"), 1, 2},
		}, []string{"a", "b", "c", "d", "e", "f"}},
		{"an overflow splits", ListAuthors, listLimits{2, 5}, []step{
			{estimate(3), -1, 0}, {page(1, "a", "b"), 0, 1}, {page(0, "a", "c"), 0, 2}, {page(0, "b"), 1, 2},
		}, []string{"a", "b", "c"}},
		{"overflows past the splits allowed", ListAuthors, listLimits{1, 5}, []step{
			{estimate(3), -1, 0}, {page(1, "a"), 0, 1}, {page(1, "a"), 0, 2}, {page(1, "a"), 0, 4}, {page(1, "a"), 0, 8}, {page(1, "a"), 0, 16},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCounter(tc.list, tc.limits, search.Query{})
			for i, st := range tc.steps {
				body, err := c.Request()
				if err != nil {
					t.Fatal(err)
				}
				var req counterRequest
				if err := json.Unmarshal(body, &req); err != nil {
					t.Fatal(err)
				}
				field := map[List]string{ListCategories: "category", ListAuthors: "author_key"}[tc.list]
				g := req.Aggs.Groups
				switch {
				case st.partition < 0 && req.Aggs.Values.Cardinality.Field != field:
					t.Fatalf("request %d = %s, want the estimate of %s", i, body, field)
				case st.partition >= 0 && (g.Terms.Field != field || g.Terms.Size != tc.limits.size):
					t.Fatalf("request %d = %s, want terms of %s, size %d", i, body, field, tc.limits.size)
				case st.partitions == 1 && g.Terms.Include != nil,
					st.partitions > 1 && (g.Terms.Include == nil || g.Terms.Include.Partition != st.partition || g.Terms.Include.NumPartitions != st.partitions):
					t.Fatalf("request %d = %s, want partition %d of %d", i, body, st.partition, st.partitions)
				case st.partition >= 0 && (g.Aggs["name"] != nil) != (tc.list == ListCategories):
					t.Fatalf("request %d = %s: the category name is asked for categories only", i, body)
				}
				done, err := c.Answer([]byte(st.answer))
				last := i == len(tc.steps)-1
				if tc.want == nil && last {
					if err == nil {
						t.Fatalf("answer %d: no error, want one", i)
					}
					return
				}
				if err != nil || done != last {
					t.Fatalf("answer %d: done %t, %v; want done %t", i, done, err, last)
				}
			}
			got := []string{}
			for _, v := range c.Values() {
				got = append(got, v.Value)
				if v.Count != 2 || (tc.list == ListCategories && v.Name != "Name of "+v.Value) {
					t.Errorf("value %+v", v)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("values %v, want %v", got, tc.want)
			}
		})
	}
}

// BenchmarkSearchRequest is the cost of building and encoding one search's request body.
func BenchmarkSearchRequest(b *testing.B) {
	qs := []search.Query{
		{Text: "harbour", Sort: search.SortRelevance, Page: 1, PerPage: 20},
		{Text: "street market night", Type: "photo", Sort: search.SortRelevance, Page: 2, PerPage: 20},
		{Category: "places", Language: "en", Sort: search.SortDownloads, Page: 1, PerPage: 50},
		{Text: "lisbon", From: "1990-01-01", To: "2005-12-31", Sort: search.SortNewest, Page: 7, PerPage: 20},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := searchBodyOf(qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCounterRefusesPartialAnswers(t *testing.T) {
	c := NewCounter(ListAuthors)
	if _, err := c.Answer([]byte(`{"_shards":{"failed":1,"failures":[{"reason":{"type":"x"}}]},"aggregations":{"values":{"value":3}}}`)); err == nil {
		t.Error("an answer some shards failed was taken")
	}
}

// TestSearchedFieldsAreIndexed: a word is searched in every field search.Clauses names, by its
// index name, at the clause's score.
func TestSearchedFieldsAreIndexed(t *testing.T) {
	queries := wordClauses("lisbon", "en:lisbon", typoRule, true)["dis_max"].(obj)["queries"].([]any)
	if len(queries) != len(search.Clauses) {
		t.Fatalf("%d clauses, want %d", len(queries), len(search.Clauses))
	}
	for i, c := range search.Clauses {
		name, ok := indexFields[c.Field]
		if !ok {
			t.Errorf("search.Clauses has %q, which indexFields does not name", c.Field)
		}
		cs := queries[i].(obj)["constant_score"].(obj)
		m, ok := cs["filter"].(obj)["match"].(obj)[name].(obj)
		want := "lisbon"
		if c.Stem {
			want = "en:lisbon"
		}
		if !ok || cs["boost"] != c.Score || (m["fuzziness"] != nil) != c.Typo || m["query"] != want {
			t.Errorf("clause %d = %v, want %s (typo %v) at %v", i, cs, name, c.Typo, c.Score)
		}
	}
}

// facetRequest is the part of a request with facets the tests read: its aggregations, a facet's
// own or a filter aggregation's holding facets, and the filters of its query and post_filter.
type facetRequest struct {
	Aggs map[string]struct {
		Filter *boolFilters               `json:"filter"`
		Aggs   map[string]json.RawMessage `json:"aggs"`
	} `json:"aggs"`
	Query      boolFilters `json:"query"`
	PostFilter boolFilters `json:"post_filter"`
}

// boolFilters is a bool query's filter clauses.
type boolFilters struct {
	Bool struct {
		Filter []json.RawMessage `json:"filter"`
	} `json:"bool"`
}

// clauses are filters encoded, sorted: a set to compare.
func clauses(filters ...[]json.RawMessage) []string {
	var out []string
	for _, fs := range filters {
		for _, f := range fs {
			out = append(out, string(f))
		}
	}
	slices.Sort(out)
	return out
}

// wantClauses are q's filter clauses encoded, sorted.
func wantClauses(q search.Query) []string {
	var raw []json.RawMessage
	for _, f := range filterClauses(&q) {
		b, _ := json.Marshal(f)
		raw = append(raw, b)
	}
	return clauses(raw)
}

// TestFacetRequests: a search with text counts its facets beside its hits. Filters that no facet
// asked for ignores narrow the query; facets that share their other filters count under one filter
// aggregation of those, and facets without any at the top level. Each facet sees every filter but
// its own; the hits see every filter.
func TestFacetRequests(t *testing.T) {
	text := search.Query{Text: "harbour", Facets: allFacets}
	typed := withQuery(text, func(q *search.Query) { q.Type = search.TypePhoto })
	for _, tc := range []struct {
		name string
		q    search.Query
		// want are the request's aggregations: a facet's name alone, or a filter aggregation's
		// name with the facets under it.
		want map[string][]string
	}{
		{"no filter", text, map[string][]string{
			"facet_type": nil, "facet_category": nil, "facet_language": nil, "facet_year": nil}},
		{"a type filter", typed, map[string][]string{
			"facet_type": nil, "filtered_category": {"facet_category", "facet_language", "facet_year"}}},
		{"a filter of no facet", withQuery(text, func(q *search.Query) { q.Author = "Ann" }), map[string][]string{
			"facet_type": nil, "facet_category": nil, "facet_language": nil, "facet_year": nil}},
		{"a filter of no facet and a type", withQuery(typed, func(q *search.Query) { q.Author = "Ann" }), map[string][]string{
			"facet_type": nil, "filtered_category": {"facet_category", "facet_language", "facet_year"}}},
		{"type and dates", withQuery(text, func(q *search.Query) { q.Type, q.From = search.TypePhoto, "1990-01-01" }), map[string][]string{
			"filtered_type": {"facet_type"}, "filtered_category": {"facet_category", "facet_language"}, "filtered_year": {"facet_year"}}},
		{"a filter per facet", withQuery(text, func(q *search.Query) {
			q.Type, q.Category, q.Language, q.To = search.TypePhoto, "ships", "en", "2005-12-31"
		}), map[string][]string{
			"filtered_type": {"facet_type"}, "filtered_category": {"facet_category"},
			"filtered_language": {"facet_language"}, "filtered_year": {"facet_year"}}},
		{"some facets", withQuery(typed, func(q *search.Query) { q.Facets = search.FacetSet(search.FacetCategory | search.FacetYear) }),
			map[string][]string{"facet_category": nil, "facet_year": nil}},
		{"some facets and dates", withQuery(typed, func(q *search.Query) {
			q.Facets, q.From = search.FacetSet(search.FacetCategory|search.FacetYear), "1990-01-01"
		}), map[string][]string{"filtered_category": {"facet_category"}, "facet_year": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := searchBodyOf(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var req facetRequest
			if err := json.Unmarshal(body, &req); err != nil {
				t.Fatal(err)
			}
			narrowed := req.Query.Bool.Filter
			if got, want := clauses(narrowed, req.PostFilter.Bool.Filter), wantClauses(tc.q); !slices.Equal(got, want) {
				t.Errorf("the hits' filters %q, want %q", got, want)
			}
			got := map[string][]string{}
			for name, agg := range req.Aggs {
				seen := func(facet string, filters []json.RawMessage) {
					f, _ := search.ParseFacet(strings.TrimPrefix(facet, "facet_"))
					if got, want := clauses(narrowed, filters), wantClauses(tc.q.Without(f)); !slices.Equal(got, want) {
						t.Errorf("%s: %s's filters %q, want every filter but its own: %q", name, facet, got, want)
					}
				}
				if agg.Filter == nil {
					got[name] = nil
					seen(name, nil)
					continue
				}
				for sub := range agg.Aggs {
					got[name] = append(got[name], sub)
					seen(sub, agg.Filter.Bool.Filter)
				}
				slices.SortFunc(got[name], func(a, b string) int { return facetOrder(a) - facetOrder(b) })
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("aggregations %v, want %v\n%s", got, tc.want, body)
			}
		})
	}
}

// TestFacetSearches: a search without text sends its facets in searches of their own, of no hits
// and no total, beside its page's in an _msearch whose page's search is that of the same search
// without facets: facets that share their other filters in one search whose query is those
// filters, and each facet without any in a search of its own, of no query.
func TestFacetSearches(t *testing.T) {
	browse := search.Query{Sort: search.SortDownloads, Facets: allFacets}
	typed := withQuery(browse, func(q *search.Query) { q.Type = search.TypePhoto })
	for _, tc := range []struct {
		name string
		q    search.Query
		// want are the facets of each search, in order.
		want []string
	}{
		{"no filter", browse, []string{"type", "category", "language", "year"}},
		{"a type filter", typed, []string{"type", "category language year"}},
		{"a filter of no facet", withQuery(browse, func(q *search.Query) { q.Author = "Ann" }), []string{"type category language year"}},
		{"type and dates", withQuery(browse, func(q *search.Query) { q.Type, q.From = search.TypePhoto, "1990-01-01" }),
			[]string{"type", "category language", "year"}},
		{"some facets", withQuery(typed, func(q *search.Query) { q.Facets = search.FacetSet(search.FacetType | search.FacetYear) }),
			[]string{"type", "year"}},
		{"a walk's browse", withQuery(typed, func(q *search.Query) {
			q.PerPage = search.DefaultPerPage
			q.Cursor = search.EncodeCursor(q, search.Cursor{Version: "v", Seen: 20, After: []any{json.Number("7"), json.Number("1600000000000"), "id-20"}})
		}), []string{"type", "category language year"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := searchBodyOf(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			plain := tc.q
			plain.Facets = 0
			page, err := searchBodyOf(plain)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(body), "\n")
			if len(lines) != 2*len(tc.want)+3 || lines[0] != "{}" || lines[1] != string(page) || lines[len(lines)-1] != "" {
				t.Fatalf("request %s, want an _msearch of the page's search %s and %d of the facets'", body, page, len(tc.want))
			}
			var got []string
			for i := 2; i < len(lines)-1; i += 2 {
				if lines[i] != "{}" {
					t.Fatalf("line %d: parameters %s, want none", i, lines[i])
				}
				var s struct {
					Size  *int                       `json:"size"`
					Total *bool                      `json:"track_total_hits"`
					Query json.RawMessage            `json:"query"`
					Aggs  map[string]json.RawMessage `json:"aggs"`
				}
				if err := json.Unmarshal([]byte(lines[i+1]), &s); err != nil {
					t.Fatal(err)
				}
				if s.Size == nil || *s.Size != 0 || s.Total == nil || *s.Total {
					t.Errorf("facets' search %s: want size 0 and no total, so that the engine caches its answer", lines[i+1])
				}
				// The query is every filter of the search but the facet's own; none when none.
				query := string(s.Query)
				if query == "" {
					query = `{"bool":{"filter":[]}}`
				}
				var facets []string
				for name := range s.Aggs {
					if want := otherFilters(tc.q, name); query != want {
						t.Errorf("search %s: %s's query %s, want %s", lines[i+1], name, query, want)
					}
					facets = append(facets, strings.TrimPrefix(name, "facet_"))
				}
				slices.SortFunc(facets, func(a, b string) int { return facetOrder(a) - facetOrder(b) })
				got = append(got, strings.Join(facets, " "))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("facets' searches %q, want %q\n%s", got, tc.want, body)
			}
		})
	}
}

// allFacets asks for every facet.
var allFacets = search.FacetSet(search.FacetType | search.FacetCategory | search.FacetLanguage | search.FacetYear)

// withQuery is q edited.
func withQuery(q search.Query, edit func(*search.Query)) search.Query { edit(&q); return q }

// otherFilters is the filter of every filter of q but that of the facet an aggregation is named
// after, as the engine gets it.
func otherFilters(q search.Query, name string) string {
	f, _ := search.ParseFacet(strings.TrimPrefix(name, "facet_"))
	b, _ := json.Marshal(obj{"bool": obj{"filter": boolQuery(search.NewRequest(q.Without(f)))["filter"]}})
	return string(b)
}

// facetOrder is the place of the facet an aggregation is named after in search.Facets.
func facetOrder(name string) int {
	f, _ := search.ParseFacet(strings.TrimPrefix(name, "facet_"))
	return slices.Index(search.Facets, f)
}

// TestWordQueryIsItsClauses: the word query set into its encoded template is its clauses encoded,
// whatever the word and the typo rule.
func TestWordQueryIsItsClauses(t *testing.T) {
	saved := typoRule
	t.Cleanup(func() { typoRule = saved })
	for _, rule := range []fuzzyRule{saved, {OneTypoFrom: 4, TwoTyposFrom: 8, MaxExpansions: 10}} {
		typoRule = rule
		for _, w := range []string{"harbour", "<b>a&b</b>", "l'été", "東京", "line\u2028sep\u2029", "bad\xffutf-8",
			`quote"back\slash`, "tab\tnew\nline\x00", "🙂", "", "\x00terms\x00", "\x00stems\x00", "Häuser"} {
			for _, typo := range []bool{false, true} {
				stems := search.WordStems(w, text.Terms(w), nil)
				want, err := json.Marshal(wordClauses(strings.Join(text.Terms(w), " "), strings.Join(stems, " "), rule, typo))
				if err != nil {
					t.Fatal(err)
				}
				if got := wordQuery(text.Terms(w), stems, typo); string(got) != string(want) {
					t.Errorf("rule %v, word %q, typo %v:\n got %s\nwant %s", rule, w, typo, got, want)
				}
			}
		}
	}
}

// TestBodiesEncodeAsEncodingJSON: marshal writes a request body byte for byte as encoding/json
// does, whatever the text: keys sorted, <, > and & escaped, invalid UTF-8 replaced, U+2028 and
// U+2029 escaped.
func TestBodiesEncodeAsEncodingJSON(t *testing.T) {
	texts := []string{"harbour", "street market night", "<b>a&b</b>", "l'été à Lisboa", "東京 夜",
		"line\u2028sep\u2029", "bad \xff utf-8", `quote " back \ slash`, "tab\tnew\nline\x00", "emoji 🙂"}
	var bodies []any
	for _, text := range texts {
		for _, q := range []search.Query{
			{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 20},
			{Text: text, Type: "photo", Category: "places", Language: "en", From: "1990-01-01", To: "2005-12-31",
				Sort: search.SortNewest, Page: 3, PerPage: 50, Facets: search.FacetSet(search.FacetType | search.FacetCategory | search.FacetLanguage | search.FacetYear)},
			{Author: text, Sort: search.SortAZ, Page: 1, PerPage: 10, Facets: search.FacetSet(search.FacetYear)},
		} {
			q.Normalize()
			bodies = append(bodies, pageBody(search.NewRequest(q), search.Cursor{After: []any{1.5, text, json.Number("9223372036854775807")}}))
			for _, b := range facetsBodies(&q) {
				bodies = append(bodies, b)
			}
		}
		bodies = append(bodies, completeBody(text, 10, false), completeBody(text, 10, true), countQuery(text, nil), countQuery(text, search.Matches{text: {text, "x"}}))
	}
	for _, body := range bodies {
		want, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshal(body)
		if err != nil || string(got) != string(want) {
			t.Errorf("marshal = %s, %v;\nwant %s", got, err, want)
		}
	}
}

// TestCompletionsCountNothing: a completion asks for its n titles and no count of the matches,
// which would make the engine visit 10,000 of them before skipping those that cannot be among the
// most downloaded n.
func TestCompletionsCountNothing(t *testing.T) {
	for _, text := range []string{"a", "old ri", "riverbank", strings.Repeat("x", maxPrefixRunes+5)} {
		for _, typo := range []bool{false, true} {
			body := completeBody(text, 8, typo)
			if body["track_total_hits"] != false || body["size"] != 8 {
				t.Errorf("completeBody(%q, 8, %v): track_total_hits %v, size %v; want false, 8", text, typo, body["track_total_hits"], body["size"])
			}
		}
	}
}

// TestCompletionsSortAsTheIndex: a completion's order is the index's own (settings.index.sort of
// mappings/items.json), so that the engine stops at the first n matches of each segment instead
// of visiting every title a short prefix matches.
func TestCompletionsSortAsTheIndex(t *testing.T) {
	var def struct {
		Settings struct {
			Index struct {
				Sort struct {
					Field []string `json:"field"`
					Order []string `json:"order"`
				} `json:"sort"`
			} `json:"index"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(mappings.Items, &def); err != nil {
		t.Fatal(err)
	}
	index := def.Settings.Index.Sort
	if len(index.Field) == 0 || len(index.Field) != len(index.Order) {
		t.Fatalf("items.json settings.index.sort: fields %q, orders %q; want one order a field", index.Field, index.Order)
	}
	for _, text := range []string{"ri", "old ri", "rvier", strings.Repeat("x", maxPrefixRunes+5)} {
		for _, typo := range []bool{false, true} {
			var fields, orders []string
			for _, c := range completeBody(text, 10, typo)["sort"].([]any) {
				for field, o := range c.(obj) {
					fields = append(fields, field)
					orders = append(orders, o.(obj)["order"].(string))
				}
			}
			if !slices.Equal(fields, index.Field) || !slices.Equal(orders, index.Order) {
				t.Errorf("completeBody(%q, 10, %v) sorts by %q %q; the index by %q %q", text, typo, fields, orders, index.Field, index.Order)
			}
		}
	}
}

// searchBodyOf is NewSearchRequest's body of q normalized, as the query codec hands it on.
func searchBodyOf(q search.Query) ([]byte, error) {
	return searchBodyUnder(q, nil)
}

// searchBodyUnder is searchBodyOf q under the rules c.
func searchBodyUnder(q search.Query, c search.Curation) ([]byte, error) {
	q.Normalize()
	r := search.NewRequest(q)
	r.Curation = c
	req, err := NewSearchRequest(r)
	return req.Body, err
}
