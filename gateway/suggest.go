package gateway

import (
	"github.com/labstack/echo/v5"

	"mediagw/params"
)

// Completions (resource=suggest): the titles that complete what someone is typing.

type completion struct {
	Text string `json:"text"`
	ID   string `json:"id"`
}

func (g *Gateway) suggest(c *echo.Context, rq params.Raw) error {
	p, errs := params.ParseList(rq, params.ResourceSuggest, "q")
	if errs != nil {
		return invalidParams(errs)
	}
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	cs, err := g.backend.Complete(ctx, p.Of, p.N)
	if err != nil {
		return backendError(ctx, err)
	}
	body := dataBody[[]completion]{Data: make([]completion, 0, len(cs)), Attribution: g.cfg.Attribution}
	for _, cpl := range cs {
		body.Data = append(body.Data, completion{Text: cpl.Text, ID: cpl.ID})
	}
	return g.sendJSON(c, body, g.cfg.MaxAge.Items)
}
