package params

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxEchoedRunes keeps a huge bad value from being sent back whole in an error body; it counts
// the ellipsis of a cut value, as the OpenAPI schema's maxLength does.
const maxEchoedRunes = 100

// Bounds of a raw query string. The base path decodes its query before the rate limiter runs
// (to name the resource in the log line), so without them a huge query would cost time and
// memory even from a visitor over the limit (BenchmarkOversizedQuery, docs/performance.md).
const (
	// longestLanguage is room for a language tag, not a limit on the parameter: RFC 5646 asks
	// parsers to take tags of at least 35 characters, and the English names are shorter.
	longestLanguage = 35
	// MaxParams is about three times the 20 parameters the API reads: room for ignored ones.
	MaxParams = 64
)

var (
	// Longest is the longest legal query, unencoded: every parameter of the query table at
	// its longest (param.longest), q and author made of 4-byte characters.
	Longest = func() int {
		n := -len("&")
		for _, name := range paramNames() {
			n += len("&"+name+"=") + schemaParam(name).longest()
		}
		return n
	}()
	// MaxBytes is Longest with every byte percent-encoded, plus 2 KiB for parameters
	// the API ignores (a form's submit button, tracking tags): 23,354 bytes.
	MaxBytes = 3*Longest + 2<<10
)

// Resources the base path serves.
const (
	ResourceItems      = "items"
	ResourceItem       = "item"
	ResourceCategories = "categories"
	ResourceAuthors    = "authors"
	ResourceSuggest    = "suggest"
	ResourceRelated    = "related"
)

// Resources are the names of the base path's resources, in the order of a 400's list and of the
// gateway's apiResources (gateway/routes.go), which TestResourcesInRouteOrder holds to it.
var Resources = []string{ResourceItems, ResourceItem, ResourceCategories, ResourceAuthors, ResourceSuggest, ResourceRelated}

// FieldError is one bad parameter of a request, as the problem body lists it.
type FieldError struct {
	Parameter string `json:"parameter"`
	// Value is what the client sent, shortened when long; absent when the parameter is missing.
	Value   *string `json:"value,omitempty"`
	Message string  `json:"message"`
}

// Invalid is the error of a parameter given as value, which breaks the rule msg words.
func Invalid(param, value, msg string) FieldError {
	v := Shorten(value)
	return FieldError{Parameter: param, Value: &v, Message: msg}
}

func missing(param, msg string) FieldError { return FieldError{Parameter: param, Message: msg} }

// Shorten is s as an error may echo it: valid UTF-8, cut to maxEchoedRunes characters.
func Shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxEchoedRunes {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	r := []rune(s)
	return strings.ToValidUTF8(string(r[:maxEchoedRunes-1]), "\uFFFD") + "…"
}

// Raw is a query string split into values, with the parameters whose encoding was broken.
type Raw struct {
	values url.Values
	// malformed holds the raw value of each parameter that was not valid percent-encoding.
	malformed map[string]string
	// oversized means the query passed MaxBytes or MaxParams; values and malformed
	// then hold no more than the first MaxParams parameters.
	oversized bool
}

// Oversized reports whether the query string passed MaxBytes or MaxParams, which the gateway
// refuses whole.
func (rq Raw) Oversized() bool { return rq.oversized }

// Split decodes a raw query string like url.ParseQuery, but remembers which parameters were
// malformed instead of silently dropping them, so a broken q is an error and not "no search".
// It gives up on an oversized query as soon as it sees it is one, so that costs no more than a
// legal query.
func Split(raw string) Raw {
	rq := Raw{values: url.Values{}, malformed: map[string]string{}}
	if len(raw) > MaxBytes {
		rq.oversized = true
		return rq
	}
	n := 0
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		if n++; n > MaxParams {
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
func single(rq Raw, param string, errs *[]FieldError) (string, bool) {
	vs := rq.values[param]
	switch {
	case len(vs) == 0:
		return "", false
	case len(vs) > 1:
		*errs = append(*errs, Invalid(param, strings.Join(vs, ","), fmt.Sprintf("given %d times; give it at most once", len(vs))))
		return "", false
	}
	if raw, ok := rq.malformed[param]; ok {
		*errs = append(*errs, Invalid(param, raw, "is not valid percent-encoding"))
		return "", false
	}
	if !utf8.ValidString(vs[0]) {
		*errs = append(*errs, Invalid(param, vs[0], "must be valid UTF-8"))
		return "", false
	}
	return vs[0], vs[0] != ""
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
