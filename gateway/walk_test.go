package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/searchtest"
)

// TestCursorWalk: cursor=* starts a walk that the next links follow through every match, each
// item once, in the order of the numbered pages; the walk's links name pages by their cursors,
// in the body and in the Link header.
func TestCursorWalk(t *testing.T) {
	h := newHarness(t)
	const perPage = 7
	query := "resource=items&type=photo&sort=downloads&per_page=7"
	var want []string
	for page := 1; ; page++ {
		b := decode[itemsBody](t, h.get("/?"+query+"&page="+itoa(page)))
		want = append(want, b.ids()...)
		if b.Links.Next == nil {
			break
		}
	}
	first := publicURL + "/?resource=items&" + url.Values{"type": {"photo"}, "sort": {"downloads"}, "per_page": {"7"}, "cursor": {"*"}}.Encode()
	var got []string
	target := "/?" + query + "&cursor=*"
	for page := 1; ; page++ {
		rec := h.get(target)
		if rec.Code != http.StatusOK {
			t.Fatalf("page %d: %d %s", page, rec.Code, rec.Body)
		}
		b := decode[itemsBody](t, rec)
		got = append(got, b.ids()...)
		pg, l := b.Pagination, b.Links
		if pg.Page != page || pg.PerPage != perPage || pg.Total != len(want) {
			t.Errorf("page %d: pagination %+v", page, pg)
		}
		if l.Prev != nil || l.Last != "" {
			t.Errorf("page %d: prev %v, last %q; a walk has neither", page, l.Prev, l.Last)
		}
		asked, _ := url.Parse(target)
		if self, _ := url.Parse(l.Self); self.Query().Get("cursor") != asked.Query().Get("cursor") || self.Query().Has("page") {
			t.Errorf("page %d: self %s, want the cursor asked for and no page", page, l.Self)
		}
		if l.First != first {
			t.Errorf("page %d: first %s, want the walk's start %s", page, l.First, first)
		}
		link := rec.Header().Get("Link")
		if strings.Contains(link, `rel="last"`) || strings.Contains(link, `rel="prev"`) {
			t.Errorf("page %d: Link %s", page, link)
		}
		if l.Next == nil {
			if pg.NextCursor != nil {
				t.Errorf("last page: next_cursor %q, want null", *pg.NextCursor)
			}
			break
		}
		next, err := url.Parse(*l.Next)
		if err != nil || pg.NextCursor == nil || next.Query().Get("cursor") != *pg.NextCursor {
			t.Fatalf("page %d: next %s and next_cursor %v disagree", page, *l.Next, pg.NextCursor)
		}
		if !strings.Contains(link, "<"+*l.Next+`>; rel="next"`) {
			t.Errorf("page %d: Link %s lacks next", page, link)
		}
		if page > len(want) {
			t.Fatalf("the walk does not end")
		}
		target = strings.TrimPrefix(*l.Next, publicURL)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("walk gave\n%v\nnumbered pages\n%v", got, want)
	}
}

// TestCursorErrors: a cursor that does not fit its request is the client's error, named in
// errors[], never a 500; one from an index version no longer served is 410 cursor-expired.
func TestCursorErrors(t *testing.T) {
	h := newHarness(t)
	b := decode[itemsBody](t, h.get("/?resource=items&per_page=5&cursor=*"))
	if b.Pagination.NextCursor == nil {
		t.Fatal("no next cursor after the first page")
	}
	next := *b.Pagination.NextCursor
	q := search.Query{Sort: search.SortNewest, PerPage: 5}
	at, err := search.ParseCursor(next, &q)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, query string }{
		{"with page", "per_page=5&page=2&cursor=" + next},
		{"with page, starting", "page=1&cursor=*"},
		{"garbage", "per_page=5&cursor=abc"},
		{"not base64url", "per_page=5&cursor=" + url.QueryEscape("a+b/c==")},
		{"changed", "per_page=5&cursor=" + next[:len(next)-2] + "AA"},
		{"other filters", "per_page=5&type=video&cursor=" + next},
		{"other per_page", "per_page=6&cursor=" + next},
		{"other sort", "per_page=5&sort=oldest&cursor=" + next},
		{"other text", "per_page=5&q=harbour&sort=newest&cursor=" + next},
		{"forged position", "per_page=5&cursor=" + search.EncodeCursor(&q, search.Cursor{Version: at.Version, Seen: 5, After: []any{"2020", 5}})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := expectProblem(t, h.get("/?resource=items&"+tt.query), http.StatusBadRequest, "invalid-parameter")
			if ps := p.params(); len(ps) != 1 || ps[0] != "cursor" {
				t.Errorf("errors name %v, want cursor alone: %s", ps, p.Detail)
			}
		})
	}
	t.Run("another index version", func(t *testing.T) {
		gone := search.EncodeCursor(&q, search.Cursor{Version: "media-19700101", Seen: 5, After: at.After})
		rec := h.get("/?resource=items&per_page=5&cursor=" + gone)
		p := expectProblem(t, rec, http.StatusGone, "cursor-expired")
		if !strings.Contains(p.Detail, "cursor=*") {
			t.Errorf("detail %q does not say to start again with cursor=*", p.Detail)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control %q, want no-store", cc)
		}
	})
}

// TestWalkAcrossReindex: a walk whose index is rebuilt mid-way (mediactl reindex) gets 410
// cursor-expired for its next page, rather than pages of another index, cached or not.
func TestWalkAcrossReindex(t *testing.T) {
	open, engine := bleveIndex, "bleve"
	if e, ok := engineOf(); ok {
		open, engine = openSearchIndex, e.Name
	}
	for _, cached := range []bool{true, false} {
		t.Run(fmt.Sprintf("%s/cached=%v", engine, cached), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			idx := open(t, ctx, searchtest.Fixture(t))
			h := newHarness(t, withBackend(func(search.Backend) search.Backend { return idx.backend }), withChain(quickLive(cached)))
			b := decode[itemsBody](t, h.get("/?resource=items&per_page=5&sort=az&cursor=*"))
			if b.Pagination.NextCursor == nil {
				t.Fatal("no next cursor after the first page")
			}
			// The walk goes on over the index it began on.
			next := decode[itemsBody](t, h.get("/?resource=items&per_page=5&sort=az&cursor="+*b.Pagination.NextCursor))
			if next.Pagination.NextCursor == nil {
				t.Fatal("no next cursor after the second page")
			}
			if err := idx.rebuild(ctx); err != nil {
				t.Fatalf("rebuild: %v", err)
			}
			rec := h.get("/?resource=items&per_page=5&sort=az&cursor=" + *next.Pagination.NextCursor)
			expectProblem(t, rec, http.StatusGone, "cursor-expired")
			// A new walk starts on the new index.
			if again := decode[itemsBody](t, h.get("/?resource=items&per_page=5&sort=az&cursor=*")); !slices.Equal(again.ids(), b.ids()) {
				t.Errorf("a new walk begins with %v, want %v as before the rebuild", again.ids(), b.ids())
			}
		})
	}
}
