package search

import (
	"cmp"
	"slices"
	"strings"
)

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
