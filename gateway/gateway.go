// Package gateway serves the public HTTP API of API.md over a search.Backend: parameter
// validation, envelopes, RFC 9457 errors, caching and CORS headers, and the per-visitor rate limit.
package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"rsc.io/qr"

	"mediagw/ratelimit"
	"mediagw/search"
)

// Limiter decides whether a visitor may make another request. Implementations must be safe for
// concurrent use and honour ctx's deadline; on an error the gateway lets the request through.
// A Limiter that is also an Inspector gives every response that is not counted the visitor's
// standing too; without one, those responses carry no rate-limit headers.
type Limiter interface {
	Allow(ctx context.Context, key string) (ratelimit.Decision, error)
}

// Inspector says where a visitor stands without counting a request, and keeps nothing for a
// visitor it does not know (who stands at the full limit). The same rules as Allow apply; on an
// error the response goes out without the rate-limit headers.
type Inspector interface {
	Inspect(ctx context.Context, key string) (ratelimit.Decision, error)
}

const allowedMethods = "GET, HEAD, OPTIONS"

// exposedHeaders are the response headers browser scripts may read.
const exposedHeaders = "ETag, Link, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"

// Keys of per-request values kept on the echo context.
const (
	ctxRequestID = "mediagw.request_id"
	ctxVisitor   = "mediagw.visitor"
	ctxResource  = "mediagw.resource"
	ctxQuery     = "mediagw.query"
	ctxCause     = "mediagw.cause"
	// ctxCounted marks a request the limiter counted (or tried to): its headers are set already.
	ctxCounted = "mediagw.counted"
)

// Gateway is the API's HTTP handler.
type Gateway struct {
	e       *echo.Echo
	cfg     Config
	backend search.Backend
	// extras is the backend's search-box extras; nil when it answers none.
	extras  search.Extras
	limiter Limiter
	// inspector is limiter, when it can inspect; nil otherwise.
	inspector Inspector
	log       *zap.Logger
	// baseURL is PublicURL plus BasePath, ending in "/": the prefix of every link.
	baseURL string
	// visitorSecret keys the visitor hash in log lines, so a log never holds an address and the
	// hash means nothing outside this process.
	visitorSecret []byte
	// ratePolicy is the RateLimit-Policy value, fixed at start.
	ratePolicy string
	// metrics is nil when the config asked for none.
	metrics  *metrics
	draining atomic.Bool

	// The encoded list bodies and OpenAPI document, kept from their first request.
	categoryBodies listBodies[search.Category]
	authorBodies   listBodies[search.Author]
	openAPIOnce    sync.Once
	openAPIBody    *encodedBody
	// demo holds the search page's files, by path; nil when none is served.
	demo map[string]demoFile
}

// New returns the API's HTTP handler. The limiter counts every API request (not OPTIONS,
// health, readiness, the OpenAPI document or a 405); when it is also an Inspector, every other
// response says where the visitor stands without counting. logger receives one line per request.
func New(cfg Config, backend search.Backend, limiter Limiter, logger *zap.Logger) (*Gateway, error) {
	cfg.BasePath = normalizeBasePath(cfg.BasePath)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if backend == nil || limiter == nil {
		return nil, errors.New("gateway: backend and limiter are required")
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("gateway: visitor hash key: %w", err)
	}
	g := &Gateway{
		cfg: cfg, backend: backend, limiter: limiter, log: logger,
		baseURL:       strings.TrimSuffix(cfg.PublicURL, "/") + cfg.BasePath,
		visitorSecret: secret,
		ratePolicy:    fmt.Sprintf(`"default";q=%d;w=%d`, cfg.RatePolicy.Limit, ceilSeconds(cfg.RatePolicy.Window)),
	}
	g.inspector, _ = limiter.(Inspector)
	g.extras, _ = backend.(search.Extras)
	if cfg.Demo != nil {
		var err error
		if g.demo, err = loadDemo(cfg.Demo); err != nil {
			return nil, err
		}
	}
	if cfg.Metrics != nil {
		g.metrics = newMetrics()
		if err := cfg.Metrics.Register(g.metrics); err != nil {
			return nil, fmt.Errorf("gateway: register metrics: %w", err)
		}
		metered := meteredBackend{next: backend, m: g.metrics}
		g.backend = metered
		if g.extras != nil {
			g.extras = meteredExtras{next: g.extras, meteredBackend: metered}
		}
	}

	e := echo.New()
	g.e = e
	// Echo logs only misuse such as double writes, which send rules out; our own log is zap.
	e.Logger = slog.New(slog.DiscardHandler)
	e.HTTPErrorHandler = g.handleError
	e.Use(g.observe)

	// Each route names its resource before the limiter runs, so a 429 is logged and counted under it.
	base := cfg.BasePath
	e.Any(base, g.methods(g.api), tagAPI, g.limit)
	if base != "/" {
		e.Any(strings.TrimSuffix(base, "/"), g.methods(g.api), tagAPI, g.limit)
	}
	e.Any(base+"qr/:file", g.methods(g.qrCode), tag(resQR), g.limit)
	if len(cfg.OpenAPI) > 0 {
		e.Any(base+"openapi.json", g.methods(g.openAPI), tag(resOpenAPI))
	}
	e.Any(base+"problems/:slug", g.methods(g.problemType), tag(resProblem))
	if g.demo != nil {
		e.Any(base+"demo", g.methods(g.demoRedirect), tag(resDemo))
		e.Any(base+"demo/*", g.methods(g.demoPage), tag(resDemo))
	}
	e.Any("/healthz", g.methods(g.healthz), tag(resHealthz))
	e.Any("/readyz", g.methods(g.readyz), tag(resReadyz))
	e.RouteNotFound("/*", func(c *echo.Context) error {
		return notFound("no such path; the API answers on " + base)
	}, g.limit)
	return g, nil
}

// ServeHTTP serves one request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.e.ServeHTTP(w, r) }

// Drain makes /readyz fail from now on, so load balancers stop sending new requests before the
// server shuts down; every request that still arrives is served as usual.
func (g *Gateway) Drain() { g.draining.Store(true) }

// tag names the resource a route serves, for the log line and the metrics.
func tag(resource string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			c.Set(ctxResource, resource)
			return next(c)
		}
	}
}

// tagAPI names the base path's resource when the resource parameter is valid; a bad one is api's
// to report. It keeps the decoded query for api.
func tagAPI(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		rq := splitQuery(c.Request().URL.RawQuery)
		c.Set(ctxQuery, rq)
		if res, errs := parseResource(rq); errs == nil {
			c.Set(ctxResource, res)
		}
		return next(c)
	}
}

// observe is the outermost middleware: it gives the request an id and its CORS headers, turns a
// returned error or a panic into a problem response, and writes the one log line and the metrics.
func (g *Gateway) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		start := time.Now()
		if g.metrics != nil {
			g.metrics.inFlight.Inc()
			// Deferred, so a request whose handler aborts (http.ErrAbortHandler) leaves the gauge too.
			defer g.metrics.inFlight.Dec()
		}
		req := c.Request()
		id := req.Header.Get(echo.HeaderXRequestID)
		if !validRequestID(id) {
			id = rand.Text()
		}
		c.Set(ctxRequestID, id)
		c.Set(ctxVisitor, visitorKey(req.RemoteAddr, req.Header.Values(echo.HeaderXForwardedFor), req.Header.Get(echo.HeaderXRealIP), g.cfg.TrustedProxies))
		h := c.Response().Header()
		h.Set(echo.HeaderXRequestID, id)
		h.Set(echo.HeaderAccessControlAllowOrigin, "*")
		h.Set(echo.HeaderAccessControlExposeHeaders, exposedHeaders)
		h.Set(echo.HeaderXContentTypeOptions, "nosniff")
		if g.inspector != nil {
			// Just before the status line, whoever writes it: by then limit has counted the
			// request or not, and an uncounted one (405, preflight, health, an error) still says
			// where its visitor stands.
			if resp, _ := echo.UnwrapResponse(c.Response()); resp != nil {
				resp.Before(func() { g.standing(c) })
			}
		}

		if err := g.recovered(c, next); err != nil {
			g.handleError(c, err)
		}
		latency := time.Since(start)
		status := responseStatus(c)
		resource, _ := c.Get(ctxResource).(string)
		g.logRequest(c, resource, status, latency)
		if g.metrics != nil {
			g.metrics.observeRequest(resource, status, latency)
		}
		return nil
	}
}

// responseStatus is the status the response went out with, or 499 when the client went away first.
func responseStatus(c *echo.Context) int {
	_, status := echo.ResolveResponseStatus(c.Response(), nil)
	if ae, _ := c.Get(ctxCause).(*apiError); ae != nil && ae.Status == statusClientClosed {
		return statusClientClosed
	}
	return status
}

// recovered runs next, turning a panic into a 500 so one bad request cannot take the process down.
func (g *Gateway) recovered(c *echo.Context, next echo.HandlerFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			err = internalError(fmt.Errorf("panic: %v", r))
		}
	}()
	return next(c)
}

func (g *Gateway) logRequest(c *echo.Context, resource string, status int, latency time.Duration) {
	level := zapcore.InfoLevel
	if status >= 500 && status != statusClientClosed {
		level = zapcore.ErrorLevel
	}
	ce := g.log.Check(level, "request")
	if ce == nil {
		return
	}
	req := c.Request()
	var bytes int64
	if resp, _ := echo.UnwrapResponse(c.Response()); resp != nil {
		bytes = resp.Size
	}
	visitor, _ := c.Get(ctxVisitor).(string)
	mac := hmac.New(sha256.New, g.visitorSecret)
	mac.Write([]byte(visitor))
	fields := []zap.Field{
		zap.Int("status", status),
		zap.String("method", req.Method),
		zap.String("path", req.URL.Path),
		zap.String("resource", resource),
		zap.String("request_id", requestID(c)),
		zap.Int64("bytes", bytes),
		zap.Duration("latency", latency),
		zap.String("visitor", hex.EncodeToString(mac.Sum(nil)[:8])),
	}
	if ae, _ := c.Get(ctxCause).(*apiError); ae != nil && ae.Cause != nil {
		fields = append(fields, zap.Error(ae.Cause))
	}
	ce.Write(fields...)
}

func requestID(c *echo.Context) string {
	id, _ := c.Get(ctxRequestID).(string)
	return id
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

// limit counts the request against its visitor and says where the visitor stands. A limiter
// failure lets the request through: a broken counter must not take the API down.
func (g *Gateway) limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		method := c.Request().Method
		if method != http.MethodGet && method != http.MethodHead {
			return next(c)
		}
		c.Set(ctxCounted, true)
		c.Response().Header().Set("RateLimit-Policy", g.ratePolicy)
		visitor, _ := c.Get(ctxVisitor).(string)
		ctx, cancel := context.WithTimeout(c.Request().Context(), g.cfg.LimiterTimeout)
		d, err := g.limiter.Allow(ctx, visitor)
		cancel()
		if err != nil {
			g.log.Warn("rate limiter failed; request let through", zap.String("request_id", requestID(c)), zap.Error(err))
			return next(c)
		}
		g.setStanding(c, d)
		if !d.Allowed {
			retry := ceilSeconds(d.RetryAfter)
			return &apiError{
				Status: http.StatusTooManyRequests, Slug: slugRateLimited, Title: "Too many requests",
				Detail: fmt.Sprintf("at most %d requests per %d seconds per visitor; try again in %d seconds",
					g.cfg.RatePolicy.Limit, ceilSeconds(g.cfg.RatePolicy.Window), max(retry, 1)),
				RetryAfter: max(d.RetryAfter, time.Second),
			}
		}
		return next(c)
	}
}

// standing gives a response the limit did not count its visitor's standing, without counting it,
// under the same timeout as a counted request. An inspection that fails leaves the response as it
// is, with RateLimit-Policy only, as a counted request whose limiter failed.
func (g *Gateway) standing(c *echo.Context) {
	if counted, _ := c.Get(ctxCounted).(bool); counted {
		return
	}
	// Once only: a hook that fails must not run again for the error response that follows.
	c.Set(ctxCounted, true)
	c.Response().Header().Set("RateLimit-Policy", g.ratePolicy)
	visitor, _ := c.Get(ctxVisitor).(string)
	d, err := g.inspect(c, visitor)
	if err != nil {
		g.log.Warn("rate limiter failed; response sent without the visitor's standing", zap.String("request_id", requestID(c)), zap.Error(err))
		return
	}
	g.setStanding(c, d)
}

// inspect asks the inspector under the limiter's timeout. It runs while the status line is being
// written, outside the handler's recovery, so a panic becomes an error here.
func (g *Gateway) inspect(c *echo.Context, visitor string) (d ratelimit.Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rate limiter panicked: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(c.Request().Context(), g.cfg.LimiterTimeout)
	defer cancel()
	return g.inspector.Inspect(ctx, visitor)
}

// setStanding writes where the visitor stands: RateLimit and the older X-RateLimit-* headers.
func (g *Gateway) setStanding(c *echo.Context, d ratelimit.Decision) {
	h := c.Response().Header()
	h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, d.Remaining, ceilSeconds(d.RetryAfter)))
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilSeconds(d.ResetAfter), 10))
}

// backendCtx bounds one call to the search engine.
func (g *Gateway) backendCtx(c *echo.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request().Context(), g.cfg.RequestTimeout)
}

// api serves the base path: the resource parameter picks the operation.
func (g *Gateway) api(c *echo.Context) error {
	// api runs behind tagAPI, which decoded the query.
	rq, _ := c.Get(ctxQuery).(rawQuery)
	if rq.oversized {
		// Refused only here, behind the limiter, so it counts like any other bad request.
		return queryTooLong()
	}
	res, errs := parseResource(rq)
	if errs != nil {
		return invalidParams(errs)
	}
	switch res {
	case resItems:
		return g.items(c, rq)
	case resItem:
		return g.item(c, rq)
	case resCategories:
		return g.categories(c)
	case resSuggest:
		return g.suggest(c, rq)
	case resRelated:
		return g.related(c, rq)
	default:
		return g.authors(c)
	}
}

func (g *Gateway) items(c *echo.Context, rq rawQuery) error {
	q, errs := parseItems(rq)
	if errs != nil {
		return invalidParams(errs)
	}
	ctx, cancel := g.backendCtx(c)
	defer cancel()
	res, err := g.backend.Search(ctx, q)
	if err != nil {
		return backendError(ctx, err)
	}
	body := g.itemsEnvelope(q, res)
	body.Suggestion = g.suggestion(ctx, q, res.Total)
	c.Response().Header().Set("Link", linkHeader(body.Links))
	return g.sendJSON(c, body, g.cfg.MaxAge.Items)
}

func (g *Gateway) item(c *echo.Context, rq rawQuery) error {
	id, errs := parseItemID(rq)
	if errs != nil {
		return invalidParams(errs)
	}
	it, err := g.lookup(c, id)
	if err != nil {
		return err
	}
	strs := make(nullables, 0, detailNullables)
	return g.sendJSON(c, itemBody{Data: g.detail(it, &strs), Attribution: g.cfg.Attribution}, g.cfg.MaxAge.Item)
}

func (g *Gateway) lookup(c *echo.Context, id string) (search.Item, error) {
	ctx, cancel := g.backendCtx(c)
	defer cancel()
	it, err := g.backend.Item(ctx, id)
	if errors.Is(err, search.ErrNotFound) {
		return it, notFound("no item with id " + shorten(id))
	}
	if err != nil {
		return it, backendError(ctx, err)
	}
	return it, nil
}

func (g *Gateway) categories(c *echo.Context) error {
	ctx, cancel := g.backendCtx(c)
	defer cancel()
	cats, err := g.backend.Categories(ctx)
	if err != nil {
		return backendError(ctx, err)
	}
	body, err := g.categoryBodies.body(cats, func() any {
		body := categoriesBody{Data: make([]category, 0, len(cats)), Total: len(cats), Attribution: g.cfg.Attribution}
		for _, ct := range cats {
			body.Data = append(body.Data, category{Slug: ct.Slug, Name: ct.Name, Count: ct.Count})
		}
		return body
	})
	if err != nil {
		return internalError(fmt.Errorf("encode categories: %w", err))
	}
	return g.send(c, body.reply(g.cfg.MaxAge.Categories))
}

func (g *Gateway) authors(c *echo.Context) error {
	ctx, cancel := g.backendCtx(c)
	defer cancel()
	as, err := g.backend.Authors(ctx)
	if err != nil {
		return backendError(ctx, err)
	}
	body, err := g.authorBodies.body(as, func() any {
		body := authorsBody{Data: make([]author, 0, len(as)), Total: len(as), Attribution: g.cfg.Attribution}
		for _, a := range as {
			body.Data = append(body.Data, author{Name: a.Name, Count: a.Count})
		}
		return body
	})
	if err != nil {
		return internalError(fmt.Errorf("encode authors: %w", err))
	}
	return g.send(c, body.reply(g.cfg.MaxAge.Authors))
}

// qrCode serves {base}qr/{id}.png: a QR code of the item's permalink.
func (g *Gateway) qrCode(c *echo.Context) error {
	// The router matches the escaped path, so the parameter is still percent-encoded:
	// gen-photo-%32.png is gen-photo-2.png (RFC 3986, 6.2.2.2).
	file, err := url.PathUnescape(c.Param("file"))
	if err != nil {
		return invalidParams([]FieldError{fieldError("id", strings.TrimSuffix(c.Param("file"), ".png"), "is not valid percent-encoding")})
	}
	id, ok := strings.CutSuffix(file, ".png")
	if !ok {
		return notFound("QR codes are at " + g.cfg.BasePath + "qr/{id}.png")
	}
	if err := search.CheckID(id); err != nil {
		return invalidParams([]FieldError{idError(id, err)})
	}
	it, err := g.lookup(c, id)
	if err != nil {
		return err
	}
	code, err := qr.Encode(g.permalink(it), qr.M)
	if err != nil {
		return internalError(fmt.Errorf("qr code of %s: %w", id, err))
	}
	return g.send(c, reply{status: http.StatusOK, contentType: contentTypePNG, body: code.PNG(), maxAge: g.cfg.MaxAge.QR})
}

func (g *Gateway) openAPI(c *echo.Context) error {
	// The document never changes: its ETag and gzipped form are computed once.
	g.openAPIOnce.Do(func() { g.openAPIBody = newEncodedBody(g.cfg.OpenAPI) })
	return g.send(c, g.openAPIBody.reply(g.cfg.MaxAge.Categories))
}

type status struct {
	Status string `json:"status"`
}

func (g *Gateway) healthz(c *echo.Context) error {
	return g.sendStatus(c)
}

// readyz fails only when the search engine does not answer; a limiter problem never makes a
// replica unready, since the limiter falls back by itself.
func (g *Gateway) readyz(c *echo.Context) error {
	if g.draining.Load() {
		return &apiError{Status: http.StatusServiceUnavailable, Slug: slugUnavailable, Title: "Shutting down",
			Detail: "this replica is shutting down", RetryAfter: unavailableRetryAfter}
	}
	ctx, cancel := g.backendCtx(c)
	defer cancel()
	if err := g.backend.Ping(ctx); err != nil {
		ae := backendError(ctx, err)
		if ae.Status == http.StatusInternalServerError {
			// Whatever the engine's failure, for a probe it means "not ready".
			ae = &apiError{Status: http.StatusServiceUnavailable, Slug: slugUnavailable, Title: "Search engine unavailable",
				Detail: "the search engine does not answer", RetryAfter: unavailableRetryAfter, Cause: err}
		}
		return ae
	}
	return g.sendStatus(c)
}

func (g *Gateway) sendStatus(c *echo.Context) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeJSON(buf, status{Status: "ok"}); err != nil {
		return internalError(err)
	}
	// Compressible like every JSON body, so it carries Vary: Accept-Encoding; it is too small to
	// be gzipped at any sensible GzipMinSize.
	return g.send(c, reply{status: http.StatusOK, contentType: contentTypeJSON, body: buf.Bytes(), maxAge: noStore, compressible: true})
}

func (g *Gateway) sendJSON(c *echo.Context, v any, maxAge time.Duration) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeJSON(buf, v); err != nil {
		return internalError(fmt.Errorf("encode body: %w", err))
	}
	return g.send(c, reply{status: http.StatusOK, contentType: contentTypeJSON, body: buf.Bytes(), maxAge: maxAge, compressible: true})
}
