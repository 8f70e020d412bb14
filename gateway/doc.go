// Package gateway serves the public HTTP API of API.md over a search.Backend: its parameters read
// by the query codec (package params), envelopes, RFC 9457 errors, caching, compression and CORS headers, and the
// per-visitor rate limit.
//
// Files by concern: routes.go (New, the route table and the base path's resources), state.go
// (what one request carries through the middleware), observe.go and requestid.go (request id,
// logging, recovery, metrics), logcap.go (what a log line may take from a request, and sampling), conns.go (the
// listener's connection caps, refused bodies, Go's own errors as problems), cors.go (methods and
// preflight), ratelimit.go (the limiter's middleware and headers), policies.go (the operator's
// networks with limits of their own: which policy and visitor a request counts under), speculate.go (requests decided
// while their handler runs), problem.go (the table of problem types and the error handler), querylog.go (what the query log is told),
// respond.go and compress.go (the one way a response is written), and one file per resource's
// handler.
package gateway
