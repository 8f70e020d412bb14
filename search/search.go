// Package search defines what the gateway asks of a search engine: the item model, a typed query,
// and the Backend interface that each engine (search/bleve, search/elastic) implements.
package search

import (
	"context"
	"errors"
	"iter"
	"time"

	"mediagw/search/rights"
)

// Item is one catalogue entry as the index stores it and the backends return it.
type Item struct {
	ID          string   `json:"id"`
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Summary     string   `json:"summary,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	Author      string   `json:"author,omitempty"`
	Category    string   `json:"category,omitempty"`
	// CategoryName is the category's display name as the catalogue gives it, or empty; the
	// categories list names each category with PickCategoryName.
	CategoryName string `json:"category_name,omitempty"`
	Language     string `json:"language,omitempty"`
	// Date is YYYY-MM-DD, or empty when the catalogue has none.
	Date      string `json:"date,omitempty"`
	Downloads int64  `json:"downloads"`
	Permalink string `json:"permalink,omitempty"`
	// SHA256 is the media file's digest in lower-case hex, or empty when unknown.
	SHA256          string   `json:"sha256,omitempty"`
	MediaURL        string   `json:"media_url,omitempty"`
	ThumbnailURL    string   `json:"thumbnail_url,omitempty"`
	MimeType        string   `json:"mime_type,omitempty"`
	SizeBytes       *int64   `json:"size_bytes,omitempty"`
	DurationSeconds *float64 `json:"duration_seconds,omitempty"`
	Width           *int64   `json:"width,omitempty"`
	Height          *int64   `json:"height,omitempty"`
	// License is the licence of the catalogue record (the metadata), not the media's.
	License string `json:"license,omitempty"`
	// Rights is the statement of the rights in the media as the catalogue gives it.
	Rights string `json:"rights,omitempty"`
	Source string `json:"source,omitempty"`
	// MediaLicense, Format and Duration are read from Rights, MimeType and DurationSeconds at
	// load (Derive).
	MediaLicense rights.License `json:"media_license"`
	Format       string         `json:"format,omitempty"`
	Duration     string         `json:"duration,omitempty"`
}

// Item types.
const (
	TypePhoto    = "photo"
	TypeVideo    = "video"
	TypeDocument = "document"
)

// Types lists every item type, in the order the contract names them.
var Types = []string{TypePhoto, TypeVideo, TypeDocument}

// Sort is a total order of results; every order ends with id ascending.
type Sort string

// The orders of the contract.
const (
	// SortRelevance is the engine's score, then SortNewest.
	SortRelevance Sort = "relevance"
	// SortNewest is date descending; items without a date come last.
	SortNewest Sort = "newest"
	// SortOldest is date ascending; items without a date come last.
	SortOldest Sort = "oldest"
	// SortDownloads is downloads descending, then date descending.
	SortDownloads Sort = "downloads"
	// SortAZ is title ascending, ignoring case and accents (see TitleKey).
	SortAZ Sort = "az"
)

// Sorts lists every order in the contract.
var Sorts = []Sort{SortRelevance, SortNewest, SortOldest, SortDownloads, SortAZ}

// Query is a validated search as the client asked it, and nothing else: what the chain derives
// from it is in its Request. Empty filters mean "any".
type Query struct {
	// Text is the user's free text outside its operators (q less its phrases and exclusions, as the
	// query codec reads them), matched against title, summary, description, tags, keywords and
	// author, every word within the typo allowance. It is never parsed as query syntax: a backend
	// takes quotes and minus signs in it as separators between words.
	Text string
	// Phrases must each be found exactly in one searched field ("words in quotes").
	Phrases Phrases
	// Exclude leaves out every item one of its phrases would find (-word, -"some words").
	Exclude Phrases
	// Given is q as the client gave it, white space around it trimmed: what links, cursors and
	// the did-you-mean carry. Backends never read it.
	Given string
	// Type, Category, Language, License, Format and Duration each admit the items with any of
	// their values: types, category slugs, ISO 639-1 codes, licence ids (rights.IDs), formats
	// (Formats) and duration buckets (Durations).
	Type, Category, Language, License, Format, Duration List
	// Reuse admits the items whose licence allows every use it names (Reuses); Has, those that
	// have every one it names (Haves).
	Reuse, Has List
	// Author matches the whole author value exactly, case included.
	Author string
	// From and To are inclusive YYYY-MM-DD bounds; items without a date never match a bound.
	From, To string
	Sort     Sort
	// Page is 1-based; a walk (Cursor) ignores it.
	Page    int
	PerPage int
	// Cursor, when set, asks for a page of a walk instead of a numbered page: StartCursor for
	// the first, then the Result.Next of the page before (see Request.Walk).
	Cursor string
	// Facets asks for the counts of these facets' values (Result.Facets).
	Facets FacetSet
	// Highlight asks to show each item's matched fields (Matched). Matched needs only the item,
	// so backends ignore it and caches need not tell queries apart by it.
	Highlight bool
}

// Result is one page of a search.
type Result struct {
	Items []Item
	// Total is the exact number of matching items.
	Total int
	// Facets holds, for each facet the query asked for, its values over the items that match the
	// text and every other filter (Query.Without), in TopFacetValues order; nil when none was asked.
	Facets map[Facet][]FacetValue
	// Next is, on a page of a walk (Query.Cursor), the cursor of the next page; "" after the last
	// and on numbered pages.
	Next string
	// Curation is the synonyms and pins the search was answered under (search/chain sets it),
	// which highlighting marks too (Matched); nil: none.
	Curation Curation
}

// Category is a category slug with its display name (see PickCategoryName) and the number of
// items in it.
type Category struct {
	Slug  string
	Name  string
	Count int
}

// Author is a credited author with the number of items credited to it.
type Author struct {
	Name  string
	Count int
}

// DefaultTimeout is the deadline of one search engine call when the operator sets none
// (MEDIA_BACKEND_TIMEOUT): past it the gateway answers 504. Every caller that bounds a call takes
// it (the gateway, the cache's shared calls, the engine's calls made without a deadline), so one
// call is not bounded otherwise depending on who makes it.
const DefaultTimeout = 5 * time.Second

// Backend answers the API's questions from one index: the original service's, the search-box
// extras, and the words and version of the index it serves. Every backend (search/bleve,
// search/elastic) and every layer of the chain in front of one (search/chain) answers all of them.
// Implementations must be safe for concurrent use, honour the context's deadline, and return the
// errors below where they apply. Callers must not modify what they get back (slices, and the
// slices and pointers inside items): a caching layer (search/cache) shares answers between
// callers. Nor may an implementation change an answer after returning it: the gateway keeps
// encoded lists while the answer stays the same.
type Backend interface {
	// Search returns one page of the items matching r.Query, in its Sort order, with the exact
	// total, under r.Curation. The query is normalized (Query.Normalize, which the query codec
	// applies): no backend does it again, and each builds its engine query from what r derives
	// (Request.Words, Request.Plan). A walk's cursor that does not fit the query is an error
	// wrapping ErrCursorInvalid; one from an index version no longer served, ErrCursorExpired.
	Search(ctx context.Context, r *Request) (Result, error)
	// Item returns the item with the given id, or ErrNotFound.
	Item(ctx context.Context, id string) (Item, error)
	// Categories returns every category with its count of the items f's filters find, ordered by
	// slug, leaving out those with none; f holds filters only (ListQuery.Filter), the zero Query
	// counting every item.
	Categories(ctx context.Context, f Query) ([]Category, error)
	// Authors returns every credited author with its count of the items f's filters find, as
	// Categories does, ordered by AuthorLess.
	Authors(ctx context.Context, f Query) ([]Author, error)
	// Ping reports whether the engine can answer.
	Ping(ctx context.Context) error
	// Complete returns up to n completions of text: the items whose title holds every word of
	// text, the last word as a prefix, case and accents ignored (Fold), the most downloaded first,
	// then by id.
	Complete(ctx context.Context, text string, n int) ([]Completion, error)
	// Related returns up to n items most like the item with the given id by title, tags,
	// keywords, category and author, never that item itself, most alike first; ErrNotFound when
	// no item has the id.
	Related(ctx context.Context, id string, n int) ([]Item, error)
	// Totals returns, in one call, the Total of r with each alternative text: alts[i]'s total is
	// that of r with every occurrence of alts[i].Word among its words (Request.Words) replaced by
	// alts[i].With, whatever its page, sort and facets. m holds what some of those words match,
	// which the backend may count by (nil: none).
	Totals(ctx context.Context, r *Request, alts []Alternative, m Matches) ([]int, error)
	// Words returns every word the index holds, folded, in any order, each once with the number
	// of items holding it in a searched field, and so every stem (StemFields, keyed by language:
	// no word holds a colon): the did-you-mean's dictionary (search/spell).
	Words(ctx context.Context) ([]Word, error)
	// Version names the index version served now (a directory, the index behind an alias),
	// which changes with every load: what is derived from the index is kept per version. It may
	// ask the engine: readers take it from the one owner of the live version (search/live).
	Version(ctx context.Context) (string, error)
}

// LiveVersion is the one owner of the version a backend serves (search/live), as the backend
// reads it back.
type LiveVersion interface {
	// Named is the version the backend named when last asked (Backend.Version), or "" when that
	// is unknown; the owner says how old it may be. It never waits.
	Named() string
}

// VersionReader is a backend that would otherwise ask for the version it serves on a request's
// path (search/elastic: which index a walk's page without hits came from). The chain that owns
// the version (search/chain) hands it over once, when it is built and before any request.
type VersionReader interface {
	ReadVersionFrom(v LiveVersion)
}

// Errors a caller branches on.
var (
	// ErrNotFound means the requested item does not exist.
	ErrNotFound error = &Error{Kind: KindNotFound, Err: errors.New("not found")}
	// ErrRefused means the engine refused the query itself (too many clauses, a query it cannot
	// parse): the question's fault, which asking again would not change.
	ErrRefused error = &Error{Kind: KindRefused, Err: errors.New("the search engine refused the query")}
	// ErrUnavailable means the engine cannot be reached or has no index to serve.
	ErrUnavailable error = &Error{Kind: KindUnavailable, Err: errors.New("search engine unavailable")}
	// ErrOverloaded means the call was refused before it reached the engine: as much engine work
	// as the process takes on was in progress (search/admit).
	ErrOverloaded error = &Error{Kind: KindOverloaded, Err: errors.New("at the limit of engine work in progress")}
	// ErrPrune means a load made its new index live but could not remove the old ones beyond those
	// kept: the load succeeded, and the next one tries the removal again.
	ErrPrune = errors.New("removing old indices failed")
	// ErrDefinitionFixed means an index definition was given to a backend whose mapping is built
	// into mediagw (the embedded index): it reindexes only with its own.
	ErrDefinitionFixed = errors.New("this backend's index definition is built in")
)

// LoadStats summarises a load.
type LoadStats struct {
	// Indexed is the number of items in the new index.
	Indexed int
	// Index names the new index (a directory or an engine index name).
	Index    string
	Duration time.Duration
}

// Loader builds a new index from items beside the live one and makes it live only when it holds
// every item. If items yields an error, or ctx ends, nothing goes live and the partial index is removed.
type Loader interface {
	Load(ctx context.Context, items iter.Seq2[Item, error]) (LoadStats, error)
}

// Values yields items one by one with no error, for a Loader given a slice (tests, demos).
func Values(items []Item) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		for _, it := range items {
			if !yield(it, nil) {
				return
			}
		}
	}
}
