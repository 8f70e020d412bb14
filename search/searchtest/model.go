package searchtest

import (
	"cmp"
	"slices"
	"strings"

	"mediagw/search"
)

// The reference model: what the contract says a backend must answer for a query without text,
// computed directly from the items.

// matches reports whether it passes every filter of q (AND), any of the values of a list of
// alternatives; items without a date fail any bound.
func matches(it search.Item, q search.Query) bool {
	switch {
	case !q.Type.AnyOf(it.Type), !q.Category.AnyOf(it.Category), !q.Language.AnyOf(it.Language),
		!q.License.AnyOf(it.MediaLicense.ID), !q.Format.AnyOf(it.Format), !q.Duration.AnyOf(it.Duration),
		!q.Reuse.AllOf(it.Uses()), !q.Has.AllOf(it.Has()),
		q.Author != "" && it.Author != q.Author,
		q.From != "" && (it.Date == "" || it.Date < q.From),
		q.To != "" && (it.Date == "" || it.Date > q.To):
		return false
	}
	return true
}

// dateDesc orders dates newest first, items without a date last.
func dateDesc(a, b search.Item) int {
	switch {
	case a.Date == b.Date:
		return 0
	case a.Date == "":
		return 1
	case b.Date == "":
		return -1
	}
	return -strings.Compare(a.Date, b.Date)
}

// dateAsc orders dates oldest first, items without a date last.
func dateAsc(a, b search.Item) int {
	switch {
	case a.Date == b.Date:
		return 0
	case a.Date == "":
		return 1
	case b.Date == "":
		return -1
	}
	return strings.Compare(a.Date, b.Date)
}

// order is the contract's total order for s on results of a query without text, where relevance
// (every score equal) falls through to newest.
func order(s search.Sort) func(a, b search.Item) int {
	byID := func(a, b search.Item) int { return strings.Compare(a.ID, b.ID) }
	switch s {
	case search.SortOldest:
		return func(a, b search.Item) int { return cmp.Or(dateAsc(a, b), byID(a, b)) }
	case search.SortDownloads:
		return func(a, b search.Item) int {
			return cmp.Or(-cmp.Compare(a.Downloads, b.Downloads), dateDesc(a, b), byID(a, b))
		}
	case search.SortAZ:
		return func(a, b search.Item) int {
			return cmp.Or(strings.Compare(search.TitleKey(a.Title), search.TitleKey(b.Title)), byID(a, b))
		}
	}
	return func(a, b search.Item) int { return cmp.Or(dateDesc(a, b), byID(a, b)) }
}

// expected returns the ids a query without text must return, in order.
func expected(items []search.Item, q search.Query) []string {
	var hits []search.Item
	for _, it := range items {
		if matches(it, q) {
			hits = append(hits, it)
		}
	}
	if q.Sort == search.SortAZ {
		// Folding is slow; fold each title once rather than at every comparison.
		keys := make(map[string]string, len(hits))
		for _, it := range hits {
			keys[it.ID] = search.TitleKey(it.Title)
		}
		slices.SortFunc(hits, func(a, b search.Item) int {
			return cmp.Or(strings.Compare(keys[a.ID], keys[b.ID]), strings.Compare(a.ID, b.ID))
		})
		return ids(hits)
	}
	slices.SortFunc(hits, order(q.Sort))
	return ids(hits)
}

// categories is what Categories must return.
func categories(items []search.Item) []search.Category {
	counts := map[string]int{}
	names := map[string]map[string]int{}
	for _, it := range items {
		if it.Category == "" {
			continue
		}
		counts[it.Category]++
		if names[it.Category] == nil {
			names[it.Category] = map[string]int{}
		}
		names[it.Category][it.CategoryName]++
	}
	out := make([]search.Category, 0, len(counts))
	for slug, n := range counts {
		out = append(out, search.Category{Slug: slug, Name: search.PickCategoryName(slug, names[slug]), Count: n})
	}
	slices.SortFunc(out, func(a, b search.Category) int { return strings.Compare(a.Slug, b.Slug) })
	return out
}

// authors is what Authors must return.
func authors(items []search.Item) []search.Author {
	counts := map[string]int{}
	for _, it := range items {
		if it.Author != "" {
			counts[it.Author]++
		}
	}
	out := make([]search.Author, 0, len(counts))
	for name, n := range counts {
		out = append(out, search.Author{Name: name, Count: n})
	}
	search.SortAuthors(out)
	return out
}

func ids(items []search.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// normalize makes empty slices nil, since JSON round-trips may turn one into the other.
func normalize(it search.Item) search.Item {
	if len(it.Tags) == 0 {
		it.Tags = nil
	}
	if len(it.Keywords) == 0 {
		it.Keywords = nil
	}
	return it
}
