package gateway

import (
	"context"
	"errors"

	"github.com/labstack/echo/v5"

	"mediagw/query"
	"mediagw/search"
)

// The search-box extras: completions (resource=suggest), related items (resource=related) and the
// did-you-mean correction of a misspelt word. Facets and highlighting are part of
// resource=items (read by the query codec, query/query.go; shaped in envelope.go).

// Corrector is a backend that offers the did-you-mean of a search: a chain's top
// (search/spell.Speller). The gateway asks for it once, in New.
type Corrector interface {
	Correct(ctx context.Context, q search.Query) (string, error)
}

type suggestBody struct {
	Data        []completion `json:"data"`
	Attribution string       `json:"attribution"`
}

type completion struct {
	Text string `json:"text"`
	ID   string `json:"id"`
}

// relatedBody is the items envelope without pagination: related items are one short list.
type relatedBody struct {
	Data        []itemSummary `json:"data"`
	Attribution string        `json:"attribution"`
}

func (g *Gateway) suggest(c *echo.Context, rq query.Raw) error {
	p, errs := query.ParseList(rq, query.ResourceSuggest, "q")
	if errs != nil {
		return invalidParams(errs)
	}
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	cs, err := g.backend.Complete(ctx, p.Of, p.N)
	if err != nil {
		return backendError(ctx, err)
	}
	body := suggestBody{Data: make([]completion, 0, len(cs)), Attribution: g.cfg.Attribution}
	for _, cpl := range cs {
		body.Data = append(body.Data, completion{Text: cpl.Text, ID: cpl.ID})
	}
	return g.sendJSON(c, body, g.cfg.MaxAge.Items)
}

func (g *Gateway) related(c *echo.Context, rq query.Raw) error {
	p, errs := query.ParseList(rq, query.ResourceRelated, "id")
	if errs != nil {
		return invalidParams(errs)
	}
	ctx, cancel := g.answerCtx(c)
	defer cancel()
	items, err := g.backend.Related(ctx, p.Of, p.N)
	if errors.Is(err, search.ErrNotFound) {
		return notFound("no item with id " + query.Shorten(p.Of))
	}
	if err != nil {
		return backendError(ctx, err)
	}
	body := relatedBody{Data: make([]itemSummary, 0, len(items)), Attribution: g.cfg.Attribution}
	strs := make(nullables, 0, summaryNullables*len(items))
	for _, it := range items {
		body.Data = append(body.Data, g.summary(it, &strs))
	}
	return g.sendJSON(c, body, g.cfg.MaxAge.Item)
}

// suggestion is the items body's correction of a search of text: "" (null) when no free word
// looks misspelt, or no change of one finds items. It corrects the free words only, and is q as
// given with them changed (query.WithWords): phrases and exclusions stay as they were. A failed
// correction only leaves it null: the search itself succeeded.
func (g *Gateway) suggestion(ctx context.Context, q search.Query) optionalString {
	if q.Given == "" && q.Text == "" {
		return optionalString{}
	}
	out := optionalString{set: true}
	if g.corrector == nil {
		return out
	}
	fixed, err := g.corrector.Correct(ctx, q)
	if err != nil {
		g.log.Debug("no correction: " + err.Error())
		return out
	}
	if fixed != "" {
		fixed = query.WithWords(q, fixed)
		out.value = &fixed
	}
	return out
}
