package gateway

import (
	"context"

	"mediagw/params"
	"mediagw/search"
)

// The did-you-mean: the items body's suggestion, a search's correction asked of the chain's top.

// Corrector is a backend that offers the did-you-mean of a search: a chain's top
// (search/spell.Speller). The gateway asks for it once, in New.
type Corrector interface {
	Correct(ctx context.Context, r *search.Request) (string, error)
}

// suggestion is the items body's correction of a search of text: "" (null) when no free word
// looks misspelt, or no change of one finds items. It corrects the free words only, and is q as
// given with them changed (params.WithWords): phrases and exclusions stay as they were. A failed
// correction only leaves it null: the search itself succeeded.
func (g *Gateway) suggestion(ctx context.Context, r *search.Request) optionalString {
	q := &r.Query
	if q.Given == "" && q.Text == "" {
		return optionalString{}
	}
	out := optionalString{set: true}
	if g.corrector == nil {
		return out
	}
	fixed, err := g.corrector.Correct(ctx, r)
	if err != nil {
		g.log.Debug("no correction: " + err.Error())
		return out
	}
	if fixed != "" {
		fixed = params.WithWords(q, fixed)
		out.value = &fixed
	}
	return out
}
