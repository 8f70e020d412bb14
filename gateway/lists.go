package gateway

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"mediagw/params"
	"mediagw/search"
	"mediagw/search/telemetry"
)

// categories serves resource=categories: every category, ordered by slug; or those a list query
// asks for.
func (g *Gateway) categories(c *echo.Context, rq params.Raw) error {
	return serveList(g, c, rq, params.ResourceCategories, g.backend.Categories, heldCategories, &g.categoryBodies, func(cats []search.Category, total int) listBody[category] {
		data := make([]category, 0, len(cats))
		for _, ct := range cats {
			data = append(data, category{Slug: ct.Slug, Name: ct.Name, Count: ct.Count})
		}
		return listBody[category]{Data: data, Total: total, Attribution: g.cfg.Attribution}
	}, g.cfg.MaxAge.Categories)
}

// authors serves resource=authors: every credited author, ordered by name; or those a list query
// asks for.
func (g *Gateway) authors(c *echo.Context, rq params.Raw) error {
	return serveList(g, c, rq, params.ResourceAuthors, g.backend.Authors, heldAuthors, &g.authorBodies, func(as []search.Author, total int) listBody[author] {
		data := make([]author, 0, len(as))
		for _, a := range as {
			data = append(data, author{Name: a.Name, Count: a.Count})
		}
		return listBody[author]{Data: data, Total: total, Attribution: g.cfg.Attribution}
	}, g.cfg.MaxAge.Authors)
}

func heldCategories(l *search.Lists) ([]search.Category, *search.ListIndex[search.Category]) {
	return l.Categories, l.CategoryIndex
}

func heldAuthors(l *search.Lists) ([]search.Author, *search.ListIndex[search.Author]) {
	return l.Authors, l.AuthorIndex
}

// ListKeeper is a backend that keeps the whole lists of the version it serves, each with its
// index, built before they are served (search/chain). The gateway asks for it once, in New.
type ListKeeper interface {
	// Lists returns the lists held, nil while none are built.
	Lists() *search.Lists
	// KeepsLists reports whether it keeps them at all.
	KeepsLists() bool
}

// serveList answers a list resource. The whole list, which the original service asks for, is the
// backend's answer encoded (and compressed) once for as long as the answer stays the same; a list
// query selects from the backend's list of the items its filters find. Without filters, both come
// from the lists the backend keeps (ListKeeper) when it holds them: no engine call, and the index
// built before the first request.
func serveList[T search.Entry, W any](g *Gateway, c *echo.Context, rq params.Raw, resource string,
	fetch func(context.Context, search.Query) ([]T, error), held func(*search.Lists) ([]T, *search.ListIndex[T]),
	bodies *listBodies[T], envelope func([]T, int) listBody[W], maxAge time.Duration) error {
	lq, errs := params.ParseLists(rq, resource)
	if errs != nil {
		return invalidParams(errs)
	}
	var answer []T
	var idx *search.ListIndex[T]
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	if lq.Filter == (search.Query{}) && g.lists != nil {
		if l := g.lists.Lists(); l != nil {
			answer, idx = held(l)
			telemetry.NoteOrigin(ctx, telemetry.Origin{Cached: true})
		}
	}
	if idx == nil {
		var err error
		if answer, err = fetch(ctx, lq.Filter); err != nil {
			return backendError(ctx, err)
		}
	}
	if lq.Plain() {
		body, err := bodies.body(answer, func() any { return envelope(answer, len(answer)) })
		if err != nil {
			return internalError(fmt.Errorf("encode %s: %w", resource, err))
		}
		return g.send(c, body.reply(maxAge))
	}
	if idx == nil {
		idx = search.NewListIndex(answer)
	}
	page, total := idx.Select(lq)
	body := envelope(page, total)
	if lq.PerPage > 0 {
		totalPages := (total + lq.PerPage - 1) / lq.PerPage
		body.Pagination = &pagination{Page: lq.Page, PerPage: lq.PerPage, Total: total, TotalPages: totalPages}
		prefix := g.baseURL + "?resource=" + resource + "&"
		l := numberedLinks(prefix, params.ListValues(resource, lq, lq.Page), lq.Page, max(totalPages, 1))
		body.Links = &l
		c.Response().Header().Set("Link", linkHeader(l))
	}
	return g.sendJSON(c, body, maxAge)
}

// listBodies keeps the encoded response to a list resource (categories or authors) for the last
// answer the backend gave, so a repeated answer costs a comparison instead of an encoding and a
// compression (at 100,000 authors, 4 MB of JSON). Nothing is computed before the first request.
//
// Whether an answer repeats is decided on the answer itself, not on an index version read beside
// it: reading a version and calling the backend are two steps a reload can fall between, which
// would file the new list under the old version or, worse, the old list under the new one for as
// long as it lives. Comparing the answer can never serve the body of another list, and it is
// cheap: search/cache returns the very same slice for a whole index version (one pointer
// comparison), and a backend that builds a new slice per call (caching off) costs an element-wise
// comparison, far below the encoding it saves. It relies on search.Backend's rule that an answer
// is never modified once returned.
type listBodies[T search.Entry] struct {
	mu   sync.Mutex
	last *listAnswer[T]
}

// listAnswer is one answer of the backend and what is made of it, each when first asked for.
type listAnswer[T search.Entry] struct {
	// src is the answer encoded. Holding it also keeps its memory from being reused for another
	// answer, which would make the pointer comparison lie.
	src  []T
	once sync.Once
	body *encodedBody
	err  error
}

// body returns the encoded envelope of answer, from the last one when the answer is the same;
// envelope builds the value to encode when it is not.
func (l *listBodies[T]) body(answer []T, envelope func() any) (*encodedBody, error) {
	last := l.answer(answer)
	last.once.Do(func() { last.body, last.err = encodeBody(envelope()) })
	return last.body, last.err
}

// answer is the last answer when it is the same as answer, else answer made the last.
func (l *listBodies[T]) answer(answer []T) *listAnswer[T] {
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	if last == nil || !sameSlice(last.src, answer) {
		if last == nil || !slices.Equal(last.src, answer) {
			last = l.replace(answer)
		}
	}
	return last
}

// replace makes answer the last one, unless a concurrent request with the same slice did so
// first: callers sharing one answer (a cache's) then share one encoding.
func (l *listBodies[T]) replace(answer []T) *listAnswer[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last != nil && sameSlice(l.last.src, answer) {
		return l.last
	}
	l.last = &listAnswer[T]{src: answer}
	return l.last
}

// sameSlice reports whether a and b are the same elements of the same array.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
