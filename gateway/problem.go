package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"
	"go.uber.org/zap/zapcore"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"mediagw/params"
	"mediagw/ratelimit"
	"mediagw/search"
)

// problemType is one kind of problem the API answers with: the last segment of its type URI
// {public}{base}problems/<slug>, its status and title, and what its page (problemdocs.go) and the
// OpenAPI document's response say: when it happens and what to do. The title is the same for
// every problem of a type; each answer's detail says what went wrong with that request.
type problemType struct {
	Slug   string
	Status int
	Title  string
	When   string
	Do     string
	// Response is the OpenAPI document's component response of this type (its HEAD form adds
	// "Head"); "" for a status no client receives.
	Response string
}

// statusClientClosed is what the log says when the client went away before the answer (nginx's 499).
const statusClientClosed = 499

// The problem types, one variable each for the code that answers with them.
var (
	problemBadRequest = &problemType{"bad-request", http.StatusBadRequest, "Bad request",
		"The request could not be read as one the API answers: it has a body (the API is read-only and reads none), both Content-Length and Transfer-Encoding, or a malformed request line or header. The connection is closed after the answer.",
		"Send a GET or HEAD without a body, and well-formed HTTP.", "Malformed"}
	problemInvalidParameter = &problemType{"invalid-parameter", http.StatusBadRequest, "Invalid parameter",
		"A parameter is missing, malformed, out of range or given twice. errors[] lists every bad parameter of the request, each with what was sent and what is wrong.",
		"Correct the parameters errors[] names and send the request again.", "BadRequest"}
	problemNotFound = &problemType{"not-found", http.StatusNotFound, "Not found",
		"No item has the requested id, no QR code exists for it, or the path is not one the API serves.",
		"Check the id against a search; the API answers on its base path.", "NotFound"}
	problemMethodNotAllowed = &problemType{"method-not-allowed", http.StatusMethodNotAllowed, "Method not allowed",
		"The API is read-only: it answers GET, HEAD and OPTIONS. Not counted by the rate limit; the rate-limit headers still say where the visitor stands.",
		"Send a GET (or HEAD); the Allow header lists the methods.", "MethodNotAllowed"}
	problemCursorExpired = &problemType{"cursor-expired", http.StatusGone, "Cursor expired",
		"The cursor of a walk (cursor paging) was made on a version of the index that is no longer served: the catalogue was reloaded since the walk started, and the new version may order or hold its items otherwise.",
		"Start the walk again with cursor=*; a walk sees every item exactly once while the index version stays the same.", "Gone"}
	problemURITooLong = &problemType{"uri-too-long", http.StatusRequestURITooLong, "URI too long",
		number.Sprintf("The query string is longer than any request the API reads (%d bytes) or has more than %d parameters; the longest legal query, every byte percent-encoded, is %d bytes.",
			params.MaxBytes, params.MaxParams, 3*params.Longest),
		"Send only the parameters the API reads; the longest legal request is well within the bound.", "URITooLong"}
	problemHeadersTooLarge = &problemType{"headers-too-large", http.StatusRequestHeaderFieldsTooLarge, "Request headers too large",
		"The request line and headers together are longer than the server reads. The connection is closed after the answer; no rate-limit headers, as the request was never read.",
		"Send a shorter path and fewer or shorter headers; the longest legal request is well within the bound.", "HeadersTooLarge"}
	problemQueryRefused = &problemType{"query-refused", http.StatusUnprocessableEntity, "Query refused",
		"The search engine refused the query though every parameter is valid: it holds more than the engine runs (too many clauses) or something the engine cannot read. The gateway keeps the queries it builds within every engine's limits, so this is rare; the request_id finds it in the service's logs. Not a failure of the engine's: it does not make the service unavailable for others.",
		"Search with fewer or shorter words; sending the same request again gets the same answer.", "QueryRefused"}
	problemRateLimited = &problemType{"rate-limited", http.StatusTooManyRequests, "Too many requests",
		"This visitor has used up its requests for now; every resource counts against one limit, shared by every replica.",
		"Wait the seconds Retry-After says; the RateLimit headers of every response say where the visitor stands.", "TooManyRequests"}
	problemClientClosed = &problemType{"client-closed-request", statusClientClosed, "Client closed request",
		"The client went away before the answer was ready. Only logs and metrics see this status.",
		"Nothing: no client receives it.", ""}
	problemInternal = &problemType{"internal-error", http.StatusInternalServerError, "Internal error",
		"Something failed inside the service. The response says nothing more; the request_id finds the cause in the service's logs.",
		"Try again later; if it persists, report the request_id.", "InternalError"}
	problemUnavailable = &problemType{"unavailable", http.StatusServiceUnavailable, "Service unavailable",
		"The search engine cannot be reached or has no index to serve, or failed so often that the gateway stops asking it until its next probe (the circuit breaker is open), or this replica is at its limit of search work in progress and no slot came free within a few milliseconds, or (on /readyz) this replica is shutting down.",
		"Try again after the seconds Retry-After says.", "Unavailable"}
	problemTimeout = &problemType{"timeout", http.StatusGatewayTimeout, "Search engine timeout",
		"The search engine did not answer in time.",
		"Try again; a narrower query may answer faster.", "Timeout"}
)

// problemTypes is every problem type, in the order of their statuses: the one table the errors,
// the problem pages and (by TestOpenAPIProblemTypes) the OpenAPI document follow.
var problemTypes = []*problemType{
	problemBadRequest, problemInvalidParameter, problemNotFound, problemMethodNotAllowed, problemCursorExpired, problemURITooLong, problemQueryRefused, problemRateLimited,
	problemHeadersTooLarge,
	problemClientClosed, problemInternal, problemUnavailable, problemTimeout,
}

// number writes numbers as the documentation does: 9,383.
var number = message.NewPrinter(language.English)

// unavailableRetryAfter is what 503 asks clients to wait: long enough for an engine restart or a
// pod to become ready, short enough not to strand a user.
const unavailableRetryAfter = 5 * time.Second

// apiError is the one error type handlers and middleware return; the central error handler turns
// it into an RFC 9457 body. Cause is logged and never sent.
type apiError struct {
	Type   *problemType
	Detail string
	Errors []params.FieldError
	// RetryAfter, when positive, becomes the Retry-After header.
	RetryAfter time.Duration
	Cause      error
	// kind is the backend error's kind (search.KindIn) when a backend error is the cause.
	kind search.ErrorKind
}

func (e *apiError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %v", e.Type.Status, e.Type.Slug, e.Cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Type.Status, e.Type.Slug, e.Detail)
}

func (e *apiError) Unwrap() error { return e.Cause }

// StatusCode lets echo's helpers (echo.ResolveResponseStatus) see the status.
func (e *apiError) StatusCode() int { return e.Type.Status }

func invalidParams(errs []params.FieldError) *apiError {
	details := make([]string, len(errs))
	for i, fe := range errs {
		details[i] = fe.Parameter + " " + fe.Message
	}
	return &apiError{Type: problemInvalidParameter, Detail: strings.Join(details, "; "), Errors: errs}
}

// queryTooLong refuses a query string past params.MaxBytes or params.MaxParams. 414 and not 400:
// the bound is on the URI as a whole, not on one parameter that errors[] could name, and 414 is
// what HTTP (RFC 9110, 15.5.15) and proxies answer for a URI longer than the server will read.
func queryTooLong() *apiError {
	return &apiError{Type: problemURITooLong,
		Detail: fmt.Sprintf("the query string may hold at most %d bytes and %d parameters", params.MaxBytes, params.MaxParams)}
}

// bodyRefused refuses a request that comes with a body, unread: the API reads none, and a body
// the connection still carries (or a Content-Length a proxy may have read otherwise than
// Transfer-Encoding) is why the connection is closed after the answer.
func bodyRefused(r *http.Request) *apiError {
	detail := "the API is read-only and reads no request body; send the request without one"
	if len(r.TransferEncoding) > 0 {
		detail = "the API reads no request body, so no Transfer-Encoding either (with Content-Length too, proxies may disagree on where the request ends); send the request without one"
	}
	return &apiError{Type: problemBadRequest, Detail: detail}
}

func headersTooLarge() *apiError {
	return &apiError{Type: problemHeadersTooLarge, Detail: "the request line and headers are longer than the server reads"}
}

func notFound(detail string) *apiError {
	return &apiError{Type: problemNotFound, Detail: detail}
}

func methodNotAllowed(method string) *apiError {
	return &apiError{Type: problemMethodNotAllowed, Detail: "this API is read-only: use " + allowedMethods + ", not " + method}
}

// rateLimited refuses a request past the visitor's limit; retry is when the next one is allowed.
func rateLimited(policy ratelimit.Policy, retry time.Duration) *apiError {
	retry = max(retry, time.Second)
	return &apiError{Type: problemRateLimited,
		Detail: fmt.Sprintf("at most %d requests per %d seconds per visitor; try again in %d seconds",
			policy.Limit, ceilSeconds(policy.Window), ceilSeconds(retry)),
		RetryAfter: retry,
	}
}

func internalError(cause error) *apiError {
	return &apiError{Type: problemInternal,
		Detail: "the server failed to answer; the request id identifies it in the server's logs", Cause: cause}
}

// unavailable is a 503 whose Retry-After is unavailableRetryAfter, or the wait the cause names
// when it knows better (a circuit breaker knows when it next asks the engine).
func unavailable(detail string, cause error) *apiError {
	retry := unavailableRetryAfter
	var e *search.Error
	if errors.As(cause, &e) && e.RetryAfter > 0 {
		retry = max(e.RetryAfter, time.Second)
	}
	return &apiError{Type: problemUnavailable, Detail: detail, RetryAfter: retry, Cause: cause}
}

// searchError maps the failure of a search for q: a cursor the backend refuses is the client's
// (400 naming it), anything else is backendError.
func searchError(ctx context.Context, q *search.Query, err error) *apiError {
	if search.Kind(err) == search.KindCursorInvalid {
		return invalidParams([]params.FieldError{params.Invalid("cursor", q.Cursor, params.CursorRule)})
	}
	return backendError(ctx, err)
}

// backendError maps a backend's error, by its kind (search.KindIn: the classification the engine
// call metrics and the cache read too), to what the client may know about it; the log line's
// level follows the status.
func backendError(ctx context.Context, err error) *apiError {
	kind := search.KindIn(ctx, err)
	var ae *apiError
	switch kind {
	case search.KindNotFound:
		ae = notFound("no such item")
	case search.KindCursorExpired:
		ae = &apiError{Type: problemCursorExpired,
			Detail: "the cursor belongs to an index version no longer served (the catalogue was reloaded); start the walk again with cursor=*", Cause: err}
	case search.KindRefused:
		ae = &apiError{Type: problemQueryRefused,
			Detail: "the search engine refused this query as too large or unreadable for it; search with fewer or shorter words", Cause: err}
	case search.KindTimeout:
		ae = &apiError{Type: problemTimeout,
			Detail: "the search engine did not answer in time; try again or narrow the query", Cause: err}
	case search.KindCanceled:
		ae = &apiError{Type: problemClientClosed, Detail: "the client went away before the answer", Cause: err}
	case search.KindNoIndex:
		ae = unavailable(noIndexDetail(err), err)
	case search.KindUnavailable:
		ae = unavailable("the search engine cannot be reached right now; try again later", err)
	case search.KindOverloaded:
		ae = unavailable("the server is at its limit of searches in progress; try again later", err)
	default:
		ae = internalError(err)
	}
	ae.kind = kind
	return ae
}

// noIndexDetail says which index is missing (a *search.NoIndexError) and how an operator fixes it.
func noIndexDetail(err error) string {
	var ne *search.NoIndexError
	name := "the search index"
	if errors.As(err, &ne) && ne.Name != "" {
		name = fmt.Sprintf("the search index %q", ne.Name)
	}
	return name + " does not exist: no catalogue is loaded (an operator loads one with mediactl load FILE)"
}

// logLevel is how loud the log line of a request answered with e is: an error when the service or
// its engine failed it (a 5xx), except a warning when admission refused it (load shed as designed,
// counted by mediagw_admission_total); info for the client's own problems.
func (e *apiError) logLevel() zapcore.Level {
	switch {
	case e.Type.Status < 500 || e.Type == problemClientClosed:
		return zapcore.InfoLevel
	case e.kind == search.KindOverloaded:
		return zapcore.WarnLevel
	}
	return zapcore.ErrorLevel
}

// problem is the RFC 9457 body.
type problem struct {
	Type      string              `json:"type"`
	Title     string              `json:"title"`
	Status    int                 `json:"status"`
	Detail    string              `json:"detail"`
	Errors    []params.FieldError `json:"errors,omitempty"`
	RequestID string              `json:"request_id"`
}

// problem is e's body; problemURL is the prefix of the problem type URIs.
func (e *apiError) problem(problemURL, requestID string) problem {
	return problem{Type: problemURL + e.Type.Slug, Title: e.Type.Title, Status: e.Type.Status,
		Detail: e.Detail, Errors: e.Errors, RequestID: requestID}
}

// problemBody is e's body encoded, for an answer written outside echo.
func problemBody(problemURL string, e *apiError, requestID string) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeJSON(&buf, e.problem(problemURL, requestID)); err != nil {
		return nil, fmt.Errorf("encode problem: %w", err)
	}
	return buf.Bytes(), nil
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
	st := state(c)
	st.cause = ae
	if r, _ := echo.UnwrapResponse(c.Response()); r != nil && r.Committed {
		return // the status line is out already; the log line still carries the cause
	}
	h := c.Response().Header()
	// Headers a success path may have set before failing mean nothing for an error.
	for _, k := range []string{"ETag", "Link", "Content-Encoding"} {
		h.Del(k)
	}
	if ae.Type == problemMethodNotAllowed {
		h.Set(echo.HeaderAllow, allowedMethods)
	}
	if ae.RetryAfter > 0 {
		h.Set(echo.HeaderRetryAfter, strconv.FormatInt(ceilSeconds(ae.RetryAfter), 10))
	}
	buf := getBuffer()
	defer putBuffer(buf)
	if encErr := encodeJSON(buf, ae.problem(g.baseURL+"problems/", st.id)); encErr != nil {
		st.cause = internalError(errors.Join(err, encErr))
		c.Response().WriteHeader(http.StatusInternalServerError)
		return
	}
	// A write error here means the client is gone; the log line records the status we meant.
	_ = g.send(c, reply{status: ae.Type.Status, contentType: "application/problem+json", body: buf.Bytes(), maxAge: noStore, compressible: true})
}
