package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"go.uber.org/zap"

	"mediagw/params"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/telemetry"
)

// Gateway is the API's HTTP handler.
type Gateway struct {
	e       *echo.Echo
	cfg     Config
	backend search.Backend
	// corrector is the backend's did-you-mean (search/chain's top); nil when it offers none.
	corrector Corrector
	// detailer says what /readyz adds of the backend's state; nil when it says nothing.
	detailer Detailer
	// lists are the whole lists the backend keeps; nil when it keeps none.
	lists   ListKeeper
	limiter ratelimit.Decider
	// inspector is limiter, when it can inspect; nil otherwise.
	inspector ratelimit.Inspector
	// speculator is limiter, when its decisions leave the process and it can tell which requests
	// may run before theirs (speculate.go); nil otherwise.
	speculator ratelimit.Speculator
	// held is the bytes held by speculated answers now (heldResponse).
	held atomic.Int64
	log  *zap.Logger
	// baseURL is PublicURL plus BasePath, ending in "/": the prefix of every link.
	baseURL string
	// visitorSecret keys the visitor hash in log lines, so a log never holds an address and the
	// hash means nothing outside this process.
	visitorSecret []byte
	// policies are the rate-limit policies in force, the default's and the networks'.
	policies *policyTables
	// metrics is nil when the config asked for none.
	metrics  *metrics
	draining atomic.Bool
	// ready is the last readiness check (health.go).
	ready readiness
	// sampler thins the log lines of failed requests (logcap.go).
	sampler *errorSampler

	// The encoded list bodies, kept from their first request.
	categoryBodies listBodies[search.Category]
	authorBodies   listBodies[search.Author]
	// openAPIBody is the served OpenAPI document, made at start; nil when none is served.
	openAPIBody *encodedBody
	// demo holds the search page's files, by path; nil when none is served.
	demo map[string]demoFile
	// demoCSP is the search page's Content-Security-Policy, naming the API origins it may call.
	demoCSP string
}

// apiResource is one resource of the base path: its resource parameter and its handler, which
// gets the decoded query string.
type apiResource struct {
	name  string
	serve func(g *Gateway, c *echo.Context, rq params.Raw) error
}

// apiResources are the base path's resources, in the order a 400 lists them: a new resource is
// one entry here and its handler.
var apiResources = []apiResource{
	{params.ResourceItems, (*Gateway).items},
	{params.ResourceItem, (*Gateway).item},
	{params.ResourceCategories, (*Gateway).categories},
	{params.ResourceAuthors, (*Gateway).authors},
	{params.ResourceSuggest, (*Gateway).suggest},
	{params.ResourceRelated, (*Gateway).related},
}

// New returns the API's HTTP handler. The limiter counts every API request (not OPTIONS,
// health, readiness, the OpenAPI document or a 405); on an error the request is let through.
// When it is also a ratelimit.Inspector, every other response says where the visitor stands
// without counting (on an error, without the rate-limit headers); without one, those responses
// carry no rate-limit headers. logger receives one line per request.
func New(cfg Config, backend search.Backend, limiter ratelimit.Decider, logger *zap.Logger) (*Gateway, error) {
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
		sampler:       newErrorSampler(time.Now),
	}
	g.inspector, _ = limiter.(ratelimit.Inspector)
	if sp, ok := limiter.(ratelimit.Speculator); ok && sp.Remote() {
		g.speculator = sp
	}
	g.corrector, _ = backend.(Corrector)
	g.detailer, _ = backend.(Detailer)
	if k, ok := backend.(ListKeeper); ok && k.KeepsLists() {
		g.lists = k
	}
	if len(cfg.OpenAPI) > 0 {
		doc, err := servedOpenAPI(cfg)
		if err != nil {
			return nil, err
		}
		g.openAPIBody = newEncodedBody(doc)
	}
	if cfg.Demo != nil {
		var err error
		if g.demo, err = loadDemo(cfg.Demo, cfg.DemoAPIs); err != nil {
			return nil, err
		}
		g.demoCSP = demoCSP(cfg.DemoAPIs)
	}
	if cfg.Metrics != nil {
		g.metrics = newMetrics()
		if err := cfg.Metrics.Register(g.metrics); err != nil {
			return nil, fmt.Errorf("gateway: register metrics: %w", err)
		}
	}
	g.policies = newPolicyTables(cfg.Policies, cfg.RatePolicy, g.metrics)

	e := echo.New()
	g.e = e
	// Echo logs only misuse such as double writes, which send rules out; our own log is zap.
	e.Logger = slog.New(slog.DiscardHandler)
	e.HTTPErrorHandler = g.handleError
	e.Use(g.observe, refuseBodies)

	// Each route names its resource before the limiter runs, so a 429 is logged and counted under it.
	base := cfg.BasePath
	e.Any(base, g.methods(g.api), tagAPI, g.limit)
	if base != "/" {
		e.Any(strings.TrimSuffix(base, "/"), g.methods(g.api), tagAPI, g.limit)
	}
	e.Any(base+"qr/:file", g.methods(g.qrCode), tag(resQR), g.limit)
	if g.openAPIBody != nil {
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
			state(c).resource = resource
			return next(c)
		}
	}
}

// tagAPI names the base path's resource when the resource parameter is valid; a bad one is api's
// to report. It keeps the decoded query for api.
func tagAPI(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		st := state(c)
		st.query = params.Split(c.Request().URL.RawQuery)
		st.apiResource, st.resourceErrs = params.ParseResource(st.query)
		if st.resourceErrs == nil {
			st.resource = st.apiResource
		}
		return next(c)
	}
}

// api serves the base path: the resource parameter picks the handler.
func (g *Gateway) api(c *echo.Context) error {
	// api runs behind tagAPI, which decoded the query and read its resource.
	st := state(c)
	rq, res := st.query, st.apiResource
	if rq.Oversized() {
		// Refused only here, behind the limiter, so it counts like any other bad request.
		return queryTooLong()
	}
	if st.resourceErrs != nil {
		return invalidParams(st.resourceErrs)
	}
	// parseResource accepts only the names of apiResources.
	i := slices.IndexFunc(apiResources, func(r apiResource) bool { return r.name == res })
	return apiResources[i].serve(g, c, rq)
}

// backendCtx bounds one call to the search engine.
func (g *Gateway) backendCtx(c *echo.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request().Context(), g.cfg.RequestTimeout)
}

// answerCtx bounds the call to the search engine whose answer the response carries, and notes
// where that answer comes from (memory, the engine, a stale copy) for Cache-Status.
func (g *Gateway) answerCtx(c *echo.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := g.backendCtx(c)
	ctx, state(c).origin = telemetry.WithOrigin(ctx)
	return ctx, cancel
}
