package search

import (
	"slices"
	"strings"

	"mediagw/search/rights"
)

// List is a set of filter values in one canonical form: sorted, each once, apart by commas, which
// no value holds (types, slugs, language codes, licence ids, formats, buckets, uses). One string
// keeps Query comparable and gives one set one form, so that type=video,photo and
// type=photo,video are one query to the cache and to a cursor. Empty: the filter is not given.
type List string

// ListOf is the List of values, empty ones dropped.
func ListOf(values ...string) List {
	vs := slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" })
	slices.Sort(vs)
	return List(strings.Join(slices.Compact(vs), ","))
}

// Values lists the values in order; nil for an empty list.
func (l List) Values() []string {
	if l == "" {
		return nil
	}
	return strings.Split(string(l), ",")
}

// Holds reports whether v is one of the list's values.
func (l List) Holds(v string) bool {
	return l != "" && slices.Contains(l.Values(), v)
}

// AnyOf reports whether v passes a filter whose values are alternatives: the list is empty, or
// holds v.
func (l List) AnyOf(v string) bool { return l == "" || l.Holds(v) }

// AllOf reports whether have passes a filter whose values are all required: every value of the
// list is among have.
func (l List) AllOf(have []string) bool {
	for _, v := range l.Values() {
		if !slices.Contains(have, v) {
			return false
		}
	}
	return true
}

// canonical is l in its canonical form (ListOf), for a List set by hand rather than read.
func (l List) canonical() List { return ListOf(l.Values()...) }

// The uses a licence allows (Query.Reuse).
const (
	ReuseCommercial   = "commercial"
	ReuseModification = "modification"
)

// Reuses lists every use, in the contract's order.
var Reuses = []string{ReuseCommercial, ReuseModification}

// What an item may have (Query.Has).
const (
	HasMedia     = "media"
	HasThumbnail = "thumbnail"
)

// Haves lists every value of Query.Has, in the contract's order.
var Haves = []string{HasMedia, HasThumbnail}

// Durations lists every duration bucket, in the contract's order.
var Durations = []string{DurationShort, DurationMedium, DurationLong}

// Licenses lists every licence id, in the contract's order.
var Licenses = rights.IDs

// Uses lists the uses the licence of a derived item allows (Reuses' values).
func (it Item) Uses() []string {
	var out []string
	if it.MediaLicense.Commercial {
		out = append(out, ReuseCommercial)
	}
	if it.MediaLicense.Modification {
		out = append(out, ReuseModification)
	}
	return out
}

// Has lists what the item has of Haves: a media file, a thumbnail.
func (it Item) Has() []string {
	var out []string
	if it.MediaURL != "" {
		out = append(out, HasMedia)
	}
	if it.ThumbnailURL != "" {
		out = append(out, HasThumbnail)
	}
	return out
}

// lists are q's filters of lists, in the order the API names them.
func (q *Query) lists() []*List {
	return []*List{&q.Type, &q.Category, &q.Language, &q.License, &q.Reuse, &q.Format, &q.Duration, &q.Has}
}

// Filters is q's filters of lists, as one string each: what binds a cursor or a cached answer to
// the items q finds, together with its text, author and dates.
func (q *Query) Filters() []string {
	out := make([]string, 0, 8)
	for _, l := range q.lists() {
		out = append(out, string(*l))
	}
	return out
}
