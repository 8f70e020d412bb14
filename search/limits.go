package search

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"

	"mediagw/search/text"
)

// Limits of the contract (API.md and CATALOGUE.md). The loader and the gateway both check them
// here, so an item that loads can always be asked for.
const (
	// MaxIDBytes is OpenSearch's own limit of a document _id.
	MaxIDBytes = 512
	// MaxSlugLen bounds a category slug.
	MaxSlugLen = 100
	// MaxListBytes bounds a comma list of category slugs or of languages, whose values no set
	// bounds.
	MaxListBytes = 200
	// MaxTextRunes bounds the free text of a search.
	MaxTextRunes = 200
	// MaxAuthorRunes bounds the author filter.
	MaxAuthorRunes = 200
	// DefaultPerPage is a page's size when the client names none.
	DefaultPerPage = 20
	// MaxPerPage is the largest page a client may ask for.
	MaxPerPage = 50
	// MaxDepth caps page × per_page: deep pages cost the engine more than they help anyone.
	MaxDepth = 10000
)

// Limits of completions and related items.
const (
	// MaxCompleteRunes bounds the text of a completion request.
	MaxCompleteRunes = 100
	// DefaultCompletions and MaxCompletions bound the completions of one request.
	DefaultCompletions = 10
	MaxCompletions     = 10
	// DefaultRelated is how many related items a request gets unless it asks for up to MaxPerPage.
	DefaultRelated = 10
)

// Maxima of an item's text, in characters (runes), and of its tags and keywords: well above what
// real catalogues hold, so that a line past one is an export's fault or an attack, not a record.
const (
	MaxTitleRunes       = 1000
	MaxSummaryRunes     = 2000
	MaxDescriptionRunes = 50000
	// MaxTerms bounds the number of tags and, apart, of keywords; MaxTermRunes each one.
	MaxTerms     = 100
	MaxTermRunes = 200
)

// CheckText returns the key and the reason of the first of it's title, summary, description,
// tags and keywords that passes its maximum, or "" and nil.
func CheckText(it Item) (key string, err error) {
	for _, f := range []struct {
		key  string
		text string
		max  int
	}{{"title", it.Title, MaxTitleRunes}, {"summary", it.Summary, MaxSummaryRunes}, {"description", it.Description, MaxDescriptionRunes}} {
		if n := utf8.RuneCountInString(f.text); n > f.max {
			return f.key, fmt.Errorf("is %d characters long, over the maximum of %d", n, f.max)
		}
	}
	for _, f := range []struct {
		key   string
		terms []string
	}{{"tags", it.Tags}, {"keywords", it.Keywords}} {
		if len(f.terms) > MaxTerms {
			return f.key, fmt.Errorf("holds %d strings, over the maximum of %d", len(f.terms), MaxTerms)
		}
		for i, t := range f.terms {
			if n := utf8.RuneCountInString(t); n > MaxTermRunes {
				return f.key, fmt.Errorf("string %d is %d characters long, over the maximum of %d", i+1, n, MaxTermRunes)
			}
		}
	}
	return "", nil
}

// Reasons an id is refused; CheckID wraps one of them with the offending detail.
var (
	ErrIDEmpty      = errors.New("is empty")
	ErrIDTooLong    = fmt.Errorf("is longer than %d bytes", MaxIDBytes)
	ErrIDEncoding   = errors.New("is not valid UTF-8")
	ErrIDControl    = errors.New("holds a control character")
	ErrIDFormat     = errors.New("holds a format character (bidi control or zero-width mark)")
	ErrIDWhiteSpace = errors.New("holds white space")
)

// IDLimits says an id's limits in words, for error messages.
var IDLimits = fmt.Sprintf("must be 1 to %d bytes of UTF-8 with no control or format character (Unicode Cc, Cf) and no white space", MaxIDBytes)

// CheckID reports whether s is an item id: 1 to MaxIDBytes bytes of UTF-8 with no control
// character (Cc), no format character (Cf: bidi overrides and zero-width marks, which would show
// one id as another) and no white space (Unicode's White_Space property). An id is otherwise kept
// exactly as the catalogue gives it, so "é" in NFC and in NFD are two ids.
func CheckID(s string) error {
	switch {
	case s == "":
		return ErrIDEmpty
	case len(s) > MaxIDBytes:
		return ErrIDTooLong
	case !utf8.ValidString(s):
		return ErrIDEncoding
	}
	for i, r := range s {
		switch {
		case unicode.IsControl(r):
			return fmt.Errorf("%w (U+%04X at byte %d)", ErrIDControl, r, i)
		case unicode.Is(unicode.Cf, r):
			return fmt.Errorf("%w (U+%04X at byte %d)", ErrIDFormat, r, i)
		case unicode.Is(unicode.White_Space, r):
			return fmt.Errorf("%w (U+%04X at byte %d)", ErrIDWhiteSpace, r, i)
		}
	}
	return nil
}

// MaxBatchBytes bounds the TextBytes of the items a loader holds in one batch, so that a load's
// memory does not follow what a catalogue's lines hold.
const MaxBatchBytes = 4 << 20

// TextBytes is the bytes of it's strings: what holding it costs, give or take a constant.
func TextBytes(it Item) int {
	n := 0
	for _, s := range [...]string{it.ID, it.Type, it.Title, it.Summary, it.Description, it.Author, it.Category,
		it.CategoryName, it.Language, it.Date, it.Permalink, it.SHA256, it.MediaURL, it.ThumbnailURL, it.MimeType,
		it.License, it.Rights, it.Source, it.Format, it.Duration} {
		n += len(s)
	}
	for _, terms := range [...][]string{it.Tags, it.Keywords} {
		for _, t := range terms {
			n += len(t)
		}
	}
	return n
}

// SlugLimits says a slug's limits in words, for error messages.
var SlugLimits = fmt.Sprintf("must be a category slug: 1 to %d of a-z, 0-9 and '-'", MaxSlugLen)

// ValidSlug reports whether s is a category slug: 1 to MaxSlugLen of a-z, 0-9 and '-'.
func ValidSlug(s string) bool {
	if len(s) < 1 || len(s) > MaxSlugLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// ParseDate accepts exactly YYYY-MM-DD naming a day that exists.
func ParseDate(s string) (time.Time, bool) {
	if len(s) != len(time.DateOnly) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// languageNames maps a folded English name to its code.
var languageNames = func() map[string]string {
	m := map[string]string{}
	for code, names := range Languages() {
		for _, n := range names {
			m[text.Fold(n)] = code
		}
	}
	return m
}()

// ParseLanguage turns what a client may give as a language into an ISO 639-1 code: a code (en),
// a BCP 47 tag whose primary subtag is one (en-GB), or an English name (English), ignoring case.
// A catalogue gives codes only, and is checked with LanguageCode. The gateway trims what a client
// sends before.
func ParseLanguage(s string) (string, bool) {
	primary, rest, isTag := strings.Cut(strings.ReplaceAll(s, "_", "-"), "-")
	if code, ok := LanguageCode(primary); ok {
		// The rest of a tag must be well-formed BCP 47 (en-GB yes, en-!! no), though only the
		// primary subtag narrows the search.
		if !isTag {
			return code, true
		}
		if rest != "" {
			if _, err := language.Parse(s); err == nil {
				return code, true
			}
		}
		return "", false
	}
	code, ok := languageNames[text.Fold(s)]
	return code, ok
}

// DefaultSort is the order of a query that names none: relevance when q searches text (words or
// phrases, Searches), newest otherwise: a query of only exclusions lists every other item as a
// query without text does.
func DefaultSort(q *Query) Sort {
	if q.Searches() {
		return SortRelevance
	}
	return SortNewest
}

// DeepestPage is the last page a client may ask for at perPage items a page: page × per_page may
// not pass MaxDepth.
func DeepestPage(perPage int) int { return MaxDepth / perPage }

// Normalize fills in the defaults of the contract: page 1, DefaultPerPage items, and
// DefaultSort; and the text's spacing (text.Collapse), so that what differs in it alone is one query. Relevance without text is newest, since every score is then equal; saying so keeps
// two queries that return the same pages equal. The query codec calls it once; the backends take
// the query as it leaves (search.Backend), and decide nothing of it again.
func (q *Query) Normalize() {
	q.Text = text.Collapse(q.Text)
	for _, l := range q.lists() {
		*l = l.canonical()
	}
	if q.Page < 1 {
		q.Page = 1
	}
	if q.PerPage < 1 {
		q.PerPage = DefaultPerPage
	}
	if q.Sort == "" || (q.Sort == SortRelevance && DefaultSort(q) != SortRelevance) {
		q.Sort = DefaultSort(q)
	}
}
