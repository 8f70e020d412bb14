package search

import (
	"cmp"
	"context"
	"fmt"
	"mediagw/search/text"
	"slices"
	"strings"
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
)

// Facets lists every facet in the contract's order.
var Facets = []Facet{FacetType, FacetCategory, FacetLanguage, FacetYear}

// MaxFacetValues bounds the values a facet lists.
const MaxFacetValues = 50

var facetNames = map[Facet]string{FacetType: "type", FacetCategory: "category", FacetLanguage: "language", FacetYear: "year"}

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

// Without is q with f's own filter removed: a facet counts over the items that match the text and
// every other filter, so a search box can offer the alternatives (disjunctive facets).
func (q Query) Without(f Facet) Query {
	switch f {
	case FacetType:
		q.Type = ""
	case FacetCategory:
		q.Category = ""
	case FacetLanguage:
		q.Language = ""
	case FacetYear:
		q.From, q.To = "", ""
	}
	return q
}

// With is q filtered to value of f instead of f's own filter: the search whose total a facet
// value's count equals. A year is the range from its first to its last day.
func (q Query) With(f Facet, value string) Query {
	q = q.Without(f)
	switch f {
	case FacetType:
		q.Type = value
	case FacetCategory:
		q.Category = value
	case FacetLanguage:
		q.Language = value
	case FacetYear:
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

// Limits of the extras.
const (
	// MaxCompleteRunes bounds the text of a completion request.
	MaxCompleteRunes = 100
	// DefaultCompletions and MaxCompletions bound the completions of one request.
	DefaultCompletions = 10
	MaxCompletions     = 10
	// DefaultRelated is how many related items a request gets unless it asks for up to MaxPerPage.
	DefaultRelated = 10
	// FewResults is the total under which a search offers a correction.
	FewResults = 5
	// MaxNeighbours bounds the indexed words Neighbours returns, and so the searches a correction
	// costs for each word of a search.
	MaxNeighbours = 20
	// MaxCorrectionCalls bounds the engine calls one correction makes (each word's neighbours,
	// each candidate's search): a long query of words with many neighbours would otherwise cost
	// hundreds of searches (12 words of 20 neighbours each: 252 calls).
	MaxCorrectionCalls = 24
)

// Extras are what a backend answers beyond the original service. Implementations must be safe
// for concurrent use and honour the context's deadline, like Backend.
type Extras interface {
	// Complete returns up to n completions of text: the items whose title holds every word of
	// text, the last word as a prefix, case and accents ignored (Fold), the most downloaded first,
	// then by id.
	Complete(ctx context.Context, text string, n int) ([]Completion, error)
	// Related returns up to n items most like the item with the given id by title, tags,
	// keywords, category and author, never that item itself, most alike first; ErrNotFound when
	// no item has the id.
	Related(ctx context.Context, id string, n int) ([]Item, error)
	// Neighbours returns the words indexed in any searched field (folded, as Fold folds them)
	// within TypoAllowance edits of text.Fold(word) as EditsWithin counts them, text.Fold(word) itself
	// excluded, in byte order, at most max of them (the first max).
	Neighbours(ctx context.Context, word string, max int) ([]string, error)
}

// Correct returns the did-you-mean correction of a search that found fewer than FewResults
// items: q's text with one word changed to an indexed word within its typo allowance that finds
// the most items, more than total; or "" when no such correction exists. Ties go to the earlier
// word, then to the more frequent neighbour. It makes at most MaxCorrectionCalls engine calls,
// the words taken in order: past that, the best correction found so far stands.
func Correct(ctx context.Context, b interface {
	Extras
	Search(context.Context, Query) (Result, error)
}, q Query, total int) (string, error) {
	if q.Text == "" || total >= FewResults {
		return "", nil
	}
	words := text.Words(q.Text)
	best, bestTotal := "", total
	calls := 0
	for _, w := range words {
		if calls++; calls > MaxCorrectionCalls {
			break
		}
		near, err := b.Neighbours(ctx, w, MaxNeighbours)
		if err != nil {
			return "", fmt.Errorf("correction of %q: %w", w, err)
		}
		for _, n := range near {
			if calls++; calls > MaxCorrectionCalls {
				return best, nil
			}
			alt := q
			alt.Text = replaceWord(words, w, n)
			alt.Page, alt.PerPage, alt.Facets = 1, 1, 0
			res, err := b.Search(ctx, alt)
			if err != nil {
				return "", fmt.Errorf("correction of %q to %q: %w", w, n, err)
			}
			if res.Total > bestTotal {
				best, bestTotal = alt.Text, res.Total
			}
		}
	}
	return best, nil
}

// replaceWord is words joined by spaces with old replaced by new.
func replaceWord(words []string, old, new string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		if w == old {
			out[i] = new
		}
	}
	return strings.Join(out, " ")
}
