package gateway

import (
	"errors"

	"github.com/labstack/echo/v5"

	"mediagw/params"
	"mediagw/search"
)

func (g *Gateway) related(c *echo.Context, rq params.Raw) error {
	p, errs := params.ParseList(rq, params.ResourceRelated, "id")
	if errs != nil {
		return invalidParams(errs)
	}
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	items, err := g.backend.Related(ctx, p.Of, p.N)
	if errors.Is(err, search.ErrNotFound) {
		return notFound("no item with id " + params.Shorten(p.Of))
	}
	if err != nil {
		return backendError(ctx, err)
	}
	body := dataBody[[]itemSummary]{Data: make([]itemSummary, 0, len(items)), Attribution: g.cfg.Attribution}
	strs := make(nullables, 0, summaryNullables*len(items))
	for _, it := range items {
		body.Data = append(body.Data, g.summary(it, &strs))
	}
	return g.sendJSON(c, body, g.cfg.MaxAge.Item)
}
