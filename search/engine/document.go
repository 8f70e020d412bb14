package engine

import (
	"slices"
	"strings"

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
	var all []string
	terms := func(s string) string {
		var ts []string
		for _, t := range text.IndexTerms(s) {
			ts = append(ts, t.Term)
		}
		all = append(all, ts...)
		return strings.Join(ts, " ")
	}
	list := func(ss []string) []string {
		var out []string
		for _, s := range ss {
			if t := terms(s); t != "" {
				out = append(out, t)
			}
		}
		return out
	}
	d.TitleTerms = terms(it.Title)
	d.SummaryTerms = terms(it.Summary)
	d.DescriptionTerms = terms(it.Description)
	d.TagsTerms = list(it.Tags)
	d.KeywordsTerms = list(it.Keywords)
	d.AuthorTerms = terms(it.Author)
	d.TitlePrefixes = prefixes(d.TitleTerms)
	for _, sf := range search.StemFields {
		held := sf.Stems(it)
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

// prefixes returns the distinct prefixes of the space-separated terms, each up to maxPrefixRunes runes.
func prefixes(terms string) string {
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Fields(terms) {
		n := 0
		for i := range t {
			if i == 0 {
				continue
			}
			if n++; n > maxPrefixRunes {
				break
			}
			if p := t[:i]; !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		if n < maxPrefixRunes && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}
