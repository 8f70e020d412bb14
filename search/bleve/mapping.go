package bleve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	regexpchar "github.com/blevesearch/bleve/v2/analysis/char/regexp"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"

	"mediagw/search"
)

// Names the index mapping refers to. They are stored in each index, so renaming one breaks
// opening indexes built before.
const (
	foldFilterName = "mediagw_fold"
	colonFilter    = "mediagw_colon"
	textAnalyzer   = "mediagw_text"
	queryAnalyzer  = "mediagw_query"
	cjkIndexFilter = "mediagw_cjk_index"

	fieldTitle       = "title"
	fieldSummary     = "summary"
	fieldDescription = "description"
	fieldTags        = "tags"
	fieldKeywords    = "keywords"
	fieldAuthorText  = "author_text"
	fieldType        = "type"
	fieldCategory    = "category"
	fieldAuthor      = "author"
	fieldLanguage    = "language"
	fieldDate        = "date"
	fieldDateSort    = "date_sort"
	fieldDownloads   = "downloads"
	fieldTitleSort   = "title_sort"
	fieldYear        = "year"
	// fieldTitleBonus is search.TitleBonus of the item's title, which its score adds.
	fieldTitleBonus = "title_bonus"
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
}

func init() {
	if err := registry.RegisterTokenFilter(foldFilterName, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return foldFilter{}, nil
	}); err != nil {
		panic(err)
	}
}

// foldFilter folds each token with search.Fold, so matching ignores case and accents exactly as the
// az and author orders do.
type foldFilter struct{}

func (foldFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := input[:0]
	for _, tok := range input {
		if isASCII(tok.Term) {
			// search.Fold of ASCII is lower case; skipping its Unicode transforms speeds up loads.
			tok.Term = bytes.ToLower(tok.Term)
			out = append(out, tok)
			continue
		}
		f := search.Fold(string(tok.Term))
		if f == "" {
			continue
		}
		tok.Term = []byte(f)
		out = append(out, tok)
	}
	return out
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// newMapping is the index mapping: analysed text for search, keywords for filters and sorts.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := mapping.NewIndexMapping()
	// CJK text has no spaces: bigrams of ideographs make words findable; the width filter
	// normalises full-width Latin before folding.
	// Unicode word rules keep "a:b" as one word (":" and its full-width and presentation forms
	// join letters in Swedish); here they separate, as search.Words splits.
	if err := im.AddCustomCharFilter(colonFilter, map[string]interface{}{
		"type":    regexpchar.Name,
		"regexp":  `[:\x{FE13}\x{FE55}\x{FF1A}]`,
		"replace": " ",
	}); err != nil {
		return nil, fmt.Errorf("colon filter: %w", err)
	}
	// The index keeps single ideographs besides bigrams, so a one-character query finds them;
	// queries use bigrams only (a lone character stays a unigram), so longer ones stay precise.
	if err := im.AddCustomTokenFilter(cjkIndexFilter, map[string]interface{}{
		"type":           cjk.BigramName,
		"output_unigram": true,
	}); err != nil {
		return nil, fmt.Errorf("cjk filter: %w", err)
	}
	for name, cjkFilter := range map[string]string{textAnalyzer: cjkIndexFilter, queryAnalyzer: cjk.BigramName} {
		if err := im.AddCustomAnalyzer(name, map[string]interface{}{
			"type":          custom.Name,
			"char_filters":  []string{colonFilter},
			"tokenizer":     unicode.Name,
			"token_filters": []string{cjk.WidthName, foldFilterName, cjkFilter},
		}); err != nil {
			return nil, fmt.Errorf("analyzer %s: %w", name, err)
		}
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
		fm.IncludeTermVectors = false
		fm.DocValues = false
		doc.AddFieldMappingsAt(name, fm)
	}
	for _, name := range []string{fieldType, fieldCategory, fieldAuthor, fieldLanguage, fieldYear, fieldTitleSort, fieldDateSort} {
		fm := mapping.NewKeywordFieldMapping()
		fm.Analyzer = keyword.Name
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		// Sorts and facets read doc values.
		fm.DocValues = name != fieldAuthor
		doc.AddFieldMappingsAt(name, fm)
	}
	// Dates are also numbers (YYYYMMDD): numeric ranges are far cheaper than ranges over date
	// terms, while sorting on the string is cheaper than decoding numbers.
	for _, name := range []string{fieldDownloads, fieldDate, fieldTitleBonus} {
		fm := mapping.NewNumericFieldMapping()
		fm.Store = false
		fm.IncludeInAll = false
		// The title bonus is read from its postings when the index opens (facetIndex).
		fm.DocValues = name != fieldTitleBonus
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

// document is what the index stores for an item.
func document(it search.Item) (map[string]interface{}, error) {
	raw, err := json.Marshal(it)
	if err != nil {
		return nil, fmt.Errorf("item %s: %w", it.ID, err)
	}
	d := map[string]interface{}{
		fieldTitle:      it.Title,
		fieldType:       it.Type,
		fieldDownloads:  float64(it.Downloads),
		fieldTitleSort:  search.TitleKey(it.Title),
		fieldTitleBonus: search.TitleBonus(it.Title),
		fieldStored:     string(raw),
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
	if it.Date != "" {
		n, err := dateNumber(it.Date)
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", it.ID, err)
		}
		d[fieldDate] = n
		d[fieldDateSort] = it.Date
		d[fieldYear] = it.Date[:4]
	}
	if len(it.Tags) > 0 {
		d[fieldTags] = it.Tags
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
