package search

import (
	"math/bits"
	"slices"

	"mediagw/search/text"
)

// Field is a field of an item that free text searches, by its name in Item's JSON, or a field of
// the other forms of such fields' words (StemFields).
type Field string

// The searched fields (API.md: q searches title, summary, description, tags, keywords and author).
const (
	FieldTitle       Field = "title"
	FieldSummary     Field = "summary"
	FieldDescription Field = "description"
	FieldTags        Field = "tags"
	FieldKeywords    Field = "keywords"
	FieldAuthor      Field = "author"
)

// The fields of the stems of searched fields' words (text.IndexStems, in the item's language).
const (
	FieldTitleStems Field = "title_stems"
	FieldTextStems  Field = "text_stems"
)

// StemField is a field of the stems of the words of some searched fields, with the weight of a
// word found there only as another form of it.
type StemField struct {
	Field  Field
	Of     []Field
	Weight float64
}

// StemFields are the fields of stems. The title's are apart, as a title word says most; the rest
// share one field, at what a typo in the weakest of them scores, so that another form of a word
// never counts more than a typo would where it stands (a test holds it) and a search costs one
// clause per word for each.
var StemFields = []StemField{
	{FieldTitleStems, []Field{FieldTitle}, 1.5},
	{FieldTextStems, []Field{FieldSummary, FieldDescription, FieldTags, FieldKeywords}, 0.5},
}

// Texts returns the texts of f in it (a list's values, or the one value; none when empty), f a
// searched field.
func (it Item) Texts(f Field) []string {
	var out []string
	switch f {
	case FieldTitle:
		out = []string{it.Title}
	case FieldSummary:
		out = []string{it.Summary}
	case FieldDescription:
		out = []string{it.Description}
	case FieldAuthor:
		out = []string{it.Author}
	case FieldTags:
		out = it.Tags
	case FieldKeywords:
		out = it.Keywords
	}
	return slices.DeleteFunc(slices.Clone(out), func(s string) bool { return s == "" })
}

// Stems returns the stems of the words of f's fields in it, in its language (text.IndexStems).
func (f StemField) Stems(it Item) []string {
	var texts []string
	for _, of := range f.Of {
		texts = append(texts, it.Texts(of)...)
	}
	return text.IndexStems(it.Language, texts...)
}

// WeightedField is a searched field with the weight of a word found there.
type WeightedField struct {
	Field  Field
	Weight float64
}

// SearchedFields are the fields free text searches, with their weights: a word in the title or
// the author's name says more about an item than one deep in its description. Both backends read
// this table, so they rank alike.
var SearchedFields = []WeightedField{
	{FieldTitle, 3},
	{FieldAuthor, 2},
	{FieldTags, 2},
	{FieldKeywords, 1.5},
	{FieldSummary, 1.5},
	{FieldDescription, 1},
}

// TypoShare is the share of a field's weight that a word found there only within the typo
// allowance scores: the word typed as it is written outranks the neighbour it may have meant.
const TypoShare = 0.5

// Clause is one way a word of a search matches an item: in Field, exactly or (Typo) within the
// typo allowance, or (Stem) as another form of it in the stem field Field, scoring Score.
type Clause struct {
	Field Field
	Typo  bool
	Stem  bool
	Score float64
}

// Clauses are the ways a word matches, from SearchedFields: each field exactly at its weight and
// within the typo allowance at TypoShare of it; then each of StemFields at its weight.
//
// The relevance score of an item for a search is, for each word, the best Score among the
// clauses the word matches in that item, summed over the words. Both backends compute exactly
// this, so they rank alike: every Score is a multiple of a power of two (scoreUnit), so sums are
// exact in OpenSearch's float32 as in Go's float64, and equal scores fall to the contract's
// newest-then-id order in both.
var Clauses = func() []Clause {
	out := make([]Clause, 0, 2*len(SearchedFields)+len(StemFields))
	for _, typo := range []bool{false, true} {
		for _, f := range SearchedFields {
			s := f.Weight
			if typo {
				s *= TypoShare
			}
			out = append(out, Clause{Field: f.Field, Typo: typo, Score: s})
		}
	}
	for _, f := range StemFields {
		out = append(out, Clause{Field: f.Field, Stem: true, Score: f.Weight})
	}
	return out
}()

// scoreStep divides every clause's score (a test holds it), so two different sums of clause
// scores differ by scoreStep at least.
const scoreStep = 1.0 / 8

// popularityUnit is one level of Popularity in the score: a power of two, so the sum of a bonus
// and clause scores stays exact, and above every TitleBonus, so that of items whose words score
// alike the more used comes first and the title's length orders those equally used.
const popularityUnit = 1.0 / 256

// maxPopularity caps Popularity so that the bonus stays below scoreStep (2^31 downloads reach it).
const maxPopularity = int(scoreStep/popularityUnit) - 1

// titleBonusUnit is the unit of TitleBonus: a power of two, a 128th of popularityUnit, so the
// bonus of the shortest title stays below one level of popularity.
const titleBonusUnit = popularityUnit / 128

// Bonus is what an item adds to its relevance score: its Popularity in popularityUnits plus its
// TitleBonus. It stays below scoreStep, so it orders only items whose words score alike, never
// an item that matches fewer words or in weaker fields above one that matches better. The
// loaders store it with each item; both backends add the stored value.
func Bonus(it Item) float64 {
	return float64(Popularity(it.Downloads))*popularityUnit + TitleBonus(it.Title)
}

// Popularity is how much an item downloaded n times is used, in levels: floor(log2(n+1)), one
// more level for each doubling (0 for none or absent, 1 for one, 13 for 8,191 to 16,382), up to
// maxPopularity. Levels, not the count, so that items used about as much fall to their titles'
// length; docs/relevance.md has the figures of the scales tried.
func Popularity(downloads int64) int {
	if downloads <= 0 {
		return 0
	}
	return min(bits.Len64(uint64(downloads)+1)-1, maxPopularity)
}

// TitleBonus is what an item adds to its score for the length of its title, in words: the
// shorter, the more, since a short title holds less that the user did not type ("Alaska" before
// "La Alaska stafeto kaj Kaptitoj de la glacirokoj" for alaska). It stays below popularityUnit,
// so it orders only items whose words score alike and that are used about as much.
func TitleBonus(title string) float64 {
	n := len(text.Words(title))
	if n == 0 {
		return 0
	}
	return float64((int(popularityUnit/titleBonusUnit)-1)/n) * titleBonusUnit
}

// WordStems are the stems (text.QueryStems) a word of a search is matched against when searched
// as the terms terms (text.Alternatives: its own, or a synonym's, whose folded term is then
// stemmed), in the languages langs (the language filter's values, else those the index holds:
// Request.Held), or in every language with a stemmer when it is empty. Nil for terms of several
// terms (bigrams).
func WordStems(word string, terms, langs []string) []string {
	if len(terms) != 1 {
		return nil
	}
	if !slices.Equal(text.Terms(word), terms) {
		word = terms[0]
	}
	return text.QueryStems(word, langs)
}
