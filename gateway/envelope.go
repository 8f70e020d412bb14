package gateway

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"mediagw/params"
	"mediagw/search"
)

// The bodies of the contract. Optional values the catalogue lacks are null, never "", so clients
// test one thing; lists are [] when empty, never null.

type itemsBody struct {
	Data       []itemSummary `json:"data"`
	Pagination pagination    `json:"pagination"`
	Links      links         `json:"links"`
	// Facets is there when the request asked for facets, with a list for each facet asked.
	Facets map[string][]facetValue `json:"facets,omitzero"`
	// Suggestion is there when the request searched text: a correction, or null.
	Suggestion  optionalString `json:"suggestion,omitzero"`
	Attribution string         `json:"attribution"`
}

type facetValue struct {
	Value string `json:"value"`
	// Name is a category's display name; the other facets have none.
	Name  string `json:"name,omitempty"`
	Count int    `json:"count"`
}

// optionalString is a value that is absent (the zero value), null, or a string.
type optionalString struct {
	set   bool
	value *string
}

func (o optionalString) IsZero() bool { return !o.set }

func (o optionalString) MarshalJSON() ([]byte, error) { return json.Marshal(o.value) }

// itemFields are what a summary and a detail of an item both show: the wire form of the
// search.Item fields they share (null for an empty optional value, the permalink computed).
type itemFields struct {
	ID        string     `json:"id"`
	Type      string     `json:"type"`
	Title     string     `json:"title"`
	Summary   *string    `json:"summary"`
	Author    *string    `json:"author"`
	Category  *string    `json:"category"`
	Language  *string    `json:"language"`
	Date      *string    `json:"date"`
	Downloads int64      `json:"downloads"`
	Tags      []string   `json:"tags"`
	Permalink string     `json:"permalink"`
	Rights    rightsBody `json:"rights"`
}

// rightsBody is the item's rights statement as the catalogue gives it ("" when none) and the licence
// it reads as (search/rights).
type rightsBody struct {
	Statement    string  `json:"statement"`
	License      string  `json:"license"`
	Version      *string `json:"version"`
	Jurisdiction *string `json:"jurisdiction"`
	URL          *string `json:"url"`
	Commercial   bool    `json:"commercial"`
	Modification bool    `json:"modification"`
}

type itemSummary struct {
	itemFields
	ThumbnailURL    *string  `json:"thumbnail_url"`
	Format          *string  `json:"format"`
	DurationSeconds *float64 `json:"duration_seconds"`
	// Matched is there when the request asked for highlighting of text: {} when no field shows a match.
	Matched map[string]string `json:"matched,omitzero"`
}

type pagination struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Total      int `json:"total"`
	TotalPages int `json:"total_pages"`
	// NextCursor is there on a walk's pages (cursor): the cursor of the next page, null after the last.
	NextCursor optionalString `json:"next_cursor,omitzero"`
}

type links struct {
	Self  string  `json:"self"`
	First string  `json:"first"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
	// Last is null on a walk's pages: a walk reaches its last page only by its next links.
	Last *string `json:"last"`
}

// dataBody is a body of data with the attribution and nothing else: an item (resource=item),
// related items and completions, short lists without pages.
type dataBody[T any] struct {
	Data        T      `json:"data"`
	Attribution string `json:"attribution"`
}

type itemDetail struct {
	itemFields
	Description *string  `json:"description"`
	Keywords    []string `json:"keywords"`
	// SHA256 is null when the catalogue gave no digest and none could be computed.
	SHA256    *string `json:"sha256"`
	QRCodeURL string  `json:"qr_code_url"`
	Media     media   `json:"media"`
	// MetadataLicense is the licence of the catalogue record, not the media's (Rights).
	MetadataLicense *string `json:"metadata_license"`
	Source          *string `json:"source"`
}

type media struct {
	URL             *string  `json:"url"`
	MimeType        *string  `json:"mime_type"`
	Format          *string  `json:"format"`
	SizeBytes       *int64   `json:"size_bytes"`
	DurationSeconds *float64 `json:"duration_seconds"`
	Width           *int64   `json:"width"`
	Height          *int64   `json:"height"`
}

// listBody is the body of a list: the whole list as the original service gives it, or with
// pagination and links when paged.
type listBody[T any] struct {
	Data        []T         `json:"data"`
	Total       int         `json:"total"`
	Pagination  *pagination `json:"pagination,omitempty"`
	Links       *links      `json:"links,omitempty"`
	Attribution string      `json:"attribution"`
}

type category struct {
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Count int    `json:"count"`
}

type author struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// nullables hands out the optional string fields of one response from a few allocations rather
// than one each (a page of 50 items has up to 300). When append moves the strings, the pointers
// already given keep the old array alive, unchanged.
type nullables []string

// of is a pointer to v, or nil (JSON null) when v is empty.
func (s *nullables) of(v string) *string {
	if v == "" {
		return nil
	}
	*s = append(*s, v)
	return &(*s)[len(*s)-1]
}

func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// permalink is the item's own, or the API's item URL when the catalogue gave none.
func (g *Gateway) permalink(it search.Item) string {
	if it.Permalink != "" {
		return it.Permalink
	}
	return g.baseURL + "?resource=item&id=" + url.QueryEscape(it.ID)
}

// qrURL is where the QR code of id is served; the id is one path segment, '/' included.
func (g *Gateway) qrURL(id string) string { return g.baseURL + "qr/" + url.PathEscape(id) + ".png" }

// How many optional strings a summary and a detail have, for sizing nullables.
const (
	summaryNullables = 10
	detailNullables  = 15
)

func (g *Gateway) fields(it search.Item, strs *nullables) itemFields {
	return itemFields{
		ID: it.ID, Type: it.Type, Title: it.Title, Summary: strs.of(it.Summary), Author: strs.of(it.Author),
		Category: strs.of(it.Category), Language: strs.of(it.Language), Date: strs.of(it.Date),
		Downloads: it.Downloads, Tags: list(it.Tags), Permalink: g.permalink(it),
		Rights: rightsBody{
			Statement: it.Rights, License: it.MediaLicense.ID, Version: strs.of(it.MediaLicense.Version),
			Jurisdiction: strs.of(it.MediaLicense.Jurisdiction), URL: strs.of(it.MediaLicense.URL),
			Commercial: it.MediaLicense.Commercial, Modification: it.MediaLicense.Modification,
		},
	}
}

func (g *Gateway) summary(it search.Item, strs *nullables) itemSummary {
	return itemSummary{itemFields: g.fields(it, strs), ThumbnailURL: strs.of(it.ThumbnailURL),
		Format: strs.of(it.Format), DurationSeconds: it.DurationSeconds}
}

func (g *Gateway) detail(it search.Item, strs *nullables) itemDetail {
	return itemDetail{
		itemFields: g.fields(it, strs), Description: strs.of(it.Description), Keywords: list(it.Keywords),
		SHA256: strs.of(it.SHA256), QRCodeURL: g.qrURL(it.ID),
		Media: media{URL: strs.of(it.MediaURL), MimeType: strs.of(it.MimeType), Format: strs.of(it.Format),
			SizeBytes: it.SizeBytes, DurationSeconds: it.DurationSeconds, Width: it.Width, Height: it.Height},
		MetadataLicense: strs.of(it.License), Source: strs.of(it.Source),
	}
}

// itemsEnvelope is the body of one page of results, numbered or of a walk.
func (g *Gateway) itemsEnvelope(r *search.Request, res search.Result) itemsBody {
	q := &r.Query
	totalPages := (res.Total + q.PerPage - 1) / q.PerPage
	body := itemsBody{
		Data:        make([]itemSummary, 0, len(res.Items)),
		Pagination:  pagination{Page: q.Page, PerPage: q.PerPage, Total: res.Total, TotalPages: totalPages},
		Attribution: g.cfg.Attribution,
	}
	if q.Cursor != "" {
		body.Pagination.Page = params.WalkPage(r)
		body.Links = g.walkLinks(q, res.Next)
		body.Pagination.NextCursor = optionalString{set: true}
		if res.Next != "" {
			body.Pagination.NextCursor.value = &res.Next
		}
	} else {
		body.Links = g.pageLinks(q, totalPages)
	}
	strs := make(nullables, 0, summaryNullables*len(res.Items))
	// Matches are marked as the search found them, its synonyms too (r.Curation).
	var marks *search.Highlighter
	if q.Highlight && q.Searches() {
		marks = search.NewHighlighter(r)
	}
	for _, it := range res.Items {
		sum := g.summary(it, &strs)
		if marks != nil {
			sum.Matched = marks.Matched(it)
			if sum.Matched == nil {
				sum.Matched = map[string]string{}
			}
		}
		body.Data = append(body.Data, sum)
	}
	if q.Facets != 0 {
		body.Facets = make(map[string][]facetValue, len(search.Facets))
		for _, f := range q.Facets.All() {
			values := make([]facetValue, 0, len(res.Facets[f]))
			for _, v := range res.Facets[f] {
				values = append(values, facetValue{Value: v.Value, Name: v.Name, Count: v.Count})
			}
			body.Facets[f.String()] = values
		}
	}
	return body
}

// itemsPrefix starts every link of resource=items.
func (g *Gateway) itemsPrefix() string { return g.baseURL + "?resource=" + params.ResourceItems + "&" }

// walkLinks builds the links of a walk's page: itself, the walk's start and the next page, by
// their cursors. A walk has no way back and no last page to name.
func (g *Gateway) walkLinks(q *search.Query, next string) links {
	v := params.Values(q, 0)
	at := func(cursor string) string {
		v.Set("cursor", cursor)
		return g.itemsPrefix() + v.Encode()
	}
	l := links{Self: at(q.Cursor), First: at(search.StartCursor)}
	if next != "" {
		n := at(next)
		l.Next = &n
	}
	return l
}

// pageLinks builds the links of one numbered page. last is the last page a client may ask for:
// the last page of results, but never past the paging depth limit; with no results it is page 1.
func (g *Gateway) pageLinks(q *search.Query, totalPages int) links {
	last := min(max(totalPages, 1), search.DeepestPage(q.PerPage))
	return numberedLinks(g.itemsPrefix(), params.Values(q, q.Page), q.Page, last)
}

// numberedLinks builds the links of page of a numbered list whose last page is last: prefix, then
// v with each link's page.
func numberedLinks(prefix string, v url.Values, page, last int) links {
	// Only the page differs between the links: the rest is encoded once, either side of where
	// url.Values.Encode puts page in its key order, so the links read as v has them.
	before, after := url.Values{}, url.Values{}
	for k, vs := range v {
		switch {
		case k < "page":
			before[k] = vs
		case k > "page":
			after[k] = vs
		}
	}
	if enc := before.Encode(); enc != "" {
		prefix += enc + "&"
	}
	suffix := "&" + after.Encode() // never empty: per_page comes after page
	at := func(page int) string {
		return prefix + "page=" + strconv.Itoa(page) + suffix
	}
	lastLink := at(last)
	l := links{Self: at(page), First: at(1), Last: &lastLink}
	if page > 1 {
		prev := at(min(page-1, last))
		l.Prev = &prev
	}
	if page < last {
		next := at(page + 1)
		l.Next = &next
	}
	return l
}

// linkHeader is the RFC 8288 form of l.
func linkHeader(l links) string {
	var sb strings.Builder
	sb.Grow(5*len(l.Self) + 80)
	add := func(url, rel string) {
		if sb.Len() > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("<")
		sb.WriteString(url)
		sb.WriteString(`>; rel="`)
		sb.WriteString(rel)
		sb.WriteString(`"`)
	}
	add(l.Self, "self")
	add(l.First, "first")
	if l.Prev != nil {
		add(*l.Prev, "prev")
	}
	if l.Next != nil {
		add(*l.Next, "next")
	}
	if l.Last != nil {
		add(*l.Last, "last")
	}
	return sb.String()
}
