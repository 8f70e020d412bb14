package search

import (
	"cmp"
	"mediagw/search/text"
	"slices"
	"strings"
	"unicode/utf8"
)

// The search-box extras of the contract: facets, completions, related items and the did-you-mean
// correction. Highlighting needs nothing of a backend: see Matched.

// Facet names a facet of a search: counts of one property's values over the matching items.
type Facet uint8

// The facets of the contract.
const (
	FacetType Facet = 1 << iota
	FacetCategory
	FacetLanguage
	FacetYear
	FacetLicense
	FacetFormat
	FacetDuration
)

// Facets lists every facet in the contract's order.
var Facets = []Facet{FacetType, FacetCategory, FacetLanguage, FacetYear, FacetLicense, FacetFormat, FacetDuration}

// MaxFacetValues bounds the values a facet lists.
const MaxFacetValues = 50

var facetNames = map[Facet]string{FacetType: "type", FacetCategory: "category", FacetLanguage: "language", FacetYear: "year",
	FacetLicense: "license", FacetFormat: "format", FacetDuration: "duration"}

// String is the facet's name in the API.
func (f Facet) String() string { return facetNames[f] }

// ParseFacet returns the facet named name.
func ParseFacet(name string) (Facet, bool) {
	for f, n := range facetNames {
		if n == name {
			return f, true
		}
	}
	return 0, false
}

// Year is the year of the item's date, the value the year facet counts it under; empty when the
// item has no date.
func (it Item) Year() string {
	if len(it.Date) < len("yyyy") {
		return ""
	}
	return it.Date[:len("yyyy")]
}

// FacetSet is a set of facets; the zero value asks for none. It is a bit set so that a Query stays
// comparable (caches key on it).
type FacetSet uint8

// Has reports whether f is in the set.
func (s FacetSet) Has(f Facet) bool { return s&FacetSet(f) != 0 }

// All yields the facets of the set in the contract's order.
func (s FacetSet) All() []Facet {
	var out []Facet
	for _, f := range Facets {
		if s.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// Value is the value of f the item is counted under: one per item, empty when it has none.
func (it Item) Value(f Facet) string {
	switch f {
	case FacetType:
		return it.Type
	case FacetCategory:
		return it.Category
	case FacetLanguage:
		return it.Language
	case FacetYear:
		return it.Year()
	case FacetLicense:
		return it.MediaLicense.ID
	case FacetFormat:
		return it.Format
	case FacetDuration:
		return it.Duration
	}
	return ""
}

// Filter is the filter of q that f counts the values of; nil for the year, whose filter is the
// dates.
func (q *Query) Filter(f Facet) *List {
	switch f {
	case FacetType:
		return &q.Type
	case FacetCategory:
		return &q.Category
	case FacetLanguage:
		return &q.Language
	case FacetLicense:
		return &q.License
	case FacetFormat:
		return &q.Format
	case FacetDuration:
		return &q.Duration
	}
	return nil
}

// Without is q with f's own filter removed: a facet counts over the items that match the text and
// every other filter, so a search box can offer the alternatives (disjunctive facets).
func (q Query) Without(f Facet) Query {
	if l := q.Filter(f); l != nil {
		*l = ""
	} else if f == FacetYear {
		q.From, q.To = "", ""
	}
	return q
}

// With is q filtered to value of f instead of f's own filter: the search whose total a facet
// value's count equals. A year is the range from its first to its last day.
func (q Query) With(f Facet, value string) Query {
	q = q.Without(f)
	if l := q.Filter(f); l != nil {
		*l = ListOf(value)
	} else if f == FacetYear {
		q.From, q.To = value+"-01-01", value+"-12-31"
	}
	return q
}

// FacetValue is one value of a facet with the number of matching items that have it.
type FacetValue struct {
	Value string
	// Name is a category's display name (PickCategoryName); empty for the other facets.
	Name  string
	Count int
}

// TopFacetValues orders values by count descending, then value, and keeps the first
// MaxFacetValues: the contract's order, applied the same way by every backend.
func TopFacetValues(values []FacetValue) []FacetValue {
	slices.SortFunc(values, func(a, b FacetValue) int {
		return cmp.Or(-cmp.Compare(a.Count, b.Count), strings.Compare(a.Value, b.Value))
	})
	return values[:min(len(values), MaxFacetValues)]
}

// Completion is a title that completes what a person is typing, with the item it names.
type Completion struct {
	Text string
	ID   string
}

// CompleteTypo reports whether the last word of a completion, of the term last, completes a title
// word a prefix of which it differs from by one edit (a letter inserted, deleted or changed, or
// two adjacent letters swapped: EditsWithin): from CompleteTypoFrom runes, and below
// completeTypoBelow, so that the prefixes within an edit are no longer than the engines hold.
// Titles it completes as typed come first.
func CompleteTypo(last string) bool {
	n := utf8.RuneCountInString(last)
	return n >= CompleteTypoFrom && n < completeTypoBelow
}

const (
	// CompleteTypoFrom is the shortest last word of a completion that may differ by an edit.
	CompleteTypoFrom = 4
	// completeTypoBelow is one less than the longest title prefix the engines hold.
	completeTypoBelow = 20
)

// Limits of the extras.
const (
	// MaxCompleteRunes bounds the text of a completion request.
	MaxCompleteRunes = 100
	// DefaultCompletions and MaxCompletions bound the completions of one request.
	DefaultCompletions = 10
	MaxCompletions     = 10
	// DefaultRelated is how many related items a request gets unless it asks for up to MaxPerPage.
	DefaultRelated = 10
	// MaxNeighbours bounds the indexed words a correction weighs for each word of a search
	// (search/spell.Correct).
	MaxNeighbours = 20
	// MaxAlternatives bounds the alternatives one correction weighs, each word's neighbours taken
	// in turn: all of them are counted in one engine call (Backend.Totals), but each is one more
	// query for the engine to match, and a long text of words with many neighbours would
	// otherwise make hundreds (12 words of 20 neighbours each: 240).
	MaxAlternatives = 40
)

// Matches maps words, as text.Words gives them, to the indexed terms each matches in a search:
// itself, if indexed, and those within its typo allowance (TypoAllowance, EditsWithin), folded,
// as search/spell finds them among the words of the index. A backend may count a word's items by
// them instead of expanding its allowance again, which costs an engine more than the count.
type Matches map[string][]string

// Word is a word the index holds (folded, as text.Terms makes it) and the number of items holding
// it in any searched field: how common it is, which tells a typo from a rare word (search/spell).
type Word struct {
	Text  string
	Items int
}

// Alternative is a text with one of its words replaced by another.
type Alternative struct {
	// Word is a word of the text as text.Words gives it; With is a single word.
	Word, With string
}

// Text is s with every word of it (text.Spans) that is a.Word replaced by a.With, all else as it
// was: the other words, a repeated one and what stands between them.
func (a Alternative) Text(s string) string {
	var b strings.Builder
	last := 0
	for sp := range text.Spans(s) {
		if s[sp.Start:sp.End] == a.Word {
			b.WriteString(s[last:sp.Start])
			b.WriteString(a.With)
			last = sp.End
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
