package searchtest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"mediagw/search"
	"mediagw/search/text"
)

// QueryKind is how a user remembers the item they search for (the known-item benchmark).
type QueryKind string

// The kinds of known-item query KnownItems makes.
const (
	// KindTitle: the title's first words (up to knownItemWords).
	KindTitle QueryKind = "title"
	// KindRarest: the title's two rarest words (by document frequency in the catalogue), in the
	// title's order; only for titles of three words or more, where they are not the title itself.
	KindRarest QueryKind = "two rarest words"
	// KindTypo: KindTitle with one letter of its longest word changed (a word of six letters or
	// more), the typo a user makes.
	KindTypo QueryKind = "title with a typo"
	// KindShortTypo: KindTitle with one letter of its longest word of four or five letters
	// changed: users mistype short words too ("lsat", "nigth"), and these are the words a stricter
	// typo allowance (search.OneTypoFrom) would leave without one.
	KindShortTypo QueryKind = "title with a typo in a short word"
	// KindPossessive: KindTitle of a title with a possessive ("The Winter's Tale"), typed without
	// it ("the winter tale"); for every such item, not every tenth, as they are few.
	KindPossessive QueryKind = "title with a possessive"
	// KindElision: KindTitle of a title with an elided article ("... de l'Amérique ..."), typed
	// without the article ("... de amerique ..."); for every such item.
	KindElision QueryKind = "title with an elision"
	// KindPopular: the one distinctive word of a popular item's title ("alice",
	// "sawyer", "darkness"): the word of its title fewest items hold, among those whose titles the
	// item is the most downloaded of; for the popularItems most downloaded items that have one.
	// Other titles hold the word too and it scores alike in all of them, so it is the item's
	// popularity that must put it first: success@1 is the figure.
	KindPopular QueryKind = "a popular item's one distinctive title word"
	// KindOtherForm: the title's rarest word in another form that the catalogue holds in the
	// item's language (the same stem: "schnelle" for "schnelleren"), then its second rarest word
	// as written; for titles of two words or more in a language with a stemmer.
	KindOtherForm QueryKind = "another form of the rarest title word"
	// KindOtherFormFar: KindOtherForm whose form is beyond the typo allowance of the word in the
	// title ("gets" for "getting"): only the stems find it.
	KindOtherFormFar QueryKind = "another form beyond the typo allowance"
	// KindExactFirst: one title word that other titles hold in another form: an item holding it
	// as typed must come first (ExactFirst), whichever item it is.
	KindExactFirst QueryKind = "a word other titles hold in another form"
)

// QueryKinds are the kinds in the order reports list them; KindExactFirst is measured apart
// (ExactFirst), as it seeks no one item.
var QueryKinds = []QueryKind{KindTitle, KindRarest, KindTypo, KindShortTypo, KindPossessive, KindElision, KindPopular, KindOtherForm, KindOtherFormFar}

// KnownItem is a search a user makes for one item they know: Text should find the item ID,
// whose language is Lang.
type KnownItem struct {
	Kind QueryKind
	Text string
	ID   string
	Lang string
}

// knownItemWords caps the title words a known-item query types.
const knownItemWords = 6

// KnownItems makes the known-item queries of a catalogue: for every tenth item whose title has a
// word, one of each kind that applies to it. Items whose title another item has too (ignoring case
// and accents: 108 of the real catalogue's are "Untitled", series of prints share theirs) are left
// out: their title cannot single them out, and the contract orders them by date and id, not by
// relevance.
func KnownItems(items []search.Item) []KnownItem {
	df := documentFrequencies(items)
	forms, titleForms := wordForms(items)
	titles := map[string]int{}
	for _, it := range items {
		titles[text.Fold(it.Title)]++
	}
	var out []KnownItem
	for i, it := range items {
		if titles[text.Fold(it.Title)] > 1 {
			continue
		}
		words := text.Words(it.Title)
		if len(words) == 0 {
			continue
		}
		first := words[:min(len(words), knownItemWords)]
		possessive, elision := apostrophes(it.Title)
		if possessive {
			out = append(out, KnownItem{Kind: KindPossessive, Text: strings.Join(first, " "), ID: it.ID})
		}
		if elision {
			out = append(out, KnownItem{Kind: KindElision, Text: strings.Join(first, " "), ID: it.ID})
		}
		if i%10 != 0 {
			continue
		}
		out = append(out, KnownItem{Kind: KindTitle, Text: strings.Join(first, " "), ID: it.ID})
		if len(words) > 2 {
			out = append(out, KnownItem{Kind: KindRarest, Text: strings.Join(rarest(words, df, 2), " "), ID: it.ID})
		}
		if typo, ok := WithTypo(first, 6, math.MaxInt); ok {
			out = append(out, KnownItem{Kind: KindTypo, Text: strings.Join(typo, " "), ID: it.ID})
		}
		if typo, ok := WithTypo(first, 4, 5); ok {
			out = append(out, KnownItem{Kind: KindShortTypo, Text: strings.Join(typo, " "), ID: it.ID})
		}
		out = append(out, otherForms(it, words, df, forms, titleForms)...)
	}
	return append(out, popularWords(items, titles, df)...)
}

// popularItems caps the KindPopular queries.
const popularItems = 200

// distinctive: a KindPopular word is held by at most one item in distinctive ("and" is no
// word a user seeks "Pride and Prejudice" by).
const distinctive = 100

// popularWords are the KindPopular queries of items: for the most downloaded items (the lower id
// first on a tie) whose title no other item has (titles counts them by folded title), the word of
// the title that the fewest items hold in any searched field (df; the earlier on a tie) among
// those that another title holds too and whose titles the item has strictly the most downloads
// of; up to popularItems of them.
func popularWords(items []search.Item, titles, df map[string]int) []KnownItem {
	// Per folded title word: how many titles hold it, the most downloads of one, and how many
	// of them have that many.
	type holders struct {
		titles, atMost int
		most           int64
	}
	byWord := map[string]*holders{}
	words := make([][]string, len(items))
	for i, it := range items {
		words[i] = text.Words(it.Title)
		seen := map[string]bool{}
		for _, w := range words[i] {
			f := text.Fold(w)
			if seen[f] {
				continue
			}
			seen[f] = true
			h := byWord[f]
			if h == nil {
				h = &holders{}
				byWord[f] = h
			}
			h.titles++
			switch {
			case it.Downloads > h.most || h.titles == 1:
				h.most, h.atMost = it.Downloads, 1
			case it.Downloads == h.most:
				h.atMost++
			}
		}
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(-cmp.Compare(items[a].Downloads, items[b].Downloads), strings.Compare(items[a].ID, items[b].ID))
	})
	var out []KnownItem
	for _, i := range order {
		it := items[i]
		if len(out) == popularItems || it.Downloads == 0 {
			break
		}
		if titles[text.Fold(it.Title)] > 1 {
			continue
		}
		pick := ""
		for _, w := range words[i] {
			f := text.Fold(w)
			if h := byWord[f]; h.titles < 2 || h.most != it.Downloads || h.atMost > 1 || df[f]*distinctive > len(items) {
				continue
			}
			if pick == "" || df[f] < df[text.Fold(pick)] {
				pick = w
			}
		}
		if pick != "" {
			out = append(out, KnownItem{Kind: KindPopular, Text: pick, ID: it.ID})
		}
	}
	return out
}

// apostrophes reports whether the first knownItemWords words of title have a possessive ("'s")
// and an elided article ("l'", "dell’"), which search/text leaves out of the words.
func apostrophes(title string) (possessive, elision bool) {
	chunks := strings.FieldsFunc(title, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	})
	for _, c := range chunks[:min(len(chunks), knownItemWords)] {
		i := strings.IndexAny(c, "'’")
		if i <= 0 {
			continue
		}
		rest := strings.TrimLeft(c[i:], "'’")
		switch words := text.Words(c); {
		case strings.EqualFold(rest, "s"):
			possessive = true
		case len(words) == 1 && words[0] == rest:
			elision = true
		}
	}
	return possessive, elision
}

// documentFrequencies counts, for each folded word, the items that have it in a searched field.
func documentFrequencies(items []search.Item) map[string]int {
	df := map[string]int{}
	for _, it := range items {
		seen := map[string]bool{}
		for _, s := range append([]string{it.Title, it.Summary, it.Description, it.Author}, append(it.Tags, it.Keywords...)...) {
			for _, w := range text.Words(s) {
				if f := text.Fold(w); !seen[f] {
					seen[f] = true
					df[f]++
				}
			}
		}
	}
	return df
}

// wordForms are, per stem (text.IndexStems, keyed by language), the folded words of that
// language's items in any searched field with the number of items holding each (forms), and in a
// title with the number of titles holding each (titleForms).
func wordForms(items []search.Item) (forms, titleForms map[string]map[string]int) {
	forms, titleForms = map[string]map[string]int{}, map[string]map[string]int{}
	count := func(into map[string]map[string]int, lang string, texts []string) {
		seen := map[string]bool{}
		for _, s := range texts {
			for _, w := range text.Words(s) {
				f := text.Fold(w)
				stems := text.IndexStems(lang, w)
				if seen[f] || len(stems) != 1 {
					continue
				}
				seen[f] = true
				if into[stems[0]] == nil {
					into[stems[0]] = map[string]int{}
				}
				into[stems[0]][f]++
			}
		}
	}
	for _, it := range items {
		count(forms, it.Language, append([]string{it.Title, it.Summary, it.Description, it.Author}, append(it.Tags, it.Keywords...)...))
		count(titleForms, it.Language, []string{it.Title})
	}
	return forms, titleForms
}

// otherForms are it's KindOtherForm, KindOtherFormFar and KindExactFirst queries, of its title's
// words: its rarest word (df) in the other form the most items hold (the first in byte order on
// a tie), which no word of the title is, then its second rarest word; and the rarest word alone
// when another title holds another form of it.
func otherForms(it search.Item, words []string, df map[string]int, forms, titleForms map[string]map[string]int) []KnownItem {
	byRarity := slices.Clone(words)
	slices.SortStableFunc(byRarity, func(a, b string) int { return cmp.Compare(df[text.Fold(a)], df[text.Fold(b)]) })
	stems := text.IndexStems(it.Language, byRarity[0])
	if len(stems) != 1 {
		return nil
	}
	word := text.Fold(byRarity[0])
	var out []KnownItem
	for f, n := range titleForms[stems[0]] {
		if f != word && (n > 1 || !slices.ContainsFunc(words, func(w string) bool { return text.Fold(w) == f })) {
			out = append(out, KnownItem{Kind: KindExactFirst, Text: byRarity[0], ID: it.ID, Lang: it.Language})
			break
		}
	}
	if len(words) < 2 {
		return out
	}
	pick, most := "", 0
	for f, n := range forms[stems[0]] {
		if slices.ContainsFunc(words, func(w string) bool { return text.Fold(w) == f }) {
			continue
		}
		if n > most || n == most && f < pick {
			pick, most = f, n
		}
	}
	if pick == "" {
		return out
	}
	q := pick + " " + byRarity[1]
	out = append(out, KnownItem{Kind: KindOtherForm, Text: q, ID: it.ID, Lang: it.Language})
	if !search.EditsWithin(pick, word, search.TypoAllowance(pick)) {
		out = append(out, KnownItem{Kind: KindOtherFormFar, Text: q, ID: it.ID, Lang: it.Language})
	}
	return out
}

// ExactFirst is the share of the KindExactFirst queries whose first result (pages, in the order
// of queries) holds the word as typed in a searched field, and how many there were.
func ExactFirst(items []search.Item, queries []KnownItem, pages [][]string) (float64, int) {
	byID := make(map[string]search.Item, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	hits, n := 0, 0
	for i, k := range queries {
		if k.Kind != KindExactFirst {
			continue
		}
		n++
		if len(pages[i]) > 0 && holds(byID[pages[i][0]], text.Fold(k.Text)) {
			hits++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(hits) / float64(n), n
}

// holds reports whether a searched field of it has the folded word w.
func holds(it search.Item, w string) bool {
	for _, s := range append([]string{it.Title, it.Summary, it.Description, it.Author}, append(it.Tags, it.Keywords...)...) {
		if slices.Contains(text.QueryTerms(s), w) {
			return true
		}
	}
	return false
}

// exactFirstAim is the share of KindExactFirst queries whose first result must hold the word as
// typed.
const exactFirstAim = 0.98

// rarest are the n words with the fewest items (the earlier on a tie), in words' order.
func rarest(words []string, df map[string]int, n int) []string {
	idx := make([]int, len(words))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(df[text.Fold(words[a])], df[text.Fold(words[b])]) })
	idx = idx[:min(n, len(idx))]
	slices.Sort(idx)
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = words[j]
	}
	return out
}

// WithTypo is words with the longest one of shortest to longest runes misspelt (the first on a
// tie): its middle letter changed to the next letter of its alphabet, if there is such a word and
// it can be.
func WithTypo(words []string, shortest, longest int) ([]string, bool) {
	pick, n := -1, 0
	for j, w := range words {
		if l := utf8.RuneCountInString(w); l >= shortest && l <= longest && l > n {
			pick, n = j, l
		}
	}
	if pick < 0 {
		return nil, false
	}
	typo, ok := misspell(words[pick])
	if !ok {
		return nil, false
	}
	words = slices.Clone(words)
	words[pick] = typo
	return words, true
}

// misspell changes the middle letter of w to the next letter of its alphabet: one substitution,
// an edit in every engine's count.
func misspell(w string) (string, bool) {
	rs := []rune(w)
	m := len(rs) / 2
	r := rs[m]
	switch {
	case r == 'z':
		rs[m] = 'a'
	case r == 'Z':
		rs[m] = 'A'
	case unicode.IsLetter(r) && unicode.IsLetter(r+1) && unicode.SimpleFold(r+1) != r:
		rs[m] = r + 1
	default:
		return "", false
	}
	return string(rs), true
}

// Relevance is how well a backend finds known items: the share found first (success@1), the
// share found on the first page of ten (success@10) and the mean reciprocal rank within it (MRR).
type Relevance struct {
	Queries                  int
	Success1, Success10, MRR float64
}

// add counts one query's page into the sums that mean turns into shares.
func (r *Relevance) add(page []string, want string) {
	r.Queries++
	if i := slices.Index(page, want); i >= 0 {
		if i == 0 {
			r.Success1++
		}
		r.Success10++
		r.MRR += 1 / float64(i+1)
	}
}

// mean turns the sums of add into shares of the queries.
func (r Relevance) mean() Relevance {
	if r.Queries > 0 {
		r.Success1 /= float64(r.Queries)
		r.Success10 /= float64(r.Queries)
		r.MRR /= float64(r.Queries)
	}
	return r
}

func (r Relevance) String() string {
	return fmt.Sprintf("success@1 %.3f, success@10 %.3f, MRR %.3f (%d queries)", r.Success1, r.Success10, r.MRR, r.Queries)
}

// below reports whether r falls short of floor in any of its figures.
func (r Relevance) below(floor Relevance) bool {
	return r.Success1 < floor.Success1 || r.Success10 < floor.Success10 || r.MRR < floor.MRR
}

// relevanceFloor is, per kind, the relevance both backends reached on the real catalogue
// (docs/relevance.md), rounded down: the figures are deterministic for a catalogue, so a change
// that loses known items fails. With popularity in the score (search.Bonus), a more used title
// holding the same words may come before the one sought, which the title kinds' MRR shows.
var relevanceFloor = map[QueryKind]Relevance{
	KindTitle:      {Success10: 0.999, MRR: 0.986},
	KindRarest:     {Success10: 0.999, MRR: 0.978},
	KindTypo:       {Success10: 0.989, MRR: 0.971},
	KindShortTypo:  {Success10: 0.991, MRR: 0.976},
	KindPossessive: {Success10: 0.995, MRR: 0.989},
	KindElision:    {Success10: 0.999, MRR: 0.989},
	KindPopular:    {Success1: 0.944, Success10: 0.999, MRR: 0.972},
	// Stems find another form of a word (search.StemFields).
	KindOtherForm:    {Success10: 0.995, MRR: 0.927},
	KindOtherFormFar: {Success10: 0.985, MRR: 0.927},
}

// sameTenAim is the share of known-item queries whose first ten results the backends must agree
// on, whatever the engine line; their first results must agree for every query.
const sameTenAim = 0.995

// rankingPage is the first page the comparison reads: the ten results a user sees.
const rankingPage = 10

// RunRankingAgreement loads the real catalogue (the lines the reader accepts) into two backends
// and compares their rankings on the known-item queries (KnownItems): the first result must be
// the same for every query and the first ten for sameTenAim of them, and each backend
// must find the known items at least as well as relevanceFloor, per kind. It logs each
// backend's Relevance per kind. It skips when the real catalogue is not there.
func RunRankingAgreement(t *testing.T, openA, openB Open) {
	AnswersOnly(t)
	items, queries := RealKnownItems(t)
	a, b := openA(t, items), openB(t, items)
	// The backends answer at once, each several of its queries at a time (firstPages): the
	// comparison takes minutes under -race, and one backend's work overlaps the other's.
	var (
		pagesA [][]string
		errA   error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		pagesA, errA = firstPages(t.Context(), a, queries)
	}()
	pagesB, errB := firstPages(t.Context(), b, queries)
	<-done
	if err := cmp.Or(errA, errB); err != nil {
		t.Fatal(err)
	}
	var sameTen int
	relA, relB := Relevances(queries, pagesA), Relevances(queries, pagesB)
	for i, k := range queries {
		gotA, gotB := pagesA[i], pagesB[i]
		if slices.Equal(gotA, gotB) {
			sameTen++
		}
		if len(gotA) > 0 && len(gotB) > 0 && gotA[0] == gotB[0] || len(gotA) == 0 && len(gotB) == 0 {
			continue
		}
		t.Errorf("Search(%q) (%s of %s): first results differ:\n  A %v\n  B %v", k.Text, k.Kind, k.ID, gotA, gotB)
	}
	n := float64(len(queries))
	t.Logf("%d known-item queries on %d items: same first ten %d (%.1f%%)", len(queries), len(items), sameTen, 100*float64(sameTen)/n)
	if float64(sameTen) < sameTenAim*n {
		t.Errorf("the same first ten for %.1f%% of the queries, want %.0f%%", 100*float64(sameTen)/n, 100*sameTenAim)
	}
	for _, kind := range QueryKinds {
		floor := relevanceFloor[kind]
		for name, rel := range map[string]Relevance{"A": relA[kind], "B": relB[kind]} {
			t.Logf("%s, %s: %v", name, kind, rel)
			if rel.below(floor) {
				t.Errorf("%s finds the known items of kind %q with %v, below the %v reached", name, kind, rel, floor)
			}
		}
	}
	compareSwapped(t, a, b, queries)
	for name, pages := range map[string][][]string{"A": pagesA, "B": pagesB} {
		share, n := ExactFirst(items, queries, pages)
		t.Logf("%s, %s: the word as typed first for %.3f (%d queries)", name, KindExactFirst, share, n)
		if share < exactFirstAim {
			t.Errorf("%s puts an item holding the word as typed first for %.3f of %q, want %.2f", name, share, KindExactFirst, exactFirstAim)
		}
		for lang, rel := range byLanguage(queries, pages, KindOtherForm) {
			t.Logf("%s, %s, %s: %v", name, KindOtherForm, lang, rel)
		}
	}
}

// swappedAim is the share of title prefixes typed with two letters swapped that must still
// complete to their title.
const swappedAim = 0.80

// compareSwapped completes the title prefix of each KindTitle query typed with two letters
// swapped (Swapped) on both backends: the answers must be the same, and hold the title for
// swappedAim of them.
func compareSwapped(t *testing.T, a, b search.Backend, queries []KnownItem) {
	found, n := 0, 0
	for _, k := range queries {
		typed, ok := Swapped(k.Text)
		if k.Kind != KindTitle || !ok {
			continue
		}
		n++
		c, cancel := context.WithTimeout(t.Context(), callTimeout)
		gotA, errA := a.Complete(c, typed, search.DefaultCompletions)
		gotB, errB := b.Complete(c, typed, search.DefaultCompletions)
		cancel()
		if err := cmp.Or(errA, errB); err != nil {
			t.Fatalf("Complete(%q): %v", typed, err)
		}
		if !slices.Equal(gotA, gotB) {
			t.Errorf("Complete(%q) differs:\n  A %v\n  B %v", typed, gotA, gotB)
		}
		if slices.ContainsFunc(gotA, func(c search.Completion) bool { return c.ID == k.ID }) {
			found++
		}
	}
	share := float64(found) / float64(max(n, 1))
	t.Logf("a title prefix with two letters swapped completes to its title for %.3f (%d prefixes)", share, n)
	if share < swappedAim {
		t.Errorf("a title prefix with two letters swapped completes to its title for %.3f, want %.2f", share, swappedAim)
	}
}

// Swapped is what a person typing the start of a title (up to four words) makes of it with two
// letters swapped: the last word cut to five letters, its second and third swapped ("Wlaki" of
// "Walking"); false when that word is shorter than search.CompleteTypoFrom or the letters alike.
func Swapped(title string) (string, bool) {
	words := text.Words(title)
	words = slices.Clone(words[:min(len(words), 4)])
	if len(words) == 0 {
		return "", false
	}
	rs := []rune(words[len(words)-1])
	if len(rs) < search.CompleteTypoFrom || !unicode.IsLetter(rs[1]) || !unicode.IsLetter(rs[2]) || text.Fold(string(rs[1])) == text.Fold(string(rs[2])) {
		return "", false
	}
	rs = rs[:min(len(rs), 5)]
	rs[1], rs[2] = rs[2], rs[1]
	words[len(words)-1] = string(rs)
	return strings.Join(words, " "), true
}

// byLanguage is the Relevance of the queries of kind per language of their items.
func byLanguage(queries []KnownItem, pages [][]string, kind QueryKind) map[string]Relevance {
	var of []KnownItem
	var ofPages [][]string
	for i, k := range queries {
		if k.Kind == kind {
			k.Kind = QueryKind(k.Lang)
			of, ofPages = append(of, k), append(ofPages, pages[i])
		}
	}
	out := map[string]Relevance{}
	for lang, rel := range Relevances(of, ofPages) {
		out[string(lang)] = rel
	}
	return out
}

// RealKnownItems are the real catalogue's items (the lines the reader accepts) and their
// known-item queries (KnownItems). It skips when the catalogue is not there.
func RealKnownItems(t *testing.T) ([]search.Item, []KnownItem) {
	_, items, _ := realCatalogue(t)
	return items, KnownItems(items)
}

// Relevances are the Relevance per kind of the known-item queries, given the ids of the first
// page of ten each query found, in the same order.
func Relevances(queries []KnownItem, pages [][]string) map[QueryKind]Relevance {
	sums := map[QueryKind]Relevance{}
	for i, k := range queries {
		r := sums[k.Kind]
		r.add(pages[i], k.ID)
		sums[k.Kind] = r
	}
	out := make(map[QueryKind]Relevance, len(sums))
	for kind, r := range sums {
		out[kind] = r.mean()
	}
	return out
}

// firstPages are the ids of the first page of ten of each query, ranked by relevance. It sends
// pageWorkers queries at once: one at a time leaves an engine's other cores idle, and the
// thousands of queries took minutes of CI.
func firstPages(ctx context.Context, b search.Backend, queries []KnownItem) ([][]string, error) {
	out := make([][]string, len(queries))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(pageWorkers)
	for i, k := range queries {
		g.Go(func() error {
			q := search.Query{Text: k.Text, Sort: search.SortRelevance, Page: 1, PerPage: rankingPage}
			c, cancel := context.WithTimeout(ctx, callTimeout)
			defer cancel()
			res, err := b.Search(c, search.NewRequest(q))
			if err != nil {
				return fmt.Errorf("Search(%s): %w", describe(q), err)
			}
			out[i] = ids(res.Items)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// pageWorkers is how many of its queries firstPages sends at once.
const pageWorkers = 4
