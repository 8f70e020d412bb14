package gateway

import (
	"net/http"

	"github.com/labstack/echo/v5"
)

const allowedMethods = "GET, HEAD, OPTIONS"

// exposedHeaders are the response headers browser scripts may read: the contract's, and the older
// rate-limit headers. Not Cache-Status nor Age: a hit (or a stale answer's age) tells a page that
// someone else searched the same query on this replica lately.
const exposedHeaders = "ETag, Link, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"

// corsHeaders are on every response: any origin may read the API, which takes no credentials.
func corsHeaders(h http.Header) {
	h.Set(echo.HeaderAccessControlAllowOrigin, "*")
	h.Set(echo.HeaderAccessControlExposeHeaders, exposedHeaders)
	h.Set(echo.HeaderXContentTypeOptions, "nosniff")
}

// methods gives a route the API's method rules: GET and HEAD reach h, OPTIONS is a CORS preflight,
// anything else is 405.
func (g *Gateway) methods(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead:
			return h(c)
		case http.MethodOptions:
			return preflight(c)
		}
		return methodNotAllowed(c.Request().Method)
	}
}

func preflight(c *echo.Context) error {
	h := c.Response().Header()
	h.Set(echo.HeaderAccessControlAllowMethods, allowedMethods)
	// Reflecting the asked-for headers is safe: the API takes no credentials and changes nothing.
	if asked := c.Request().Header.Get(echo.HeaderAccessControlRequestHeaders); asked != "" {
		h.Set(echo.HeaderAccessControlAllowHeaders, asked)
	}
	h.Add(echo.HeaderVary, echo.HeaderAccessControlRequestHeaders)
	h.Set(echo.HeaderAccessControlMaxAge, "86400")
	h.Set(echo.HeaderAllow, allowedMethods)
	return c.NoContent(http.StatusNoContent)
}
