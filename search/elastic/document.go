package elastic

import (
	"slices"
	"strings"
	"sync"

	"mediagw/search"
	"mediagw/search/text"
)

// Document is what a load sends for an item: the item, plus the az sort key and the score's bonus
// computed in Go so both backends sort and score alike, and the terms of its searched fields. The
// mapping keeps most terms out of the stored _source (mappings/items.json): they are indexed, never
// read back, and would more than double each hit the engine reads and sends; related items'
// more_like_this reads the title's, tags' and keywords' from there. The load benchmark
// (bench) sends the same.
type Document struct {
	search.Item
	TitleSort string `json:"title_sort"`
	// Bonus is search.Bonus: what the item's relevance score adds for its popularity and title.
	Bonus float64 `json:"bonus"`
	// Year is the date's year, which the year facet counts (facetFields).
	Year string `json:"year,omitempty"`
	// Has lists what the item has of search.Haves, which the has filter asks for.
	Has []string `json:"has,omitempty"`
	// AuthorKey is the author's search.AuthorKey, which the authors list counts so that the
	// engine gives it in order.
	AuthorKey string `json:"author_key,omitempty"`
	// The terms of each searched field (search/text), spaces between them: the engine splits them
	// at spaces only, so it holds the words the embedded index holds and needs no analysis of its
	// own (mappings/items.json uses only the built-in whitespace analyzer, on every engine line).
	TitleTerms       string   `json:"w_title,omitempty"`
	SummaryTerms     string   `json:"w_summary,omitempty"`
	DescriptionTerms string   `json:"w_description,omitempty"`
	TagsTerms        []string `json:"w_tags,omitempty"`
	KeywordsTerms    []string `json:"w_keywords,omitempty"`
	AuthorTerms      string   `json:"w_author,omitempty"`
	// The stems of the words of search.StemFields' fields (the title's, the rest's) in the item's language
	// (text.IndexStems), spaces between them.
	TitleStems string `json:"s_title,omitempty"`
	TextStems  string `json:"s_text,omitempty"`
	// TitlePrefixes holds the prefixes of the title's terms, up to maxPrefixRunes runes, for
	// completions.
	TitlePrefixes string `json:"title_prefixes,omitempty"`
	// Vocabulary holds every distinct term of the searched fields and stem of the stem fields, as
	// values the engine can list (Backend.Words), for the did-you-mean's dictionary.
	Vocabulary []string `json:"vocabulary,omitempty"`
}

// NewDocument is the stored document of it, derived (search.Item.Derive).
func NewDocument(it search.Item) Document {
	it.Derive()
	d := Document{Item: it, TitleSort: search.TitleKey(it.Title), Bonus: search.Bonus(it), Year: it.Year(), Has: it.Has()}
	if it.Author != "" {
		d.AuthorKey = search.AuthorKey(it.Author)
	}
	// Each field is read once for its terms and the stems of the stem field holding it.
	stems := make([]*text.Stems, len(search.StemFields))
	for i := range search.StemFields {
		stems[i] = text.NewStems(it.Language)
		defer stems[i].Release()
	}
	stemsOf := func(f search.Field) *text.Stems {
		for i, sf := range search.StemFields {
			if slices.Contains(sf.Of, f) {
				return stems[i]
			}
		}
		return nil
	}
	// all grows to every term of the item: sized at a term per few bytes of text, it is made
	// once instead of doubling from nothing.
	all := make([]string, 0, 16+search.TextBytes(it)/6)
	tp := tokens.Get().(*[]text.Token)
	defer tokens.Put(tp)
	toks := *tp
	defer func() { *tp = toks[:0] }()
	terms := func(f search.Field, s string) string {
		if s == "" {
			return ""
		}
		toks = text.AppendIndex(toks[:0], s, stemsOf(f))
		from := len(all)
		for _, t := range toks {
			all = append(all, t.Term)
		}
		return strings.Join(all[from:], " ")
	}
	list := func(f search.Field, ss []string) []string {
		var out []string
		for _, s := range ss {
			if t := terms(f, s); t != "" {
				out = append(out, t)
			}
		}
		return out
	}
	d.TitleTerms = terms(search.FieldTitle, it.Title)
	d.SummaryTerms = terms(search.FieldSummary, it.Summary)
	d.DescriptionTerms = terms(search.FieldDescription, it.Description)
	d.TagsTerms = list(search.FieldTags, it.Tags)
	d.KeywordsTerms = list(search.FieldKeywords, it.Keywords)
	d.AuthorTerms = terms(search.FieldAuthor, it.Author)
	d.TitlePrefixes = prefixes(d.TitleTerms)
	for i, sf := range search.StemFields {
		held := stems[i].List()
		all = append(all, held...)
		stems := strings.Join(held, " ")
		switch sf.Field {
		case search.FieldTitleStems:
			d.TitleStems = stems
		case search.FieldTextStems:
			d.TextStems = stems
		}
	}
	slices.Sort(all)
	d.Vocabulary = slices.Compact(all)
	return d
}

// tokens keeps the token buffers of NewDocument, whose terms are copied out of them.
var tokens = sync.Pool{New: func() any { return new([]text.Token) }}

// prefixes returns the distinct prefixes of the space-separated terms, each up to maxPrefixRunes runes.
func prefixes(terms string) string {
	var b strings.Builder
	b.Grow(2 * len(terms))
	fields := strings.Fields(terms)
	for k, t := range fields {
		// A prefix an earlier term starts with was given with that term.
		given := 0
		for _, u := range fields[:k] {
			given = max(given, commonPrefix(t, u))
		}
		n := 0
		for i := range t {
			if i == 0 {
				continue
			}
			if n++; n > maxPrefixRunes {
				break
			}
			if i > given {
				addTerm(&b, t[:i])
			}
		}
		if n < maxPrefixRunes && len(t) > given {
			addTerm(&b, t)
		}
	}
	return b.String()
}

// commonPrefix is the length in bytes of the longest prefix a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// addTerm appends t to b, after a space unless b is empty.
func addTerm(b *strings.Builder, t string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(t)
}
