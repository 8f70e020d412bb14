package search

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"mediagw/search/text"
	"slices"
	"strings"
	"testing"
)

// authorNames makes n distinct names from first and last names in several spellings, so many fold
// to the same key and only the exact comparison orders them: "Émile Zola", "emile zola", "EMILE ZOLA".
func authorNames(n int, seed uint64) []string {
	first := []string{"Émile", "Emile", "Anna", "Ånna", "Jöns", "Jons", "Γιάννης", "Zoë", "Zoe", "Łukasz", "Lukasz", "Ærø", "Straße", "羅", "Ìñigo", "Inigo", "ann", "Ann"}
	last := []string{"Zola", "Verne", "Berzelius", "Βλάχος", "Goethe", "Müller", "Muller", "Mueller", "O'Brien", "de la Cruz", "Nguyễn", "Nguyen", "Dvořák", "Dvorak"}
	spell := []func(string) string{
		func(s string) string { return s },
		strings.ToUpper,
		strings.ToLower,
		func(s string) string { return " " + s + " " },
	}
	r := rand.New(rand.NewPCG(seed, seed))
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		name := spell[r.IntN(len(spell))](first[r.IntN(len(first))] + " " + last[r.IntN(len(last))])
		if r.IntN(4) == 0 {
			name += fmt.Sprintf(" %d", r.IntN(n))
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

func authorsOf(names []string) []Author {
	as := make([]Author, len(names))
	for i, n := range names {
		as[i] = Author{Name: n, Count: i + 1}
	}
	return as
}

func byAuthorLess(x, y Author) int {
	switch {
	case AuthorLess(x.Name, y.Name):
		return -1
	case AuthorLess(y.Name, x.Name):
		return 1
	}
	return 0
}

func TestSortAuthorsIsAuthorLessOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 50, 3000} {
		as := authorsOf(authorNames(n, uint64(n)))
		keys := map[string]bool{}
		for _, a := range as {
			keys[text.Fold(a.Name)] = true
		}
		if n >= 50 && len(keys) > n*9/10 {
			t.Fatalf("n=%d: only %d names share a folded key; the test needs ties", n, n-len(keys))
		}
		want := slices.Clone(as)
		slices.SortFunc(want, byAuthorLess)
		SortAuthors(as)
		if !slices.Equal(as, want) {
			for i := range as {
				if as[i] != want[i] {
					t.Fatalf("n=%d: at %d SortAuthors has %q, AuthorLess order has %q", n, i, as[i].Name, want[i].Name)
				}
			}
		}
	}
}

// BenchmarkSortAuthors sorts 13,542 authors (the generated 100,000-item catalogue's count):
// SortAuthors; sorting with AuthorLess; and what the backends did before SortAuthors, a map of
// keys from the original Fold.
func BenchmarkSortAuthors(b *testing.B) {
	names := authorsOf(authorNames(13542, 1))
	run := func(name string, sort func([]Author)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			as := make([]Author, len(names))
			for b.Loop() {
				copy(as, names)
				sort(as)
			}
		})
	}
	run("SortAuthors", SortAuthors)
	run("AuthorLess", func(as []Author) { slices.SortFunc(as, byAuthorLess) })
	run("before", func(as []Author) {
		folded := make(map[string]string, len(as))
		for _, a := range as {
			folded[a.Name] = text.Fold(a.Name)
		}
		slices.SortFunc(as, func(x, y Author) int {
			return cmp.Or(strings.Compare(folded[x.Name], folded[y.Name]), strings.Compare(x.Name, y.Name))
		})
	})
}

// TestAuthorKeyOrder: names sorted by AuthorKey, byte by byte, are in AuthorLess order, and each
// key gives its name back, a NUL in the name included (whose key does not order it).
func TestAuthorKeyOrder(t *testing.T) {
	names := authorNames(2000, 7)
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = AuthorKey(n)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if !KeyOrdersAuthor(k) {
			t.Fatalf("AuthorKey(%q) does not order it", AuthorName(k))
		}
		if i > 0 && !AuthorLess(AuthorName(keys[i-1]), AuthorName(k)) {
			t.Errorf("by key %q before %q, which AuthorLess does not", AuthorName(keys[i-1]), AuthorName(k))
		}
	}
	for _, n := range []string{"Ann", "a\x00B", "\x00", "x\x00\x00y", ""} {
		if got := AuthorName(AuthorKey(n)); got != n {
			t.Errorf("AuthorName(AuthorKey(%q)) = %q", n, got)
		}
	}
	if KeyOrdersAuthor(AuthorKey("a\x00B")) {
		t.Error("a key of a name with a NUL says it orders it")
	}
}
