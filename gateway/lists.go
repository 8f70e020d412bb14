package gateway

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"mediagw/query"
	"mediagw/search"
)

// categories serves resource=categories: every category, ordered by slug.
func (g *Gateway) categories(c *echo.Context, _ query.Raw) error {
	return serveList(g, c, query.ResourceCategories, g.backend.Categories, &g.categoryBodies, func(cats []search.Category) any {
		body := categoriesBody{Data: make([]category, 0, len(cats)), Total: len(cats), Attribution: g.cfg.Attribution}
		for _, ct := range cats {
			body.Data = append(body.Data, category{Slug: ct.Slug, Name: ct.Name, Count: ct.Count})
		}
		return body
	}, g.cfg.MaxAge.Categories)
}

// authors serves resource=authors: every credited author, ordered by name.
func (g *Gateway) authors(c *echo.Context, _ query.Raw) error {
	return serveList(g, c, query.ResourceAuthors, g.backend.Authors, &g.authorBodies, func(as []search.Author) any {
		body := authorsBody{Data: make([]author, 0, len(as)), Total: len(as), Attribution: g.cfg.Attribution}
		for _, a := range as {
			body.Data = append(body.Data, author{Name: a.Name, Count: a.Count})
		}
		return body
	}, g.cfg.MaxAge.Authors)
}

// serveList answers a list resource: the backend's answer, encoded (and compressed) once for as
// long as the answer stays the same.
func serveList[T comparable](g *Gateway, c *echo.Context, what string, fetch func(context.Context) ([]T, error),
	bodies *listBodies[T], envelope func([]T) any, maxAge time.Duration) error {
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	answer, err := fetch(ctx)
	if err != nil {
		return backendError(ctx, err)
	}
	body, err := bodies.body(answer, func() any { return envelope(answer) })
	if err != nil {
		return internalError(fmt.Errorf("encode %s: %w", what, err))
	}
	return g.send(c, body.reply(maxAge))
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
type listBodies[T comparable] struct {
	mu   sync.Mutex
	last *listBody[T]
}

type listBody[T comparable] struct {
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
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	if last == nil || !sameSlice(last.src, answer) {
		if last == nil || !slices.Equal(last.src, answer) {
			last = l.replace(answer)
		}
	}
	last.once.Do(func() { last.body, last.err = encodeBody(envelope()) })
	return last.body, last.err
}

// replace makes answer the last one, unless a concurrent request with the same slice did so
// first: callers sharing one answer (a cache's) then share one encoding.
func (l *listBodies[T]) replace(answer []T) *listBody[T] {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last != nil && sameSlice(l.last.src, answer) {
		return l.last
	}
	l.last = &listBody[T]{src: answer}
	return l.last
}

// sameSlice reports whether a and b are the same elements of the same array.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
