package search

// Field is a field of an item that free text searches, by its name in Item's JSON.
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
