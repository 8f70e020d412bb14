package gateway

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"mediagw/search"
)

const (
	// maxEchoedRunes keeps a huge bad value from being sent back whole in an error body; it
	// counts the ellipsis of a cut value, as the OpenAPI schema's maxLength does.
	maxEchoedRunes = 100
	// maxRequestIDLen bounds an X-Request-Id the gateway takes from a client.
	maxRequestIDLen = 128
)

// Bounds of a raw query string. The base path decodes its query before the rate limiter runs
// (to name the resource in the log line), so without them a 1 MB query of 150,000 keys cost
// about 100 ms and 27 MB even from a visitor over the limit (BenchmarkOversizedQuery).
const (
	// longestLanguage is room for a language tag, not a limit on the parameter: RFC 5646 asks
	// parsers to take tags of at least 35 characters, and the English names are shorter.
	longestLanguage = 35
	// longestQuery is the longest legal query, unencoded: every parameter of the contract at
	// its longest, with q and author made of 4-byte characters.
	longestQuery = len("resource=categories") + len("&id=") + search.MaxIDBytes +
		len("&q=") + 4*search.MaxTextRunes + len("&author=") + 4*search.MaxAuthorRunes +
		len("&type=document") + len("&category=") + search.MaxSlugLen + len("&language=") + longestLanguage +
		len("&from=YYYY-MM-DD&to=YYYY-MM-DD") + len("&sort=relevance") +
		len("&page=123456789") + len("&per_page=123456789") +
		len("&facets=type,category,language,year") + len("&highlight=false") + len("&cursor=") + search.MaxCursorBytes
	// maxQueryBytes is longestQuery with every byte percent-encoded, plus 2 KiB for parameters
	// the API ignores (a form's submit button, tracking tags): 21,695 bytes.
	maxQueryBytes = 3*longestQuery + 2<<10
	// maxQueryParams is about four times the 15 parameters the API reads: room for ignored ones.
	maxQueryParams = 64
)

// Resources the base path serves.
const (
	resItems      = "items"
	resItem       = "item"
	resCategories = "categories"
	resAuthors    = "authors"
	resSuggest    = "suggest"
	resRelated    = "related"
)

// resources are the names of the base path's resources (apiResources, in routes.go).
var resources = func() []string {
	out := make([]string, len(apiResources))
	for i, r := range apiResources {
		out[i] = r.name
	}
	return out
}()

// FieldError is one bad parameter of a request, as the problem body lists it.
type FieldError struct {
	Parameter string `json:"parameter"`
	// Value is what the client sent, shortened when long; absent when the parameter is missing.
	Value   *string `json:"value,omitempty"`
	Message string  `json:"message"`
}

func fieldError(param, value, msg string) FieldError {
	v := shorten(value)
	return FieldError{Parameter: param, Value: &v, Message: msg}
}

func missing(param, msg string) FieldError { return FieldError{Parameter: param, Message: msg} }

func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxEchoedRunes {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	r := []rune(s)
	return strings.ToValidUTF8(string(r[:maxEchoedRunes-1]), "\uFFFD") + "…"
}

// rawQuery is a query string split into values, with the parameters whose encoding was broken.
type rawQuery struct {
	values url.Values
	// malformed holds the raw value of each parameter that was not valid percent-encoding.
	malformed map[string]string
	// oversized means the query passed maxQueryBytes or maxQueryParams; values and malformed
	// then hold no more than the first maxQueryParams parameters.
	oversized bool
}

// splitQuery decodes a raw query string like url.ParseQuery, but remembers which parameters were
// malformed instead of silently dropping them, so a broken q is an error and not "no search".
// It gives up on an oversized query as soon as it sees it is one, so that costs no more than a
// legal query.
func splitQuery(raw string) rawQuery {
	rq := rawQuery{values: url.Values{}, malformed: map[string]string{}}
	if len(raw) > maxQueryBytes {
		rq.oversized = true
		return rq
	}
	n := 0
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		if n++; n > maxQueryParams {
			rq.oversized = true
			break
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue // a key we cannot read is no parameter we know
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			rq.malformed[key] = v
			val = v
		}
		rq.values[key] = append(rq.values[key], val)
	}
	return rq
}

// single returns the one value of param. A repeated or badly encoded parameter is an error; an
// empty value counts as absent, as HTML forms send empty fields.
func single(rq rawQuery, param string, errs *[]FieldError) (string, bool) {
	vs := rq.values[param]
	switch {
	case len(vs) == 0:
		return "", false
	case len(vs) > 1:
		*errs = append(*errs, fieldError(param, strings.Join(vs, ","), fmt.Sprintf("given %d times; give it at most once", len(vs))))
		return "", false
	}
	if raw, ok := rq.malformed[param]; ok {
		*errs = append(*errs, fieldError(param, raw, "is not valid percent-encoding"))
		return "", false
	}
	if !utf8.ValidString(vs[0]) {
		*errs = append(*errs, fieldError(param, vs[0], "must be valid UTF-8"))
		return "", false
	}
	return vs[0], vs[0] != ""
}

// parseResource returns the resource a request asks for.
func parseResource(rq rawQuery) (string, []FieldError) {
	var errs []FieldError
	allowed := "must be one of " + strings.Join(resources, ", ")
	v, ok := single(rq, "resource", &errs)
	if len(errs) > 0 {
		return "", errs
	}
	if !ok {
		return "", []FieldError{missing("resource", "is required; "+allowed)}
	}
	for _, r := range resources {
		if v == r {
			return v, nil
		}
	}
	return "", []FieldError{fieldError("resource", v, allowed)}
}

// parseItemID returns the id of resource=item.
func parseItemID(rq rawQuery) (string, []FieldError) {
	var errs []FieldError
	id, ok := single(rq, "id", &errs)
	if len(errs) > 0 {
		return "", errs
	}
	if !ok {
		return "", []FieldError{missing("id", "is required")}
	}
	if err := search.CheckID(id); err != nil {
		return "", []FieldError{idError(id, err)}
	}
	return id, nil
}

// idError is the problem entry of an id that search.CheckID refused.
func idError(id string, err error) FieldError {
	return fieldError("id", id, search.IDRule+"; this one "+err.Error())
}

// validRequestID reports whether a client's X-Request-Id is safe to echo in a header, a body and
// a log line: 1 to 128 of A-Z, a-z, 0-9, '.', '_' and '-'.
func validRequestID(s string) bool {
	if len(s) < 1 || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// parsePositive accepts plain decimal digits only: no sign, space or exponent.
func parsePositive(s string) (int, bool) {
	if !allDigits(s) {
		return 0, false
	}
	// Leading zeros say nothing; nine digits left hold any int.
	s = strings.TrimLeft(s, "0")
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1
}

// tooLarge says whether s is a whole number past what parsePositive reads (nine digits).
func tooLarge(s string) bool {
	return allDigits(s) && len(strings.TrimLeft(s, "0")) > 9
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// parseItems validates the parameters of resource=items against the contract's table and returns
// the query, or every bad parameter. Unknown keys are ignored.
func parseItems(rq rawQuery) (search.Query, []FieldError) {
	var errs []FieldError
	bad := func(param, value, msg string) { errs = append(errs, fieldError(param, value, msg)) }
	var q search.Query

	if s, ok := single(rq, "q", &errs); ok {
		s = strings.TrimSpace(s)
		if utf8.RuneCountInString(s) > search.MaxTextRunes {
			bad("q", s, fmt.Sprintf("must be at most %d characters", search.MaxTextRunes))
		} else {
			q.Text = s
		}
	}
	if s, ok := single(rq, "type", &errs); ok {
		switch s {
		case search.TypePhoto, search.TypeVideo, search.TypeDocument:
			q.Type = s
		default:
			bad("type", s, "must be one of photo, video, document")
		}
	}
	if s, ok := single(rq, "category", &errs); ok {
		if search.ValidSlug(s) {
			q.Category = s
		} else {
			bad("category", s, search.SlugRule)
		}
	}
	if s, ok := single(rq, "author", &errs); ok {
		if utf8.RuneCountInString(s) > search.MaxAuthorRunes {
			bad("author", s, fmt.Sprintf("must be at most %d characters", search.MaxAuthorRunes))
		} else {
			q.Author = s
		}
	}
	if s, ok := single(rq, "language", &errs); ok {
		if code, found := search.ParseLanguage(s); found {
			q.Language = code
		} else {
			bad("language", s, "must be an ISO 639-1 code (en), a language tag starting with one (en-GB) or an English language name (English)")
		}
	}
	var from, to time.Time
	fromOK, toOK := false, false
	if s, ok := single(rq, "from", &errs); ok {
		if from, fromOK = search.ParseDate(s); fromOK {
			q.From = s
		} else {
			bad("from", s, "must be a real date YYYY-MM-DD")
		}
	}
	if s, ok := single(rq, "to", &errs); ok {
		if to, toOK = search.ParseDate(s); toOK {
			q.To = s
		} else {
			bad("to", s, "must be a real date YYYY-MM-DD")
		}
	}
	if fromOK && toOK && from.After(to) {
		bad("from", q.From, "must not be after to ("+q.To+")")
	}
	if s, ok := single(rq, "sort", &errs); ok {
		valid := false
		for _, o := range search.Sorts {
			if s == string(o) {
				q.Sort, valid = o, true
			}
		}
		if !valid {
			bad("sort", s, "must be one of relevance, newest, oldest, downloads, az")
		}
	}
	if s, ok := single(rq, "facets", &errs); ok {
		if f, valid := parseFacets(s); valid {
			q.Facets = f
		} else {
			bad("facets", s, "must be a comma-separated list of type, category, language, year")
		}
	}
	if s, ok := single(rq, "highlight", &errs); ok {
		if h, valid := parseBool(s); valid {
			q.Highlight = h
		} else {
			bad("highlight", s, "must be true or false")
		}
	}
	q.Page, q.PerPage = 1, search.DefaultPerPage
	pageOK, perPageOK := true, true
	pageGiven, pageSent := false, ""
	if s, ok := single(rq, "page", &errs); ok {
		pageGiven, pageSent = true, s
		if q.Page, pageOK = parsePositive(s); !pageOK && tooLarge(s) {
			// Past any int: as deep as a page gets, so told the largest page it may be.
			q.Page, pageOK = math.MaxInt, true
		} else if !pageOK {
			bad("page", s, "must be an integer of at least 1")
		}
	}
	if s, ok := single(rq, "per_page", &errs); ok {
		n, valid := parsePositive(s)
		if perPageOK = valid && n <= search.MaxPerPage; perPageOK {
			q.PerPage = n
		} else {
			bad("per_page", s, fmt.Sprintf("must be an integer from 1 to %d", search.MaxPerPage))
		}
	}
	if pageOK && perPageOK && q.Page > search.MaxDepth/q.PerPage {
		// Like every message it follows the parameter's name in the detail: "page must be at most …".
		bad("page", pageSent, fmt.Sprintf("must be at most %d with per_page=%d, since page × per_page may not pass %d: narrow the query with q or filters, or walk through every match with cursor=* instead of page (each page's links.next carries the cursor of the next)",
			search.MaxDepth/q.PerPage, q.PerPage, search.MaxDepth))
	}
	q.Normalize()
	if s, ok := single(rq, "cursor", &errs); ok {
		switch {
		case pageGiven:
			bad("cursor", s, "must not be given with page: a walk's pages have no numbers; drop page, or cursor to ask for a numbered page")
		case len(errs) > 0:
			// Which query a cursor belongs to is known only once every other parameter is.
		case s == search.StartCursor:
			q.Cursor = s
		default:
			if _, err := search.ParseCursor(s, q); err != nil {
				bad("cursor", s, cursorRule)
			} else {
				q.Cursor = s
			}
		}
	}
	if len(errs) > 0 {
		return search.Query{}, errs
	}
	return q, nil
}

// cursorRule says what a cursor must be, for the error of one that is not.
const cursorRule = "must be * to start a walk, or the cursor a page of the same walk gave in links.next, unchanged, with the same q, filters, sort and per_page; start again with cursor=*"

// walkPage is the number of the page of a walk q asks for: its cursor counts the items before it.
func walkPage(q search.Query) int {
	c, err := search.ParseCursor(q.Cursor, q)
	if err != nil {
		return 1 // the first page: parseItems let no other cursor through
	}
	return c.Seen/q.PerPage + 1
}

// itemsQueryValues is the canonical query string of q: what self and the other links carry.
// Defaults are left out, except page and per_page, which every link names; a walk's links name
// no page (page 0).
func itemsQueryValues(q search.Query, page int) url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("q", q.Text)
	set("type", q.Type)
	set("category", q.Category)
	set("author", q.Author)
	set("language", q.Language)
	set("from", q.From)
	set("to", q.To)
	if q.Sort != search.DefaultSort(q.Text) {
		set("sort", string(q.Sort))
	}
	if q.Facets != 0 {
		names := make([]string, 0, len(search.Facets))
		for _, f := range q.Facets.All() {
			names = append(names, f.String())
		}
		v.Set("facets", strings.Join(names, ","))
	}
	if q.Highlight {
		v.Set("highlight", "true")
	}
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	v.Set("per_page", strconv.Itoa(q.PerPage))
	return v
}

// parseFacets reads a comma-separated list of facet names; a name given twice counts once.
func parseFacets(s string) (search.FacetSet, bool) {
	var set search.FacetSet
	for name := range strings.SplitSeq(s, ",") {
		f, ok := search.ParseFacet(strings.TrimSpace(name))
		if !ok {
			return 0, false
		}
		set |= search.FacetSet(f)
	}
	return set, true
}

// parseBool accepts the two words a query string uses for a flag.
func parseBool(s string) (bool, bool) {
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// parsePerPage reads per_page of a resource whose pages hold 1 to max items, def by default.
func parsePerPage(rq rawQuery, def, max int, errs *[]FieldError) int {
	s, ok := single(rq, "per_page", errs)
	if !ok {
		return def
	}
	n, valid := parsePositive(s)
	if !valid || n > max {
		*errs = append(*errs, fieldError("per_page", s, fmt.Sprintf("must be an integer from 1 to %d", max)))
		return def
	}
	return n
}

// completeParams is a validated resource=suggest request.
type completeParams struct {
	text string
	n    int
}

// parseSuggest validates resource=suggest: q of 1 to search.MaxCompleteRunes characters, and
// per_page up to search.MaxCompletions.
func parseSuggest(rq rawQuery) (completeParams, []FieldError) {
	var errs []FieldError
	p := completeParams{}
	s, ok := single(rq, "q", &errs)
	s = strings.TrimSpace(s)
	switch {
	case !ok && len(errs) == 0, ok && s == "":
		errs = append(errs, missing("q", "is required: the text typed so far"))
	case utf8.RuneCountInString(s) > search.MaxCompleteRunes:
		errs = append(errs, fieldError("q", s, fmt.Sprintf("must be at most %d characters", search.MaxCompleteRunes)))
	default:
		p.text = s
	}
	p.n = parsePerPage(rq, search.DefaultCompletions, search.MaxCompletions, &errs)
	return p, errs
}

// relatedParams is a validated resource=related request.
type relatedParams struct {
	id string
	n  int
}

// parseRelated validates resource=related: an id, and per_page up to search.MaxPerPage.
func parseRelated(rq rawQuery) (relatedParams, []FieldError) {
	id, errs := parseItemID(rq)
	p := relatedParams{id: id}
	p.n = parsePerPage(rq, search.DefaultRelated, search.MaxPerPage, &errs)
	return p, errs
}
