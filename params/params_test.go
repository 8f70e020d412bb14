package params

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mediagw/search"
)

// paramFor is the entry of name for resource.
func paramFor(t *testing.T, resource, name string) param {
	t.Helper()
	for _, p := range paramsOf(resource) {
		if p.name == name {
			return p
		}
	}
	if name == "resource" {
		return queryParams[0]
	}
	t.Fatalf("resource=%s takes no %s", resource, name)
	return param{}
}

// TestParamRead: each kind of the table reads a value into its canonical form, or refuses it
// with the rule the table words.
func TestParamRead(t *testing.T) {
	tests := []struct {
		resource, name, in string
		want               string // the canonical value, when accepted
		rule               string // the message, when refused
	}{
		{ResourceItems, "q", strings.Repeat("é", search.MaxTextRunes), strings.Repeat("é", search.MaxTextRunes), ""},
		{ResourceItems, "q", strings.Repeat("é", search.MaxTextRunes+1), "", "must be at most 200 characters"},
		{ResourceSuggest, "q", strings.Repeat("a", search.MaxCompleteRunes+1), "", "must be at most 100 characters"},
		{ResourceItems, "type", "video", "video", ""},
		{ResourceItems, "type", "Video", "", `must be one of photo, video, document, or a comma list of such values (any of them); "Video" is not`},
		{ResourceItems, "type", "video, photo,video", "photo,video", ""},
		{ResourceItems, "type", "video,", "", "must be one of photo, video, document, or a comma list of such values (any of them); an empty value is not"},
		{ResourceItems, "license", "by-nc-sa,cc0", "by-nc-sa,cc0", ""},
		{ResourceItems, "reuse", "modification", "modification", ""},
		{ResourceItems, "has", "audio", "", `must be one of media, thumbnail, or a comma list of such values (every one of them); "audio" is not`},
		{ResourceItems, "sort", "az", "az", ""},
		{ResourceItems, "sort", "best", "", "must be one of relevance, newest, oldest, downloads, az"},
		{"", "resource", "items", "items", ""},
		{"", "resource", "item ", "", "must be one of items, item, categories, authors, suggest, related"},
		{ResourceItems, "highlight", "true", "true", ""},
		{ResourceItems, "highlight", "1", "", "must be true or false"},
		{ResourceItems, "facets", "year, type,type", "type,year", ""},
		{ResourceItems, "facets", "type,", "", "must be a comma-separated list of type, category, language, year, license, format, duration"},
		{ResourceItems, "per_page", "050", "50", ""},
		{ResourceItems, "per_page", "51", "", "must be an integer from 1 to 50"},
		{ResourceSuggest, "per_page", "11", "", "must be an integer from 1 to 10"},
		{ResourceRelated, "per_page", "0", "", "must be an integer from 1 to 50"},
		{ResourceItems, "page", "10001", "10001", ""}, // the depth rule judges it, knowing per_page
		{ResourceItems, "page", "99999999999999999999", strconv.Itoa(math.MaxInt), ""},
		{ResourceItems, "page", "-1", "", "must be an integer of at least 1"},
		{ResourceItems, "category", "a-b", "a-b", ""},
		{ResourceItems, "category", "A", "", search.SlugLimits + `, or a comma list of at most 200 characters of such values (any of them); "A" is not`},
		{ResourceItems, "category", "b,a-b", "a-b,b", ""},
		{ResourceItems, "language", "en-GB", "en", ""},
		{ResourceItems, "language", "x-klingon", "", languageRule + `, or a comma list of at most 200 characters of such values (any of them); "x-klingon" is not`},
		{ResourceItems, "language", "fr,English", "en,fr", ""},
		{ResourceItems, "from", "2024-02-29", "2024-02-29", ""},
		{ResourceItems, "from", "2023-02-29", "", "must be a real date YYYY-MM-DD"},
		{ResourceItem, "id", "ph-full", "ph-full", ""},
		{ResourceRelated, "id", "a b", "", search.IDLimits + "; this one holds white space (U+0020 at byte 1)"},
		{ResourceItems, "cursor", "*", "*", ""},
	}
	for _, tt := range tests {
		t.Run(tt.resource+"/"+tt.name+"="+tt.in, func(t *testing.T) {
			got, rule := paramFor(t, tt.resource, tt.name).read(tt.in)
			if got != tt.want || rule != tt.rule {
				t.Errorf("read(%q) = %q, %q; want %q, %q", tt.in, got, rule, tt.want, tt.rule)
			}
		})
	}
}

// TestParseOtherResources: suggest and related read their parameters from the same table, with
// their own bounds and defaults.
func TestParseOtherResources(t *testing.T) {
	tests := []struct {
		raw      string
		suggest  List
		related  List
		messages []string
	}{
		{raw: "q=+har+&id=x", suggest: List{"har", search.DefaultCompletions}, related: List{"x", search.DefaultRelated}},
		{raw: "q=h&id=x&per_page=7", suggest: List{"h", 7}, related: List{"x", 7}},
		{raw: "q=h&id=x&per_page=11", related: List{"x", 11}, messages: []string{"per_page must be an integer from 1 to 10"}},
		{raw: "q=++&id=x&per_page=51", messages: []string{"q is required: the text typed so far", "per_page must be an integer from 1 to 10", "per_page must be an integer from 1 to 50"}},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			rq := Split(tt.raw)
			var got []string
			s, errs := ParseList(rq, ResourceSuggest, "q")
			for _, e := range errs {
				got = append(got, e.Parameter+" "+e.Message)
			}
			if errs == nil && s != tt.suggest {
				t.Errorf("suggest %+v, want %+v", s, tt.suggest)
			}
			r, errs := ParseList(rq, ResourceRelated, "id")
			for _, e := range errs {
				got = append(got, e.Parameter+" "+e.Message)
			}
			if errs == nil && r != tt.related {
				t.Errorf("related %+v, want %+v", r, tt.related)
			}
			if !slices.Equal(got, tt.messages) {
				t.Errorf("errors %q, want %q", got, tt.messages)
			}
		})
	}
}

// TestSchemaFromTable: the OpenAPI schema of a parameter is the widest of its table entries.
func TestSchemaFromTable(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"per_page", `{"type":"integer","minimum":1,"maximum":1000}`},
		{"sort", `{"type":"string","enum":["relevance","newest","oldest","downloads","az","name","count"]}`},
		{"page", `{"type":"integer","minimum":1,"maximum":10000,"default":1}`},
		{"q", `{"type":"string","maxLength":200}`},
		{"type", `{"type":"string","pattern":"^(photo|video|document)( *, *(photo|video|document))*$"}`},
		{"category", `{"type":"string","pattern":"^[a-z0-9-]{1,100}( *, *[a-z0-9-]{1,100})*$","maxLength":200}`},
		{"language", `{"type":"string","minLength":1,"maxLength":200}`},
		{"highlight", `{"type":"string","enum":["true","false"]}`},
		{"facets", `{"type":"string","pattern":"^(type|category|language|year|license|format|duration)( *, *(type|category|language|year|license|format|duration))*$"}`},
	}
	for _, tt := range tests {
		var b strings.Builder
		for i, kv := range schemaOf(schemaParam(tt.name)) {
			v, err := json.Marshal(kv.Value)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(map[bool]string{true: "{", false: ","}[i == 0] + `"` + kv.Key + `":` + string(v))
		}
		if got := b.String() + "}"; got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// FuzzQueryRoundTrip: every accepted query encodes back, as its links write it, to a query string
// that parses to the same query.
func FuzzQueryRoundTrip(f *testing.F) {
	for _, s := range []string{
		"", "q=+Élan+&language=French&per_page=5&sort=relevance&page=2", "q=x&sort=newest",
		"sort=relevance", "type=photo&category=a-b&author=+Jane+&from=2020-01-01&to=2020-01-02",
		"type=video,photo&category=b,a&language=fr,en&license=by,cc0&reuse=commercial&format=mp4,other&duration=short,long&has=media",
		"facets=year,+type&highlight=true", "highlight=false&facets=category", "cursor=*&per_page=7",
		"page=200&per_page=50", "language=zh-Hant-TW", "q=a%20%20b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, errs := parsed(Split(raw))
		if errs != nil {
			return
		}
		v := Values(&q, q.Page)
		if q.Cursor != "" {
			v = Values(&q, 0)
			v.Set("cursor", q.Cursor)
		}
		again, errs := parsed(Split(v.Encode()))
		if errs != nil || !reflect.DeepEqual(again, q) {
			a, _ := json.Marshal(again)
			b, _ := json.Marshal(q)
			t.Fatalf("%q reads as %s; its encoding %q as %s %v", raw, b, v.Encode(), a, errs)
		}
	})
}

// TestItemsQuery: the query string a client sends for a search is the links' encoding, defaults
// left out but per_page's, and the page named past the first.
func TestItemsQuery(t *testing.T) {
	for _, tc := range []struct {
		q    search.Query
		want string
	}{
		{search.Query{Text: "x", Sort: search.SortRelevance, Page: 1, PerPage: 20}, "per_page=20&q=x&resource=items"},
		{search.Query{Sort: search.SortNewest, Page: 1, PerPage: 20}, "per_page=20&resource=items"},
		{search.Query{Sort: search.SortRelevance, Page: 1, PerPage: 20}, "per_page=20&resource=items&sort=relevance"},
		{search.Query{Text: "x", Sort: search.SortAZ, Page: 3, PerPage: 50, Type: "photo", From: "2001-01-01"},
			"from=2001-01-01&page=3&per_page=50&q=x&resource=items&sort=az&type=photo"},
	} {
		if got := Encode(&tc.q); got != tc.want {
			t.Errorf("Encode(%+v) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// parsed is the query ParseItems reads from rq, the zero Query when it reads none.
func parsed(rq Raw) (search.Query, []FieldError) {
	r, errs := ParseItems(rq)
	if r == nil {
		return search.Query{}, errs
	}
	return r.Query, errs
}
