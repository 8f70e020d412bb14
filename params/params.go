// Package params is the API's query codec: one table (queryParams) describes every parameter of the
// base path, and from it a raw query string is read (Split, then ParseItems, ParseList, …) into a
// normalized search.Query or the list of its bad parameters, a query is written back in its
// canonical form (Values, Encode: the gateway's links, the load harness's requests), and the
// OpenAPI schemas are stated (Parameters). The gateway and the load harness (bench) both use it;
// it imports search only. A new parameter, or an operator of q, is one change here.
package params

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"mediagw/search"
	"mediagw/search/text"
)

// kind is how a parameter's value is read.
type kind int

const (
	kindText     kind = iota // free text of at most maxRunes characters
	kindEnum                 // one of enum
	kindBool                 // true or false
	kindList                 // a comma-separated list of enum values, each counted once
	kindInt                  // decimal digits, min to max
	kindSlug                 // a category slug
	kindLanguage             // a language, read as its ISO 639-1 code
	kindDate                 // a real calendar date YYYY-MM-DD
	kindID                   // an item id (search.CheckID)
	kindCursor               // search.StartCursor or a cursor from links.next, checked with its query
)

// param is one query parameter of the resources it names. A name may have one entry per set of
// resources when their bounds differ (q, per_page); the OpenAPI schema takes the widest.
type param struct {
	name      string
	resources []string
	kind      kind
	// required, when set, is the message of a request that lacks the parameter.
	required string
	// trim drops white space around the value first; what is left empty is absent.
	trim bool
	// spaces makes each run of white space in the value one space (text.Collapse).
	spaces   bool
	maxRunes int      // kindText
	enum     []string // kindEnum and kindList
	// list takes a comma list of values of the kind, each read alone, written as search.ListOf
	// orders them; at most search.MaxListBytes of slugs or languages, which no set bounds.
	list bool
	// all says the values of a list are all required (reuse, has), not alternatives.
	all      bool
	min, max int // kindInt
	// open keeps a whole number past max for a rule between parameters to judge (page, whose
	// bound depends on per_page); one past what an int holds reads as the largest int.
	open bool
	// def is the value of an absent parameter, as the query string writes it; "" for none.
	def string
	// always writes the parameter in every link, even at its default.
	always bool
	// field binds the parameter to search.Query (resource=items); nil for the other resources.
	field *field
}

// field reads and writes a parameter's canonical value in a search.Query.
type field struct {
	get func(*search.Query) string
	set func(*search.Query, string)
	// def is the default that depends on the rest of the query; nil when param.def says it.
	def func(*search.Query) string
}

// languageRule says what language takes.
const languageRule = "must be an ISO 639-1 code (en), a language tag starting with one (en-GB) or an English language name (English)"

// CursorRule says what a cursor must be, for the error of one that is not.
const CursorRule = "must be * to start a walk, or the cursor a page of the same walk gave in links.next, unchanged, with the same q, filters, sort and per_page; start again with cursor=*"

var (
	onlyItems = []string{ResourceItems}
	lists     = []string{ResourceCategories, ResourceAuthors}
	// withLists are the resources the items filters restrict: the lists count the items they find.
	withLists = []string{ResourceItems, ResourceCategories, ResourceAuthors}
	// withAuthors take the category filter: the categories list is not filtered by category.
	withAuthors = []string{ResourceItems, ResourceAuthors}
	listSorts   = mapNames(search.ListSorts, func(s search.ListSort) string { return string(s) })
	facetNames  = mapNames(search.Facets, search.Facet.String)
	sortNames   = mapNames(search.Sorts, func(s search.Sort) string { return string(s) })
)

// textField binds a parameter to a string of search.Query.
func textField(get func(*search.Query) *string) *field {
	return &field{get: func(q *search.Query) string { return *get(q) }, set: func(q *search.Query, v string) { *get(q) = v }}
}

// listField binds a list parameter to a list of search.Query.
func listField(get func(*search.Query) *search.List) *field {
	return &field{
		get: func(q *search.Query) string { return string(*get(q)) },
		set: func(q *search.Query, v string) { *get(q) = search.List(v) },
	}
}

// intField binds a parameter to a whole number of search.Query.
func intField(get func(*search.Query) *int) *field {
	return &field{
		get: func(q *search.Query) string { return strconv.Itoa(*get(q)) },
		set: func(q *search.Query, v string) { *get(q), _ = strconv.Atoi(v) },
	}
}

func mapNames[T any](xs []T, name func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return out
}

// queryParams are the parameters of the base path, in the order a 400 lists their errors.
var queryParams = []param{
	{name: "resource", resources: Resources, kind: kindEnum, enum: Resources,
		required: "is required; must be one of " + strings.Join(Resources, ", ")},
	{name: "id", resources: []string{ResourceItem, ResourceRelated}, kind: kindID, required: "is required"},
	{name: "q", resources: onlyItems, kind: kindText, trim: true, maxRunes: search.MaxTextRunes,
		field: &field{get: textOf, set: setText}},
	{name: "q", resources: []string{ResourceSuggest}, kind: kindText, trim: true, spaces: true, maxRunes: search.MaxCompleteRunes,
		required: "is required: the text typed so far"},
	{name: "q", resources: lists, kind: kindText, trim: true, maxRunes: search.MaxListTextRunes},
	{name: "type", resources: withLists, kind: kindEnum, enum: search.Types, list: true,
		field: listField(func(q *search.Query) *search.List { return &q.Type })},
	{name: "category", resources: withAuthors, kind: kindSlug, list: true,
		field: listField(func(q *search.Query) *search.List { return &q.Category })},
	{name: "author", resources: onlyItems, kind: kindText, maxRunes: search.MaxAuthorRunes,
		field: textField(func(q *search.Query) *string { return &q.Author })},
	{name: "language", resources: withLists, kind: kindLanguage, trim: true, list: true,
		field: listField(func(q *search.Query) *search.List { return &q.Language })},
	{name: "license", resources: withLists, kind: kindEnum, enum: search.Licenses, list: true,
		field: listField(func(q *search.Query) *search.List { return &q.License })},
	{name: "reuse", resources: withLists, kind: kindEnum, enum: search.Reuses, list: true, all: true,
		field: listField(func(q *search.Query) *search.List { return &q.Reuse })},
	{name: "format", resources: withLists, kind: kindEnum, enum: search.Formats, list: true,
		field: listField(func(q *search.Query) *search.List { return &q.Format })},
	{name: "duration", resources: withLists, kind: kindEnum, enum: search.Durations, list: true,
		field: listField(func(q *search.Query) *search.List { return &q.Duration })},
	{name: "has", resources: withLists, kind: kindEnum, enum: search.Haves, list: true, all: true,
		field: listField(func(q *search.Query) *search.List { return &q.Has })},
	{name: "from", resources: withLists, kind: kindDate,
		field: textField(func(q *search.Query) *string { return &q.From })},
	{name: "to", resources: withLists, kind: kindDate,
		field: textField(func(q *search.Query) *string { return &q.To })},
	{name: "sort", resources: onlyItems, kind: kindEnum, enum: sortNames, field: &field{
		get: func(q *search.Query) string { return string(q.Sort) },
		set: func(q *search.Query, v string) { q.Sort = search.Sort(v) },
		def: func(q *search.Query) string { return string(search.DefaultSort(q)) },
	}},
	{name: "sort", resources: lists, kind: kindEnum, enum: listSorts, def: string(search.ListByName)},
	{name: "facets", resources: onlyItems, kind: kindList, enum: facetNames, field: &field{
		get: func(q *search.Query) string {
			return strings.Join(mapNames(q.Facets.All(), search.Facet.String), ",")
		},
		set: func(q *search.Query, v string) {
			for name := range strings.SplitSeq(v, ",") {
				f, _ := search.ParseFacet(name)
				q.Facets |= search.FacetSet(f)
			}
		},
	}},
	{name: "highlight", resources: onlyItems, kind: kindBool, def: "false", field: &field{
		get: func(q *search.Query) string { return strconv.FormatBool(q.Highlight) },
		set: func(q *search.Query, v string) { q.Highlight = v == "true" },
	}},
	{name: "page", resources: onlyItems, kind: kindInt, min: 1, max: search.MaxDepth, open: true, def: "1",
		field: intField(func(q *search.Query) *int { return &q.Page })},
	{name: "page", resources: lists, kind: kindInt, min: 1, max: search.MaxDepth, open: true, def: "1"},
	{name: "per_page", resources: onlyItems, kind: kindInt, min: 1, max: search.MaxPerPage,
		def: strconv.Itoa(search.DefaultPerPage), always: true,
		field: intField(func(q *search.Query) *int { return &q.PerPage })},
	{name: "per_page", resources: []string{ResourceSuggest}, kind: kindInt, min: 1, max: search.MaxCompletions,
		def: strconv.Itoa(search.DefaultCompletions)},
	{name: "per_page", resources: []string{ResourceRelated}, kind: kindInt, min: 1, max: search.MaxPerPage,
		def: strconv.Itoa(search.DefaultRelated)},
	{name: "per_page", resources: lists, kind: kindInt, min: 1, max: search.MaxListPerPage,
		def: strconv.Itoa(search.DefaultListPerPage)},
	{name: "cursor", resources: onlyItems, kind: kindCursor,
		field: textField(func(q *search.Query) *string { return &q.Cursor })},
}

// paramsOf are the parameters resource takes besides resource itself.
func paramsOf(resource string) []param {
	var out []param
	for _, p := range queryParams {
		if p.name != "resource" && slices.Contains(p.resources, resource) {
			out = append(out, p)
		}
	}
	return out
}

// read checks one given value and returns it in canonical form, or the rule it breaks.
func (p param) read(s string) (string, string) {
	if p.list {
		return p.readList(s)
	}
	return p.readOne(s)
}

// readList reads a comma list of values of p's kind, each as readOne reads it alone.
func (p param) readList(s string) (string, string) {
	if p.kind != kindEnum && len(s) > p.longest() {
		return "", p.rule()
	}
	var vals []string
	for x := range strings.SplitSeq(s, ",") {
		x = strings.TrimSpace(x)
		if x == "" {
			return "", p.rule() + "; an empty value is not"
		}
		v, msg := p.readOne(x)
		if msg != "" {
			return "", fmt.Sprintf("%s; %q is not", p.rule(), x)
		}
		vals = append(vals, v)
	}
	return string(search.ListOf(vals...)), ""
}

// readOne checks one value of p's kind.
func (p param) readOne(s string) (string, string) {
	switch p.kind {
	case kindText:
		if utf8.RuneCountInString(s) <= p.maxRunes {
			return s, ""
		}
	case kindEnum, kindBool:
		if slices.Contains(p.enumValues(), s) {
			return s, ""
		}
	case kindList:
		var given []string
		for name := range strings.SplitSeq(s, ",") {
			name = strings.TrimSpace(name)
			if !slices.Contains(p.enum, name) {
				return "", p.rule()
			}
			given = append(given, name)
		}
		var out []string
		for _, name := range p.enum {
			if slices.Contains(given, name) {
				out = append(out, name)
			}
		}
		return strings.Join(out, ","), ""
	case kindInt:
		n, ok := parsePositive(s)
		switch {
		case ok && n >= p.min && (n <= p.max || p.open):
			return strconv.Itoa(n), ""
		case p.open && tooLarge(s):
			// Past any int: as deep as a page gets, so told the largest page it may be.
			return strconv.Itoa(math.MaxInt), ""
		}
	case kindSlug:
		if search.ValidSlug(s) {
			return s, ""
		}
	case kindLanguage:
		if code, ok := search.ParseLanguage(s); ok {
			return code, ""
		}
	case kindDate:
		if _, ok := search.ParseDate(s); ok {
			return s, ""
		}
	case kindID:
		if err := search.CheckID(s); err != nil {
			return "", search.IDLimits + "; this one " + err.Error()
		}
		return s, ""
	case kindCursor:
		// Which query a cursor belongs to is known only once every other parameter is.
		return s, ""
	}
	return "", p.rule()
}

// longest is the length in bytes of the parameter's longest legal value.
func (p param) longest() int {
	switch {
	case p.list && p.kind == kindEnum, p.kind == kindList:
		return len(strings.Join(p.enum, ","))
	case p.list:
		return search.MaxListBytes
	}
	switch p.kind {
	case kindText:
		return utf8.UTFMax * p.maxRunes
	case kindEnum, kindBool:
		return len(slices.MaxFunc(p.enumValues(), func(a, b string) int { return len(a) - len(b) }))
	case kindInt:
		return len("123456789") // parsePositive reads nine digits
	case kindSlug:
		return search.MaxSlugLen
	case kindLanguage:
		return longestLanguage
	case kindDate:
		return len(time.DateOnly)
	case kindID:
		return search.MaxIDBytes
	}
	return search.MaxCursorBytes
}

func (p param) enumValues() []string {
	if p.kind == kindBool {
		return []string{"true", "false"}
	}
	return p.enum
}

// rule says what the parameter takes, for the error of a value that breaks it.
func (p param) rule() string {
	if p.list {
		one := p
		one.list = false
		bound := ""
		if p.kind == kindSlug || p.kind == kindLanguage {
			bound = fmt.Sprintf(" of at most %d characters", search.MaxListBytes)
		}
		which := "any of them"
		if p.all {
			which = "every one of them"
		}
		return one.rule() + ", or a comma list" + bound + " of such values (" + which + ")"
	}
	switch p.kind {
	case kindText:
		return fmt.Sprintf("must be at most %d characters", p.maxRunes)
	case kindEnum:
		return "must be one of " + strings.Join(p.enum, ", ")
	case kindBool:
		return "must be true or false"
	case kindList:
		return "must be a comma-separated list of " + strings.Join(p.enum, ", ")
	case kindInt:
		if p.open {
			return fmt.Sprintf("must be an integer of at least %d", p.min)
		}
		return fmt.Sprintf("must be an integer from %d to %d", p.min, p.max)
	case kindSlug:
		return search.SlugLimits
	case kindLanguage:
		return languageRule
	case kindDate:
		return "must be a real date YYYY-MM-DD"
	case kindID:
		return search.IDLimits
	}
	return CursorRule
}

// parseParams reads ps from rq: the canonical value of each parameter given or defaulted, and
// every bad one. Unknown keys are ignored.
func parseParams(rq Raw, ps []param) (map[string]string, []FieldError) {
	vals := make(map[string]string, len(ps))
	var errs []FieldError
	for _, p := range ps {
		before := len(errs)
		s, ok := single(rq, p.name, &errs)
		if p.trim {
			s = strings.TrimSpace(s)
			ok = ok && s != ""
		}
		if p.spaces {
			s = text.Collapse(s)
		}
		if !ok {
			if p.required != "" && len(errs) == before {
				errs = append(errs, missing(p.name, p.required))
			} else if p.def != "" {
				vals[p.name] = p.def
			}
			continue
		}
		v, msg := p.read(s)
		if msg != "" {
			errs = append(errs, Invalid(p.name, s, msg))
			continue
		}
		vals[p.name] = v
	}
	return vals, errs
}

// ParseResource returns the resource a request asks for.
func ParseResource(rq Raw) (string, []FieldError) {
	i := slices.IndexFunc(queryParams, func(p param) bool { return p.name == "resource" })
	vals, errs := parseParams(rq, queryParams[i:i+1])
	return vals["resource"], errs
}

// ParseItemID returns the id of resource=item.
func ParseItemID(rq Raw) (string, []FieldError) {
	vals, errs := parseParams(rq, paramsOf(ResourceItem))
	return vals["id"], errs
}

// IDError is the problem entry of an id that search.CheckID refused.
func IDError(id string, err error) FieldError {
	return Invalid("id", id, search.IDLimits+"; this one "+err.Error())
}

// ParseItems reads resource=items into the request of a normalized query, its cursor decoded
// (search.Request.Position), or every bad parameter: the table's rules, then those between
// parameters (from before to, the paging depth, a cursor that fits).
func ParseItems(rq Raw) (*search.Request, []FieldError) {
	ps := paramsOf(ResourceItems)
	vals, errs := parseParams(rq, ps)
	bad := func(param, value, msg string) { errs = append(errs, Invalid(param, value, msg)) }
	failed := func(name string) bool {
		return slices.ContainsFunc(errs, func(fe FieldError) bool { return fe.Parameter == name })
	}
	r := search.NewRequest(search.Query{})
	q := &r.Query
	for _, p := range ps {
		if v, ok := vals[p.name]; ok && p.field != nil {
			p.field.set(q, v)
		}
	}
	q.Normalize()
	if q.From != "" && q.To != "" && q.From > q.To {
		// YYYY-MM-DD of real dates compare as text as they do as days.
		bad("from", q.From, "must not be after to ("+q.To+")")
	}
	if !failed("page") && !failed("per_page") && q.Page > search.DeepestPage(q.PerPage) {
		// Like every message it follows the parameter's name in the detail: "page must be at most …".
		bad("page", rq.values["page"][0], fmt.Sprintf("must be at most %d with per_page=%d, since page × per_page may not pass %d: narrow the query with q or filters, or walk through every match with cursor=* instead of page (each page's links.next carries the cursor of the next)",
			search.DeepestPage(q.PerPage), q.PerPage, search.MaxDepth))
	}
	if q.Cursor != "" {
		switch {
		case len(rq.values["page"]) == 1 && rq.values["page"][0] != "":
			bad("cursor", q.Cursor, "must not be given with page: a walk's pages have no numbers; drop page, or cursor to ask for a numbered page")
		case len(errs) > 0:
		case q.Cursor != search.StartCursor:
			if c, err := search.ParseCursor(q.Cursor, q); err != nil {
				bad("cursor", q.Cursor, CursorRule)
			} else {
				r.Position = &c
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return r, nil
}

// WalkPage is the number of the page of a walk r asks for: its cursor counts the items before it.
func WalkPage(r *search.Request) int {
	if r.Position == nil {
		return 1 // the walk's start
	}
	return r.Position.Seen/r.Query.PerPage + 1
}

// Values is the canonical query string of q: what self and the other links carry.
// Defaults are left out, except those the table writes always and the page, which every link
// names; a walk's links name no page (page 0), and walkLinks adds their cursor.
func Values(q *search.Query, page int) url.Values {
	v := url.Values{}
	for _, p := range paramsOf(ResourceItems) {
		if p.field == nil || p.name == "page" || p.name == "cursor" {
			continue
		}
		s, def := p.field.get(q), p.def
		if p.field.def != nil {
			def = p.field.def(q)
		}
		if s != "" && (s != def || p.always) {
			v.Set(p.name, s)
		}
	}
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	return v
}

// Encode is the query string a client sends for q (resource=items): the links' canonical
// encoding, naming the page when it is not the first. The load harness (bench) sends its
// searches so.
func Encode(q *search.Query) string {
	page := q.Page
	if page == 1 {
		page = 0
	}
	v := Values(q, page)
	v.Set("resource", ResourceItems)
	return v.Encode()
}

// List is a validated request for a short list (resource=suggest, resource=related): what
// it is about (the text typed so far, an item's id) and how many entries it may hold.
type List struct {
	Of string
	N  int
}

// ParseList reads the parameters of resource, which asks for a list about its parameter of.
func ParseList(rq Raw, resource, of string) (List, []FieldError) {
	vals, errs := parseParams(rq, paramsOf(resource))
	n, _ := strconv.Atoi(vals["per_page"])
	return List{Of: vals[of], N: n}, errs
}
