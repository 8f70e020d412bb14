package gateway

import (
	"github.com/labstack/echo/v5"

	"mediagw/params"
	"mediagw/search/telemetry"
)

// requestState is what the middleware and handlers learn about one request and pass on to each
// other. observe puts it on the echo context first; the others fill it in.
type requestState struct {
	// id is the request's X-Request-Id, the client's when sane, else made up.
	id string
	// visitor is the key the rate limit counts the request against (visitor.go, policies.go),
	// policy the policy it counts under.
	visitor string
	policy  *ratePolicy
	// resource labels the log line and the metrics; "" until a route names it.
	resource string
	// query is the base path's decoded query string, kept by tagAPI for api.
	query params.Raw
	// apiResource is the query's resource parameter as tagAPI read it for api, or
	// resourceErrs what is wrong with it.
	apiResource  string
	resourceErrs []params.FieldError
	// cause is the error the response answers, set by handleError.
	cause *apiError
	// origin, when the response carries a search engine's answer, notes where the answer came
	// from (telemetry.WithOrigin): send writes it as Cache-Status.
	origin *telemetry.OriginNote
	// counted marks a request whose rate-limit headers are set already: the limiter counted it (or
	// tried to), or its standing was inspected.
	counted bool
	// engine sums the time the request waited on calls that reached the search engine, when
	// metrics are on (nil otherwise): the part of its time that is not the gateway's own.
	engine *telemetry.EngineClock
}

// stateKey is the echo context key of the requestState.
const stateKey = "mediagw.request"

// state is the request's requestState; a context observe has not seen gets an empty one.
func state(c *echo.Context) *requestState {
	if st, ok := c.Get(stateKey).(*requestState); ok {
		return st
	}
	st := &requestState{}
	c.Set(stateKey, st)
	return st
}
