package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"mediagw/search"
)

// Problem types; each is the last segment of the type URI {public}{base}problems/<slug>.
const (
	slugInvalidParameter = "invalid-parameter"
	slugURITooLong       = "uri-too-long"
	slugNotFound         = "not-found"
	slugMethodNotAllowed = "method-not-allowed"
	slugRateLimited      = "rate-limited"
	slugInternal         = "internal-error"
	slugUnavailable      = "unavailable"
	slugTimeout          = "timeout"
	slugClientClosed     = "client-closed-request"
)

// statusClientClosed is what the log says when the client went away before the answer (nginx's 499).
const statusClientClosed = 499

// unavailableRetryAfter is what 503 asks clients to wait: long enough for an engine restart or a
// pod to become ready, short enough not to strand a user.
const unavailableRetryAfter = 5 * time.Second

// apiError is the one error type handlers and middleware return; the central error handler turns
// it into an RFC 9457 body. Cause is logged and never sent.
type apiError struct {
	Status int
	Slug   string
	Title  string
	Detail string
	Errors []FieldError
	// RetryAfter, when positive, becomes the Retry-After header.
	RetryAfter time.Duration
	Cause      error
}

func (e *apiError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Slug, e.Cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Slug, e.Detail)
}

func (e *apiError) Unwrap() error { return e.Cause }

// StatusCode lets echo's helpers (echo.ResolveResponseStatus) see the status.
func (e *apiError) StatusCode() int { return e.Status }

func invalidParams(errs []FieldError) *apiError {
	details := make([]string, len(errs))
	for i, fe := range errs {
		details[i] = fe.Parameter + " " + fe.Message
	}
	return &apiError{
		Status: http.StatusBadRequest, Slug: slugInvalidParameter, Title: "Invalid parameter",
		Detail: strings.Join(details, "; "), Errors: errs,
	}
}

// queryTooLong refuses a query string past maxQueryBytes or maxQueryParams. 414 and not 400:
// the bound is on the URI as a whole, not on one parameter that errors[] could name, and 414 is
// what HTTP (RFC 9110, 15.5.15) and proxies answer for a URI longer than the server will read.
func queryTooLong() *apiError {
	return &apiError{
		Status: http.StatusRequestURITooLong, Slug: slugURITooLong, Title: "URI too long",
		Detail: fmt.Sprintf("the query string may hold at most %d bytes and %d parameters", maxQueryBytes, maxQueryParams),
	}
}

func notFound(detail string) *apiError {
	return &apiError{Status: http.StatusNotFound, Slug: slugNotFound, Title: "Not found", Detail: detail}
}

func methodNotAllowed(method string) *apiError {
	return &apiError{
		Status: http.StatusMethodNotAllowed, Slug: slugMethodNotAllowed, Title: "Method not allowed",
		Detail: "this API is read-only: use " + allowedMethods + ", not " + method,
	}
}

func internalError(cause error) *apiError {
	return &apiError{
		Status: http.StatusInternalServerError, Slug: slugInternal, Title: "Internal error",
		Detail: "the server failed to answer; the request id identifies it in the server's logs",
		Cause:  cause,
	}
}

// backendError maps a search engine failure to what the client may know about it.
func backendError(ctx context.Context, err error) *apiError {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &apiError{Status: http.StatusGatewayTimeout, Slug: slugTimeout, Title: "Search engine timeout",
			Detail: "the search engine did not answer in time; try again or narrow the query", Cause: err}
	case errors.Is(err, context.Canceled):
		return &apiError{Status: statusClientClosed, Slug: slugClientClosed, Title: "Client closed request",
			Detail: "the client went away before the answer", Cause: err}
	case errors.Is(err, search.ErrUnavailable):
		return &apiError{Status: http.StatusServiceUnavailable, Slug: slugUnavailable, Title: "Search engine unavailable",
			Detail: "the search engine cannot be reached right now; try again later", RetryAfter: unavailableRetryAfter, Cause: err}
	}
	return internalError(err)
}

// problem is the RFC 9457 body.
type problem struct {
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Status    int          `json:"status"`
	Detail    string       `json:"detail"`
	Errors    []FieldError `json:"errors,omitempty"`
	RequestID string       `json:"request_id"`
}

// asAPIError turns any error into an apiError; echo's own routing errors keep their status, and
// anything unknown is a 500 whose text stays in the log.
func asAPIError(err error, method string) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	switch echo.StatusCode(err) {
	case http.StatusNotFound:
		return notFound("no such path")
	case http.StatusMethodNotAllowed:
		return methodNotAllowed(method)
	}
	return internalError(err)
}

// handleError is the central error handler: every error a handler or middleware returns ends here.
func (g *Gateway) handleError(c *echo.Context, err error) {
	ae := asAPIError(err, c.Request().Method)
	c.Set(ctxCause, ae)
	if r, _ := echo.UnwrapResponse(c.Response()); r != nil && r.Committed {
		return // the status line is out already; the log line still carries the cause
	}
	h := c.Response().Header()
	// Headers a success path may have set before failing mean nothing for an error.
	for _, k := range []string{"ETag", "Link", "Content-Encoding"} {
		h.Del(k)
	}
	if ae.Status == http.StatusMethodNotAllowed {
		h.Set(echo.HeaderAllow, allowedMethods)
	}
	if ae.RetryAfter > 0 {
		h.Set(echo.HeaderRetryAfter, strconv.FormatInt(ceilSeconds(ae.RetryAfter), 10))
	}
	buf := getBuffer()
	defer putBuffer(buf)
	if encErr := encodeJSON(buf, problem{
		Type: g.baseURL + "problems/" + ae.Slug, Title: ae.Title, Status: ae.Status,
		Detail: ae.Detail, Errors: ae.Errors, RequestID: requestID(c),
	}); encErr != nil {
		c.Set(ctxCause, internalError(errors.Join(err, encErr)))
		c.Response().WriteHeader(http.StatusInternalServerError)
		return
	}
	// A write error here means the client is gone; the log line records the status we meant.
	_ = g.send(c, reply{status: ae.Status, contentType: "application/problem+json", body: buf.Bytes(), maxAge: noStore, compressible: true})
}

// ceilSeconds rounds d up to whole seconds, as Retry-After and the RateLimit fields count them.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
