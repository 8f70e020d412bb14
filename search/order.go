package search

import (
	"cmp"
	"slices"
	"strings"

	"mediagw/search/text"
)

// TitleKey is the sort key of the az order: the folded title.
func TitleKey(title string) string { return text.Fold(title) }

// AuthorKey is name's sort key, the folded name, a NUL, then the name, so that an engine sorting
// keys byte by byte sorts authors: for names without a NUL (KeyOrdersAuthor), AuthorLess(a, b)
// exactly when AuthorKey(a) < AuthorKey(b).
func AuthorKey(name string) string { return text.Fold(name) + "\x00" + name }

// KeyOrdersAuthor reports whether key, an AuthorKey, orders its author as AuthorLess does: when
// the name holds no NUL, which would compare with the separator.
func KeyOrdersAuthor(key string) bool { return strings.Count(key, "\x00") == 1 }

// AuthorName is the name an AuthorKey holds.
func AuthorName(key string) string {
	if KeyOrdersAuthor(key) {
		_, name, _ := strings.Cut(key, "\x00")
		return name
	}
	for i := 0; i < len(key); i++ {
		if key[i] == 0 && text.Fold(key[i+1:]) == key[:i] {
			return key[i+1:]
		}
	}
	return key
}

// AuthorLess orders author names case- and accent-insensitively, then exactly, so the order is total.
func AuthorLess(a, b string) bool {
	fa, fb := text.Fold(a), text.Fold(b)
	if fa != fb {
		return fa < fb
	}
	return a < b
}

// SortAuthors sorts authors in AuthorLess order. It folds each name once, where sorting with
// AuthorLess folds two names per comparison: 100,000 authors cost 100,000 folds, not millions.
func SortAuthors(authors []Author) {
	type keyed struct {
		key    string
		author Author
	}
	ks := make([]keyed, len(authors))
	for i, a := range authors {
		ks[i] = keyed{text.Fold(a.Name), a}
	}
	slices.SortFunc(ks, func(x, y keyed) int {
		return cmp.Or(strings.Compare(x.key, y.key), strings.Compare(x.author.Name, y.author.Name))
	})
	for i, k := range ks {
		authors[i] = k.author
	}
}
