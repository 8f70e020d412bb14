package gateway

import "mediagw/search"

// QueryLog notes what people search for (package querylog). Record is called on the request's
// path, once a search is answered, so it must not wait on anything.
type QueryLog interface {
	// Record notes a search of text, operators included, by visitor (the rate limit's key), and
	// whether it found nothing.
	Record(visitor, text string, zero bool)
}

// noteSearch tells the query log about an answered search with a text, as the client typed it:
// its first page only, since the pages after it (numbered or a walk's) are the same search read
// further.
func (g *Gateway) noteSearch(visitor string, q *search.Query, res search.Result) {
	if g.cfg.Queries == nil || q.Given == "" {
		return
	}
	if q.Cursor == search.StartCursor || (q.Cursor == "" && q.Page == 1) {
		g.cfg.Queries.Record(visitor, q.Given, res.Total == 0)
	}
}
