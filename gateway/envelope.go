package gateway

import (
	"net/url"
	"strings"

	"mediagw/search"
)

// The bodies of the contract. Optional values the catalogue lacks are null, never "", so clients
// test one thing; lists are [] when empty, never null.

type itemsBody struct {
	Data        []itemSummary `json:"data"`
	Pagination  pagination    `json:"pagination"`
	Links       links         `json:"links"`
	Attribution string        `json:"attribution"`
}

type itemSummary struct {
	ID           string   `json:"id"`
	Type         string   `json:"type"`
	Title        string   `json:"title"`
	Summary      *string  `json:"summary"`
	Author       *string  `json:"author"`
	Category     *string  `json:"category"`
	Language     *string  `json:"language"`
	Date         *string  `json:"date"`
	Downloads    int64    `json:"downloads"`
	Tags         []string `json:"tags"`
	Permalink    string   `json:"permalink"`
	ThumbnailURL *string  `json:"thumbnail_url"`
}

type pagination struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Total      int `json:"total"`
	TotalPages int `json:"total_pages"`
}

type links struct {
	Self  string  `json:"self"`
	First string  `json:"first"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
	Last  string  `json:"last"`
}

type itemBody struct {
	Data        itemDetail `json:"data"`
	Attribution string     `json:"attribution"`
}

type itemDetail struct {
	ID          string   `json:"id"`
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Summary     *string  `json:"summary"`
	Description *string  `json:"description"`
	Tags        []string `json:"tags"`
	Keywords    []string `json:"keywords"`
	Author      *string  `json:"author"`
	Category    *string  `json:"category"`
	Language    *string  `json:"language"`
	Date        *string  `json:"date"`
	Downloads   int64    `json:"downloads"`
	Permalink   string   `json:"permalink"`
	// SHA256 is null when the catalogue gave no digest and none could be computed.
	SHA256    *string `json:"sha256"`
	QRCodeURL string  `json:"qr_code_url"`
	Media     media   `json:"media"`
	License   *string `json:"license"`
}

type media struct {
	URL       *string `json:"url"`
	MimeType  *string `json:"mime_type"`
	SizeBytes *int64  `json:"size_bytes"`
}

type categoriesBody struct {
	Data        []category `json:"data"`
	Total       int        `json:"total"`
	Attribution string     `json:"attribution"`
}

type category struct {
	Slug  string `json:"slug"`
	Name  string `json:"name"`
	Count int    `json:"count"`
}

type authorsBody struct {
	Data        []author `json:"data"`
	Total       int      `json:"total"`
	Attribution string   `json:"attribution"`
}

type author struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
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

func (g *Gateway) qrURL(id string) string { return g.baseURL + "qr/" + id + ".png" }

func (g *Gateway) summary(it search.Item) itemSummary {
	return itemSummary{
		ID: it.ID, Type: it.Type, Title: it.Title, Summary: nullable(it.Summary), Author: nullable(it.Author),
		Category: nullable(it.Category), Language: nullable(it.Language), Date: nullable(it.Date),
		Downloads: it.Downloads, Tags: list(it.Tags), Permalink: g.permalink(it), ThumbnailURL: nullable(it.ThumbnailURL),
	}
}

func (g *Gateway) detail(it search.Item) itemDetail {
	return itemDetail{
		ID: it.ID, Type: it.Type, Title: it.Title, Summary: nullable(it.Summary), Description: nullable(it.Description),
		Tags: list(it.Tags), Keywords: list(it.Keywords), Author: nullable(it.Author), Category: nullable(it.Category),
		Language: nullable(it.Language), Date: nullable(it.Date), Downloads: it.Downloads, Permalink: g.permalink(it),
		SHA256: nullable(it.SHA256), QRCodeURL: g.qrURL(it.ID),
		Media:   media{URL: nullable(it.MediaURL), MimeType: nullable(it.MimeType), SizeBytes: it.SizeBytes},
		License: nullable(it.License),
	}
}

// pageLinks builds the links of one page. last is the last page a client may ask for: the last
// page of results, but never past the paging depth limit; with no results it is page 1.
func (g *Gateway) pageLinks(q search.Query, total int) (links, int) {
	totalPages := (total + q.PerPage - 1) / q.PerPage
	last := min(max(totalPages, 1), maxDepth/q.PerPage)
	at := func(page int) string {
		return g.baseURL + "?resource=" + resItems + "&" + itemsQueryValues(q, page).Encode()
	}
	l := links{Self: at(q.Page), First: at(1), Last: at(last)}
	if q.Page > 1 {
		prev := at(min(q.Page-1, last))
		l.Prev = &prev
	}
	if q.Page < last {
		next := at(q.Page + 1)
		l.Next = &next
	}
	return l, totalPages
}

// linkHeader is the RFC 8288 form of l.
func linkHeader(l links) string {
	parts := []string{`<` + l.Self + `>; rel="self"`, `<` + l.First + `>; rel="first"`}
	if l.Prev != nil {
		parts = append(parts, `<`+*l.Prev+`>; rel="prev"`)
	}
	if l.Next != nil {
		parts = append(parts, `<`+*l.Next+`>; rel="next"`)
	}
	parts = append(parts, `<`+l.Last+`>; rel="last"`)
	return strings.Join(parts, ", ")
}
