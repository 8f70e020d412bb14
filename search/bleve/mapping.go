package bleve

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"

	"mediagw/search"
	"mediagw/search/text"
)

// Names the index mapping refers to. They are stored in each index, so renaming one breaks
// opening indexes built before.
const (
	wordsTokenizer = "mediagw_words"
	textAnalyzer   = "mediagw_words"

	fieldTitle       = "title"
	fieldSummary     = "summary"
	fieldDescription = "description"
	fieldTags        = "tags"
	fieldKeywords    = "keywords"
	fieldAuthorText  = "author_text"
	fieldTitleStems  = "title_stems"
	fieldTextStems   = "text_stems"
	fieldType        = "type"
	fieldCategory    = "category"
	fieldAuthor      = "author"
	fieldLanguage    = "language"
	fieldDate        = "date"
	fieldDateSort    = "date_sort"
	fieldDownloads   = "downloads"
	fieldTitleSort   = "title_sort"
	fieldYear        = "year"
	fieldLicense     = "license"
	fieldFormat      = "format"
	fieldDuration    = "duration"
	// fieldReuse holds the uses the item's licence allows (search.Reuses), fieldHas what it has
	// (search.Haves).
	fieldReuse = "reuse"
	fieldHas   = "has"
	// fieldBonus is search.Bonus of the item (its popularity and title length), which its score adds.
	fieldBonus = "bonus"
	// fieldStored holds the whole item as JSON, so Item and Search return every field as loaded.
	fieldStored = "stored"
)

// textFields names the index field of each field free text searches (search.SearchedFields).
var textFields = map[search.Field]string{
	search.FieldTitle:       fieldTitle,
	search.FieldSummary:     fieldSummary,
	search.FieldDescription: fieldDescription,
	search.FieldTags:        fieldTags,
	search.FieldKeywords:    fieldKeywords,
	search.FieldAuthor:      fieldAuthorText,
	search.FieldTitleStems:  fieldTitleStems,
	search.FieldTextStems:   fieldTextStems,
}

func init() {
	if err := registry.RegisterTokenizer(wordsTokenizer, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return wordsTokenizerImpl{}, nil
	}); err != nil {
		panic(err)
	}
}

// wordsTokenizerImpl makes the index's terms with search/text, the analysis every backend shares.
type wordsTokenizerImpl struct{}

func (wordsTokenizerImpl) Tokenize(input []byte) analysis.TokenStream {
	toks := text.IndexTerms(string(input))
	out := make(analysis.TokenStream, len(toks))
	for i, t := range toks {
		out[i] = &analysis.Token{Term: []byte(t.Term), Start: t.Start, End: t.End, Position: i + 1, Type: analysis.AlphaNumeric}
	}
	return out
}

// newMapping is the index mapping: analysed text for search, keywords for filters and sorts.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	if err := im.AddCustomAnalyzer(textAnalyzer, map[string]interface{}{
		"type":      custom.Name,
		"tokenizer": wordsTokenizer,
	}); err != nil {
		return nil, fmt.Errorf("analyzer %s: %w", textAnalyzer, err)
	}
	im.DefaultAnalyzer = textAnalyzer
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false

	doc := mapping.NewDocumentStaticMapping()
	for _, sf := range search.SearchedFields {
		name := textFields[sf.Field]
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = textAnalyzer
		fm.Store = false
		fm.IncludeInAll = false
		// Phrases (search.Phrases) need each term's position.
		fm.IncludeTermVectors = true
		fm.DocValues = false
		doc.AddFieldMappingsAt(name, fm)
	}
	// The stems are made already (search.StemField.Stems): each value is one term.
	for _, sf := range search.StemFields {
		fm := mapping.NewKeywordFieldMapping()
		fm.Analyzer = keyword.Name
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.DocValues = false
		doc.AddFieldMappingsAt(textFields[sf.Field], fm)
	}
	for _, name := range []string{fieldType, fieldCategory, fieldAuthor, fieldLanguage, fieldYear, fieldTitleSort, fieldDateSort,
		fieldLicense, fieldFormat, fieldDuration, fieldReuse, fieldHas} {
		fm := mapping.NewKeywordFieldMapping()
		fm.Analyzer = keyword.Name
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		// Sorts and facets read doc values; the author, uses and parts only filter.
		fm.DocValues = !slices.Contains([]string{fieldAuthor, fieldReuse, fieldHas}, name)
		doc.AddFieldMappingsAt(name, fm)
	}
	// Dates are also numbers (YYYYMMDD): numeric ranges are far cheaper than ranges over date
	// terms, while sorting on the string is cheaper than decoding numbers.
	for _, name := range []string{fieldDownloads, fieldDate, fieldBonus} {
		fm := mapping.NewNumericFieldMapping()
		fm.Store = false
		fm.IncludeInAll = false
		// The bonus is read from its postings when the index opens (facetIndex).
		fm.DocValues = name != fieldBonus
		doc.AddFieldMappingsAt(name, fm)
	}

	stored := mapping.NewTextFieldMapping()
	stored.Index = false
	stored.Store = true
	stored.IncludeInAll = false
	stored.IncludeTermVectors = false
	stored.DocValues = false
	doc.AddFieldMappingsAt(fieldStored, stored)

	im.DefaultMapping = doc
	return im, nil
}

// document is what the index stores for an item, derived (search.Item.Derive).
func document(it search.Item) (map[string]interface{}, error) {
	it.Derive()
	raw, err := json.Marshal(it)
	if err != nil {
		return nil, fmt.Errorf("item %s: %w", it.ID, err)
	}
	d := map[string]interface{}{
		fieldTitle:     it.Title,
		fieldType:      it.Type,
		fieldDownloads: float64(it.Downloads),
		fieldTitleSort: search.TitleKey(it.Title),
		fieldBonus:     search.Bonus(it),
		fieldStored:    string(raw),
	}
	set := func(k, v string) {
		if v != "" {
			d[k] = v
		}
	}
	set(fieldSummary, it.Summary)
	set(fieldDescription, it.Description)
	set(fieldAuthorText, it.Author)
	set(fieldAuthor, it.Author)
	set(fieldCategory, it.Category)
	set(fieldLanguage, it.Language)
	set(fieldLicense, it.MediaLicense.ID)
	set(fieldFormat, it.Format)
	set(fieldDuration, it.Duration)
	if uses := it.Uses(); len(uses) > 0 {
		d[fieldReuse] = uses
	}
	if has := it.Has(); len(has) > 0 {
		d[fieldHas] = has
	}
	if it.Date != "" {
		n, err := dateNumber(it.Date)
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", it.ID, err)
		}
		d[fieldDate] = n
		d[fieldDateSort] = it.Date
		d[fieldYear] = it.Year()
	}
	if len(it.Tags) > 0 {
		d[fieldTags] = it.Tags
	}
	for _, sf := range search.StemFields {
		if stems := sf.Stems(it); len(stems) > 0 {
			d[textFields[sf.Field]] = stems
		}
	}
	if len(it.Keywords) > 0 {
		d[fieldKeywords] = it.Keywords
	}
	return d, nil
}

// dateNumber turns YYYY-MM-DD into the number YYYYMMDD, which orders as the date does.
func dateNumber(date string) (float64, error) {
	if len(date) != 10 || date[4] != '-' || date[7] != '-' {
		return 0, fmt.Errorf("date %q is not YYYY-MM-DD", date)
	}
	n, err := strconv.Atoi(date[:4] + date[5:7] + date[8:])
	if err != nil || n < 0 {
		return 0, fmt.Errorf("date %q is not YYYY-MM-DD", date)
	}
	return float64(n), nil
}
