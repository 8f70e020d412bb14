package searchtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mediagw/search"
	"mediagw/search/spell"
	"mediagw/search/text"
)

// RunExtras checks the search-box extras (facets, completions, related items, the words the
// did-you-mean's neighbours come from and the correction built on them) on the fixture, against the reference model where the contract fixes
// the answer and against the contract's invariants where the engine's scoring decides.
func RunExtras(t *testing.T, open Open) {
	items := Fixture(t)
	b := open(t, items)
	t.Run("Facets", func(t *testing.T) { testFacets(t, b, items, facetQueries) })
	t.Run("Complete", func(t *testing.T) { testComplete(t, b, items, completions) })
	t.Run("Related", func(t *testing.T) { testRelated(t, b, items, items) })
	t.Run("Words", func(t *testing.T) { testWords(t, b, items) })
	t.Run("Neighbours", func(t *testing.T) { testNeighbours(t, b, items, typos) })
	t.Run("Matches", func(t *testing.T) { testMatches(t, b, items, typos) })
	t.Run("Totals", func(t *testing.T) { testTotals(t, b, items) })
	t.Run("Correct", func(t *testing.T) { testCorrect(t, b, items) })
}

// runRealExtras checks the extras on the real catalogue, where they meet thousands of titles,
// every script and long-tailed downloads: the same checks on searches, prefixes and words of it.
func runRealExtras(t *testing.T, b search.Backend, items []search.Item) {
	t.Run("Facets", func(t *testing.T) {
		testFacets(t, b, items, []search.Query{
			{}, {Language: "fr"}, {Type: search.TypeDocument, From: "1900-01-01", To: "1999-12-31"},
			{Text: "history"}, {Text: "python", Type: search.TypeVideo},
			{Type: "document,video", License: "by,by-sa"}, {Reuse: "commercial", Duration: "long"},
		})
	})
	t.Run("Complete", func(t *testing.T) {
		testComplete(t, b, items, []completion{
			{"p", 10}, {"pr", 10}, {"pride", 10}, {"pride and p", 10}, {"the", 10}, {"history of", 10},
			{"a", 3}, {"e", 10}, {"ηλ", 10}, {"jons", 10}, {"python", 10}, {"python t", 10},
		})
	})
	t.Run("Related", func(t *testing.T) {
		var sample []search.Item
		for i := 0; i < len(items); i += 211 {
			sample = append(sample, items[i])
		}
		testRelated(t, b, items, sample)
	})
	t.Run("Words", func(t *testing.T) { testWords(t, b, items) })
	t.Run("Neighbours", func(t *testing.T) {
		testNeighbours(t, b, items, []string{"prejudise", "pyhton", "ptyhno", "elektra", "jons", "berzelus", "teh", "histroy"})
	})
	t.Run("Matches", func(t *testing.T) {
		testMatches(t, b, items, []string{"prejudise", "pyhton", "the", "jons", "teh", "histroy", "history", "ab"})
	})
}

// facetQueries are searches whose facets the suite checks: with and without text, with the
// facets' own filters and others.
var facetQueries = []search.Query{
	{},
	{Type: search.TypePhoto},
	{Category: "nature", Language: "fr"},
	{From: "2019-01-01", To: "2021-12-31"},
	{Type: search.TypeVideo, Language: "en", From: "2020-01-01"},
	{Category: "no-such-category"},
	{Text: "harbour"},
	{Text: "elan", Type: search.TypePhoto},
	{Text: "python keynote", Language: "en"},
	{Text: "zzzzqqq"},
	{Text: "harbour", Author: "Jane Doe", Type: search.TypePhoto},
	{Type: "photo,video", Language: "en,fr"},
	{License: "by,unknown", Format: "jpeg,mp4"},
	{Duration: "short", Reuse: "commercial"},
	{License: "in-copyright", Duration: "long,medium", Has: "media"},
	{Category: "nature,people", License: "unknown", Format: "jpeg"},
	{Text: "harbour", License: "unknown,by"},
}

func testFacets(t *testing.T, b search.Backend, items []search.Item, queries []search.Query) {
	names := map[string]string{}
	for _, c := range categories(items) {
		names[c.Slug] = c.Name
	}
	all := search.FacetSet(0)
	for _, f := range search.Facets {
		all |= search.FacetSet(f)
	}
	for _, base := range queries {
		base.Normalize()
		plain := search1(t, b, base)
		if plain.Facets != nil {
			t.Errorf("Search(%s) without facets asked: Facets %v, want nil", describe(base), plain.Facets)
		}
		q := base
		q.Facets = all
		res := search1(t, b, q)
		if res.Total != plain.Total || !slices.Equal(ids(res.Items), ids(plain.Items)) {
			t.Errorf("Search(%s): facets changed the answer: total %d ids %v, want %d %v", describe(q), res.Total, ids(res.Items), plain.Total, ids(plain.Items))
		}
		for _, f := range search.Facets {
			values, ok := res.Facets[f]
			if !ok || values == nil {
				t.Errorf("Search(%s): facet %s missing (want a list, empty when no value)", describe(q), f)
				continue
			}
			if !slices.IsSortedFunc(values, facetOrder) || len(values) > search.MaxFacetValues {
				t.Errorf("Search(%s): facet %s not in count-then-value order or over %d values: %+v", describe(q), f, search.MaxFacetValues, values)
			}
			if base.Text == "" {
				if want := modelFacet(items, base.Without(f), f, names); !slices.Equal(values, want) {
					t.Errorf("Search(%s): facet %s = %+v, want %+v", describe(q), f, values, want)
				}
			}
			// Asked alone, a facet counts the same: the filters of the facets not asked for
			// are then every count's.
			alone := base
			alone.Facets = search.FacetSet(f)
			if got := search1(t, b, alone).Facets[f]; !slices.Equal(got, values) {
				t.Errorf("Search(%s): facet %s asked alone = %+v, want %+v as with every facet", describe(alone), f, got, values)
			}
			for _, v := range values {
				narrowed := base.With(f, v.Value)
				narrowed.PerPage = 1
				if got := search1(t, b, narrowed).Total; got != v.Count {
					t.Errorf("Search(%s): facet %s value %q counts %d, but a search filtered to it finds %d", describe(q), f, v.Value, v.Count, got)
				}
				if f == search.FacetCategory && v.Name != names[v.Value] {
					t.Errorf("facet category %q named %q, want %q as the categories list names it", v.Value, v.Name, names[v.Value])
				}
				if f != search.FacetCategory && v.Name != "" {
					t.Errorf("facet %s value %q has a name %q", f, v.Value, v.Name)
				}
			}
		}
	}
}

func facetOrder(a, b search.FacetValue) int {
	return cmp.Or(-cmp.Compare(a.Count, b.Count), strings.Compare(a.Value, b.Value))
}

// modelFacet counts f's values over the items matching q (a query without text).
func modelFacet(items []search.Item, q search.Query, f search.Facet, names map[string]string) []search.FacetValue {
	counts := map[string]int{}
	for _, it := range items {
		if !matches(it, q) {
			continue
		}
		if v := it.Value(f); v != "" {
			counts[v]++
		}
	}
	out := []search.FacetValue{}
	for v, n := range counts {
		fv := search.FacetValue{Value: v, Count: n}
		if f == search.FacetCategory {
			fv.Name = names[v]
		}
		out = append(out, fv)
	}
	return search.TopFacetValues(out)
}

// completion is a text being typed and how many completions are asked for.
type completion struct {
	text string
	n    int
}

var completions = []completion{
	{"s", 10}, {"sun", 10}, {"SUNSET OV", 10}, {"harbour", 10}, {"the", 3}, {"the f", 10},
	{"élan", 10}, {"ELAN V", 10}, {"keynote: the fut", 10}, {"untitled", 2}, {"zzzz", 10}, {"sunset zzzz", 10},
	{`"(*`, 10},
	// Through a typo in the last word: two letters swapped, one changed, dropped or added.
	{"snuset", 10}, {"harbuor", 3}, {"sunset ovr", 10}, {"the fture", 10}, {"hrabour", 10},
}

func testComplete(t *testing.T, b search.Backend, items []search.Item, cases []completion) {
	for _, tt := range cases {
		got, err := b.Complete(ctx(t), tt.text, tt.n)
		if err != nil {
			t.Errorf("Complete(%q, %d): %v", tt.text, tt.n, err)
			continue
		}
		if want := modelComplete(items, tt.text, tt.n); !slices.Equal(got, want) || got == nil {
			t.Errorf("Complete(%q, %d) = %+v, want %+v (never nil)", tt.text, tt.n, got, want)
		}
	}
}

// modelComplete is what Complete must answer: titles holding every word of text, the last as a
// prefix of a word, folded; the most downloaded first, then by id; then, when those are fewer
// than n and the last word may differ by an edit (search.CompleteTypo), the titles holding a word
// a prefix of which is within an edit of it, in the same order.
func modelComplete(items []search.Item, q string, n int) []search.Completion {
	words := text.Words(q)
	out := []search.Completion{}
	if len(words) == 0 {
		return out
	}
	for i := range words {
		words[i] = text.Fold(words[i])
	}
	last := words[len(words)-1]
	var hits, near []search.Item
	for _, it := range items {
		title := text.Words(it.Title)
		for i := range title {
			title[i] = text.Fold(title[i])
		}
		ok := true
		for _, w := range words[:len(words)-1] {
			ok = ok && slices.Contains(title, w)
		}
		switch {
		case !ok:
		case slices.ContainsFunc(title, func(tw string) bool { return strings.HasPrefix(tw, last) }):
			hits = append(hits, it)
		case search.CompleteTypo(last) && slices.ContainsFunc(title, func(tw string) bool { return prefixWithinEdit(tw, last) }):
			near = append(near, it)
		}
	}
	byDownloads := func(a, b search.Item) int {
		return cmp.Or(-cmp.Compare(a.Downloads, b.Downloads), strings.Compare(a.ID, b.ID))
	}
	slices.SortFunc(hits, byDownloads)
	slices.SortFunc(near, byDownloads)
	for _, it := range append(hits, near...)[:min(n, len(hits)+len(near))] {
		out = append(out, search.Completion{Text: it.Title, ID: it.ID})
	}
	return out
}

// prefixWithinEdit reports whether a prefix of w is within one edit of p.
func prefixWithinEdit(w, p string) bool {
	rs, n := []rune(w), utf8.RuneCountInString(p)
	for l := max(n-1, 0); l <= min(n+1, len(rs)); l++ {
		if search.EditsWithin(string(rs[:l]), p, 1) {
			return true
		}
	}
	return false
}

// testRelated checks the related items of each of sample, items of items.
func testRelated(t *testing.T, b search.Backend, items, sample []search.Item) {
	byID := map[string]search.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	found := 0
	for _, it := range sample {
		got, err := b.Related(ctx(t), it.ID, search.DefaultRelated)
		if err != nil {
			t.Errorf("Related(%q): %v", it.ID, err)
			continue
		}
		if got == nil || len(got) > search.DefaultRelated {
			t.Errorf("Related(%q): %d items (nil: %v), want at most %d, never nil", it.ID, len(got), got == nil, search.DefaultRelated)
		}
		found += len(got)
		seen := map[string]bool{}
		for _, r := range got {
			if r.ID == it.ID || seen[r.ID] {
				t.Errorf("Related(%q) holds %q itself or twice", it.ID, r.ID)
			}
			seen[r.ID] = true
			if !shareSomething(it, byID[r.ID]) {
				t.Errorf("Related(%q) holds %q, which shares no title word, tag, keyword, category or author with it", it.ID, r.ID)
			}
		}
		few, err := b.Related(ctx(t), it.ID, 3)
		if err != nil || !slices.Equal(ids(few), ids(got[:min(3, len(got))])) {
			t.Errorf("Related(%q, 3) = %v, %v; want the first 3 of %v", it.ID, ids(few), err, ids(got))
		}
	}
	if found == 0 {
		t.Error("no item of the fixture has a related item")
	}
	// Alike by text alone: "Field notes" shares a title word with "A field guide to marsh birds",
	// and neither category nor author.
	if _, ok := byID["do-nocat"]; ok {
		got, err := b.Related(ctx(t), "do-nature", search.DefaultRelated)
		if err != nil || !slices.Contains(ids(got), "do-nocat") {
			t.Errorf("Related(do-nature) = %v, %v; want do-nocat among them, by its title", ids(got), err)
		}
	}
	if _, err := b.Related(ctx(t), "no-such-item", 10); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("Related(unknown): %v, want search.ErrNotFound", err)
	}
}

// shareSomething reports whether a and b have a folded title word, tag, keyword, category or
// author in common.
func shareSomething(a, b search.Item) bool {
	if a.Category != "" && a.Category == b.Category || a.Author != "" && a.Author == b.Author {
		return true
	}
	bag := func(it search.Item) map[string]bool {
		m := map[string]bool{}
		for _, s := range slices.Concat([]string{it.Title, it.Author}, it.Tags, it.Keywords) {
			for _, t := range text.IndexTerms(s) {
				m[t.Term] = true
			}
		}
		return m
	}
	ab, bb := bag(a), bag(b)
	for w := range ab {
		if bb[w] {
			return true
		}
	}
	return false
}

// typos are words to find the neighbours of in the fixture: typos of its words (a transposition
// is one edit: "teh", "hrabuor"), its words themselves, and words near none. "talk" and "dog" are
// in many items; "review", "evening" and "another" are two edits from a word at their start
// ("view", "opening", "other").
var typos = []string{"harbuor", "harbour", "sunst", "ELAN", "pyhton", "keynot", "zzzzqqq", "ox", "Élan", "teh", "hrabuor",
	"talk", "dog", "review", "evening", "another"}

// testWords checks that Words lists the terms of the searched fields (text.IndexTerms), each of
// them once with the number of items holding it, and nothing else.
func testWords(t *testing.T, b search.Backend, items []search.Item) {
	words, err := b.Words(ctx(t))
	if err != nil {
		t.Fatalf("Words: %v", err)
	}
	terms := termItems(items)
	listed := map[string]bool{}
	for _, w := range words {
		if listed[w.Text] {
			t.Errorf("Words lists %q twice", w.Text)
		}
		listed[w.Text] = true
		if n, ok := terms[w.Text]; !ok {
			t.Errorf("Words lists %q, which no searched field holds", w.Text)
		} else if w.Items != n {
			t.Errorf("Words counts %d items holding %q, want %d", w.Items, w.Text, n)
		}
	}
	for w := range terms {
		if !listed[w] {
			t.Errorf("Words leaves out %q", w)
		}
	}
}

// termItems counts, for each term of the searched fields (text.IndexTerms) and stem of the stem
// fields (search.StemField.Stems), the items holding it in any of them.
func termItems(items []search.Item) map[string]int {
	out := map[string]int{}
	for _, it := range items {
		seen := map[string]bool{}
		for _, s := range searched(it) {
			for _, tok := range text.IndexTerms(s) {
				if !seen[tok.Term] {
					seen[tok.Term] = true
					out[tok.Term]++
				}
			}
		}
		for _, sf := range search.StemFields {
			for _, stem := range sf.Stems(it) {
				if !seen[stem] {
					seen[stem] = true
					out[stem]++
				}
			}
		}
	}
	return out
}

// testNeighbours checks the neighbours of each word alone and of all of them together, as a
// search/spell.Speller finds them in the words the backend lists, against the model.
func testNeighbours(t *testing.T, b search.Backend, items []search.Item, words []string) {
	vocab := vocabulary(items)
	sp := spell.New(b, spell.Options{})
	for _, s := range append(slices.Clone(words), strings.Join(words, " ")) {
		near, err := sp.Neighbours(ctx(t), text.Words(s))
		if err != nil {
			t.Fatalf("Neighbours(%q): %v", s, err)
		}
		if len(near) != len(text.Words(s)) {
			t.Errorf("Neighbours(%q): of %d words, want %d: %q", s, len(near), len(text.Words(s)), near)
		}
		for _, word := range text.Words(s) {
			got, ok := near[word]
			if want := modelNeighbours(vocab, word); !ok || !slices.Equal(got, want) || got == nil {
				t.Errorf("Neighbours(%q): of %q = %q, want %q (never nil)", s, word, got, want)
			}
		}
	}
}

// testMatches checks the matches of words, each alone and all together, as a
// search/spell.Speller finds them in the words the backend lists, against the model.
func testMatches(t *testing.T, b search.Backend, items []search.Item, words []string) {
	vocab := terms(items)
	sp := spell.New(b, spell.Options{})
	for _, ws := range append([][]string{words}, splitEach(words)...) {
		got, err := sp.Matches(ctx(t), ws)
		if err != nil {
			t.Fatalf("Matches(%q): %v", ws, err)
		}
		if want := modelMatches(vocab, ws); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Matches(%q) = %q, want %q", ws, got, want)
		}
	}
}

// splitEach is each of words alone.
func splitEach(words []string) [][]string {
	out := make([][]string, len(words))
	for i, w := range words {
		out[i] = []string{w}
	}
	return out
}

// testTotals checks that Totals counts each alternative as its own search would: under filters,
// with the replaced word anywhere in the text, with a word the text holds twice, and with a word
// that matches nothing; both by
// what the words match (search.Matches) and without it.
func testTotals(t *testing.T, b search.Backend, items []search.Item) {
	vocab, indexed := vocabulary(items), terms(items)
	for _, q := range []search.Query{
		{Text: "harbour sunst"},
		{Text: "sunset harbuor", Type: search.TypePhoto},
		{Text: "pyhton keynote", Language: "en", From: "2000-01-01"},
		{Text: "elan"},
		// A word that matches nothing leaves every other word's alternatives nothing to count.
		{Text: "harbour qqzzvvxx sunst"},
		{Text: "teh talk teh", Sort: search.SortNewest, Page: 2, Facets: search.FacetSet(search.FacetType)},
	} {
		q.Normalize()
		var alts []search.Alternative
		for _, w := range text.Words(q.Text) {
			near := modelNeighbours(vocab, w)
			for _, n := range append(near[:min(3, len(near))], "zzzzqqq") {
				alts = append(alts, search.Alternative{Word: w, With: n})
			}
		}
		words := text.Words(q.Text)
		for _, a := range alts {
			words = append(words, a.With)
		}
		for _, m := range []search.Matches{nil, modelMatches(indexed, words)} {
			got, err := b.Totals(ctx(t), search.NewRequest(q), alts, m)
			if err != nil {
				t.Errorf("Totals(%s, %d matches): %v", describe(q), len(m), err)
				continue
			}
			if len(got) != len(alts) {
				t.Errorf("Totals(%s, %d matches): %d totals for %d alternatives", describe(q), len(m), len(got), len(alts))
				continue
			}
			for i, a := range alts {
				alt := q
				alt.Text, alt.Page, alt.Facets = a.Text(q.Text), 1, 0
				if want := search1(t, b, alt).Total; got[i] != want {
					t.Errorf("Totals(%s, %d matches): %q for %q counts %d, its search %d", describe(q), len(m), a.With, a.Word, got[i], want)
				}
			}
		}
	}
}

// terms is the terms of the searched fields of items, as an index holds them (text.Terms): what
// words match.
func terms(items []search.Item) map[string]bool {
	v := map[string]bool{}
	for _, it := range items {
		for _, s := range searched(it) {
			for _, w := range text.Words(s) {
				for _, t := range text.Terms(w) {
					v[t] = true
				}
			}
		}
	}
	return v
}

// vocabulary is the folded words of the searched fields of items.
func vocabulary(items []search.Item) map[string]bool {
	v := map[string]bool{}
	for _, it := range items {
		for _, s := range searched(it) {
			for _, w := range text.Words(s) {
				v[text.Fold(w)] = true
			}
		}
	}
	return v
}

// searched is the text of it's searched fields.
func searched(it search.Item) []string {
	return slices.Concat([]string{it.Title, it.Summary, it.Description, it.Author}, it.Tags, it.Keywords)
}

// modelNeighbours is what Neighbours must answer.
func modelNeighbours(vocab map[string]bool, word string) []string {
	w := text.Fold(word)
	out := []string{}
	for v := range vocab {
		if v != w && search.EditsWithin(w, v, search.TypoAllowance(w)) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), search.MaxNeighbours)]
}

// modelMatches is what Matches must answer, from the terms of the items (terms).
func modelMatches(vocab map[string]bool, words []string) search.Matches {
	out := search.Matches{}
	for _, word := range words {
		terms := text.Terms(word)
		if len(terms) != 1 {
			continue
		}
		w := terms[0]
		m := []string{}
		for v := range vocab {
			if v == w || search.EditsWithin(w, v, search.TypoAllowance(w)) {
				m = append(m, v)
			}
		}
		slices.Sort(m)
		if len(m) <= spell.MaxMatches {
			out[word] = m
		}
	}
	return out
}

// modelVocabulary is the model's spell.Vocabulary: of words, of terms, and of the items holding
// each term.
type modelVocabulary struct {
	words, terms map[string]bool
	items        map[string]int
}

func (v modelVocabulary) Neighbours(_ context.Context, words []string) (map[string][]string, error) {
	near := map[string][]string{}
	for _, w := range words {
		near[w] = modelNeighbours(v.words, w)
	}
	return near, nil
}

func (v modelVocabulary) Matches(_ context.Context, words []string) (search.Matches, error) {
	return modelMatches(v.terms, words), nil
}

func (v modelVocabulary) Items(_ context.Context, words []string) (map[string]int, error) {
	out := map[string]int{}
	for _, w := range words {
		if terms := text.Terms(w); len(terms) == 1 {
			out[w] = v.items[terms[0]]
		}
	}
	return out, nil
}

// testCorrect checks Correct with the model's neighbours, matches and items: a misspelt word is
// changed, so that the text finds items, and a correctly spelt one is left alone.
func testCorrect(t *testing.T, b search.Backend, items []search.Item) {
	vocab := modelVocabulary{vocabulary(items), terms(items), termItems(items)}
	for _, tt := range []struct{ text, want string }{
		{"sunset harbuor", "sunset harbour"},
		{"pyhton keynote", "python keynote"},
		{"hrabuor", "harbour"},
		{"harbour zzzzqqq", ""},
		{"harbour", ""},
		{"elan", ""},
		{"zzzzqqq", ""},
	} {
		q := search.Query{Text: tt.text}
		q.Normalize()
		got, err := spell.Correct(ctx(t), b, search.NewRequest(q), vocab, spell.DefaultMargin)
		if err != nil {
			t.Errorf("Correct(%q): %v", tt.text, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Correct(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if got == "" {
			continue
		}
		alt := q
		alt.Text = got
		if n := search1(t, b, alt).Total; n == 0 {
			t.Errorf("Correct(%q) = %q, which finds nothing", tt.text, got)
		}
		if changed := wordDiff(text.Words(tt.text), text.Words(got)); changed != 1 {
			t.Errorf("Correct(%q) = %q changes %d words, want 1", tt.text, got, changed)
		}
	}
}

func wordDiff(a, b []string) int {
	if len(a) != len(b) {
		return -1
	}
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
