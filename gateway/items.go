package gateway

import (
	"errors"

	"github.com/labstack/echo/v5"

	"mediagw/params"
	"mediagw/search"
)

// items serves resource=items: a page of search results, with its links in the Link header too.
func (g *Gateway) items(c *echo.Context, rq params.Raw) error {
	r, errs := params.ParseItems(rq)
	if errs != nil {
		return invalidParams(errs)
	}
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	res, err := g.backend.Search(ctx, r)
	if err != nil {
		return searchError(ctx, &r.Query, err)
	}
	g.noteSearch(state(c).visitor, &r.Query, res)
	body := g.itemsEnvelope(r, res)
	body.Suggestion = g.suggestion(ctx, r)
	c.Response().Header().Set("Link", linkHeader(body.Links))
	return g.sendJSON(c, body, g.cfg.MaxAge.Items)
}

// item serves resource=item: one item by id.
func (g *Gateway) item(c *echo.Context, rq params.Raw) error {
	id, errs := params.ParseItemID(rq)
	if errs != nil {
		return invalidParams(errs)
	}
	it, err := g.lookup(c, id)
	if err != nil {
		return err
	}
	strs := make(nullables, 0, detailNullables)
	return g.sendJSON(c, dataBody[itemDetail]{Data: g.detail(it, &strs), Attribution: g.cfg.Attribution}, g.cfg.MaxAge.Item)
}

// lookup asks the backend for one item; an unknown id is a 404.
func (g *Gateway) lookup(c *echo.Context, id string) (search.Item, error) {
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	it, err := g.backend.Item(ctx, id)
	if errors.Is(err, search.ErrNotFound) {
		return it, notFound("no item with id " + params.Shorten(id))
	}
	if err != nil {
		return it, backendError(ctx, err)
	}
	return it, nil
}
