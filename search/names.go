package search

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"mediagw/search/text"
)

// ListSort is an order of the authors and categories lists.
type ListSort string

// The orders of the lists.
const (
	// ListByName is the list's own order: authors by AuthorLess, categories by slug.
	ListByName ListSort = "name"
	// ListByCount is most items first, then ListByName.
	ListByCount ListSort = "count"
)

// ListSorts lists every order of the lists, the default first.
var ListSorts = []ListSort{ListByName, ListByCount}

// Limits of the lists' parameters.
const (
	// MaxListTextRunes bounds a list's q.
	MaxListTextRunes = 100
	// DefaultListPerPage is a list page's size once page or per_page is given without the other.
	DefaultListPerPage = 100
	// MaxListPerPage is the largest list page a client may ask for.
	MaxListPerPage = 1000
)

// ListQuery is a validated request for the authors or the categories list.
type ListQuery struct {
	// Text keeps the entries whose name holds every word of it (Entry.Words), the last as a
	// prefix of one, folded; "" keeps every entry.
	Text string
	Sort ListSort
	// Filter holds the items filters only (no text, author, sort or page): the counts are of the
	// items it finds, and entries with none are left out.
	Filter Query
	// Page is 1-based; PerPage 0 asks for every matching entry in one answer.
	Page, PerPage int
}

// Plain reports whether lq asks for the whole list as the original service gives it.
func (lq ListQuery) Plain() bool { return lq == ListQuery{Sort: ListByName} }

// Entry is an entry of a list: an Author or a Category.
type Entry interface {
	Author | Category
}

// entryWords is the text whose words a list's q searches: an author's name, a category's slug
// and name.
func entryWords[T Entry](e T) string {
	switch e := any(e).(type) {
	case Author:
		return e.Name
	case Category:
		return e.Slug + " " + e.Name
	}
	return ""
}

func entryCount[T Entry](e T) int {
	switch e := any(e).(type) {
	case Author:
		return e.Count
	case Category:
		return e.Count
	}
	return 0
}

// ListIndex answers list queries over one list, given in its name order: each entry's words
// folded once, all in one string that a name search scans at once, and the order by count, so
// that a page or a name search is one pass over prepared keys and no sort.
type ListIndex[T Entry] struct {
	entries []T
	// keys holds each entry's folded words, each word between spaces, one entry after another:
	// entry i's are keys[at[i]:at[i+1]]. A word w of an entry is " w ", a prefix p of one " p",
	// neither of which can span two entries.
	keys string
	at   []int
	// byCount is the entries in count order (ties in name order); rank is each one's place there.
	byCount, rank []int32
}

// NewListIndex prepares entries, which are in their list's name order and are never modified.
func NewListIndex[T Entry](entries []T) *ListIndex[T] {
	n := len(entries)
	x := &ListIndex[T]{entries: entries, at: make([]int, n+1), byCount: make([]int32, n), rank: make([]int32, n)}
	var b strings.Builder
	for i, e := range entries {
		writeWordsKey(&b, entryWords(e))
		x.at[i+1] = b.Len()
		x.byCount[i] = int32(i)
	}
	x.keys = b.String()
	counts := make([]int, n)
	for i, e := range entries {
		counts[i] = entryCount(e)
	}
	slices.SortFunc(x.byCount, func(a, b int32) int { return cmp.Or(counts[b]-counts[a], int(a-b)) })
	for r, i := range x.byCount {
		x.rank[i] = int32(r)
	}
	return x
}

// writeWordsKey writes s's folded words, each between spaces.
func writeWordsKey(b *strings.Builder, s string) {
	b.WriteByte(' ')
	for sp := range text.Spans(s) {
		b.WriteString(text.Fold(s[sp.Start:sp.End]))
		b.WriteByte(' ')
	}
}

// Select returns the entries lq asks for (Text, Sort, Page and PerPage; the index is of the list
// lq.Filter counts) and how many match in all.
func (x *ListIndex[T]) Select(lq ListQuery) (page []T, total int) {
	order := func(i int) int { return i }
	if lq.Sort == ListByCount {
		order = func(i int) int { return int(x.byCount[i]) }
	}
	var found []int32
	total = len(x.entries)
	if lq.Text != "" {
		found = x.find(NewNameMatch(lq.Text))
		if lq.Sort == ListByCount {
			slices.SortFunc(found, func(a, b int32) int { return int(x.rank[a] - x.rank[b]) })
		}
		order = func(i int) int { return int(found[i]) }
		total = len(found)
	}
	from, to := 0, total
	if lq.PerPage > 0 {
		// Past the last entry, without multiplying a page number of any size.
		from = total
		if skip := max(lq.Page, 1) - 1; skip <= total/lq.PerPage {
			from = min(skip*lq.PerPage, total)
		}
		to = min(from+lq.PerPage, total)
	}
	page = make([]T, 0, to-from)
	for i := from; i < to; i++ {
		page = append(page, x.entries[order(i)])
	}
	return page, total
}

// find lists the entries m matches, in name order: each place the last word's prefix occurs,
// then the other words in that entry's key.
func (x *ListIndex[T]) find(m NameMatch) []int32 {
	found := []int32{}
	if m.last == "" {
		return found
	}
	for off := 0; off < len(x.keys); {
		i := strings.Index(x.keys[off:], m.last)
		if i < 0 {
			break
		}
		// The entry whose key holds the occurrence: the last one starting at or before it.
		e := sort.SearchInts(x.at, off+i+1) - 1
		if m.matchKey(x.keys[x.at[e]:x.at[e+1]]) {
			found = append(found, int32(e))
		}
		off = x.at[e+1]
	}
	return found
}

// NameMatch is the lists' name search: every word of a q, the last as a prefix of a word,
// anywhere in the name, case and accents ignored (text.Fold).
type NameMatch struct {
	whole []string // " w " of each word but the last
	last  string   // " p" of the last word; "" when q has no word, which matches nothing
}

// NewNameMatch reads q into the search it asks for.
func NewNameMatch(q string) NameMatch {
	words := text.Words(q)
	var m NameMatch
	for i, w := range words {
		if i == len(words)-1 {
			m.last = " " + text.Fold(w)
		} else {
			m.whole = append(m.whole, " "+text.Fold(w)+" ")
		}
	}
	return m
}

// Matches reports whether name (an author's, or a category's slug and name) holds the search.
func (m NameMatch) Matches(name string) bool {
	var b strings.Builder
	writeWordsKey(&b, name)
	return m.matchKey(b.String())
}

func (m NameMatch) matchKey(key string) bool {
	if m.last == "" || !strings.Contains(key, m.last) {
		return false
	}
	for _, w := range m.whole {
		if !strings.Contains(key, w) {
			return false
		}
	}
	return true
}

// EntryName is the name a list's q searches of e (NameMatch.Matches).
func EntryName[T Entry](e T) string { return entryWords(e) }

// Lists are the whole lists of one index version, each with its ListIndex: what a replica serves
// the lists from once they are built (search/chain).
type Lists struct {
	// Version is the index version they were counted on, as the backend names it.
	Version       string
	Categories    []Category
	CategoryIndex *ListIndex[Category]
	Authors       []Author
	AuthorIndex   *ListIndex[Author]
}
