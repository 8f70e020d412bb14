package gateway

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"mediagw/search"
)

// Resource labels besides the base path's resources. Anything else (a bad resource parameter, an
// unknown path) is counted as "other", so no client can grow the set of series.
const (
	resQR      = "qr"
	resOpenAPI = "openapi"
	resProblem = "problem"
	resDemo    = "demo"
	resHealthz = "healthz"
	resReadyz  = "readyz"
	resOther   = "other"
)

// Backend operations, one per method of search.Backend and search.Extras.
const (
	opSearch     = "search"
	opItem       = "item"
	opCategories = "categories"
	opAuthors    = "authors"
	opPing       = "ping"
	opComplete   = "complete"
	opRelated    = "related"
	opTotals     = "totals"
)

// Kinds of backend failure, as clients see them: 503, 504, 500.
const (
	kindUnavailable = "unavailable"
	kindTimeout     = "timeout"
	kindOther       = "other"
)

var (
	metricResources = append(slices.Clone(resources), resQR, resOpenAPI, resProblem, resDemo, resHealthz, resReadyz, resOther)
	backendOps      = []string{opSearch, opItem, opCategories, opAuthors, opPing, opComplete, opRelated, opTotals}
	errorKinds      = []string{kindUnavailable, kindTimeout, kindOther}
	// latencyBuckets reach down to a millisecond, where the embedded index answers, and up to the
	// longest backend timeout worth configuring.
	latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	// ownBuckets resolve the gateway's own time and the limiter's around the millisecond its aim
	// is (issue 15), where percentiles read from the histogram need narrow buckets.
	ownBuckets = []float64{.00005, .0001, .0002, .0003, .0004, .0005, .00075, .001, .0015, .002, .003, .005,
		.0075, .01, .025, .05, .1, .25, .5, 1}
)

// metrics are the gateway's Prometheus series. Rate-limit decisions and fallbacks are not among
// them: ratelimit.Fallback counts those where they are decided, and a 429 shows here as a status.
type metrics struct {
	requests        *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	notModified     *prometheus.CounterVec
	inFlight        prometheus.Gauge
	backendDuration *prometheus.HistogramVec
	backendErrors   *prometheus.CounterVec
	own             *prometheus.HistogramVec
	limiterDuration prometheus.Histogram
}

func newMetrics() *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_http_requests_total",
			Help: "HTTP requests answered, by resource and status code (499: the client went away).",
		}, []string{"resource", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mediagw_http_request_duration_seconds",
			Help:    "Time from receiving a request to finishing its response, by resource.",
			Buckets: latencyBuckets,
		}, []string{"resource"}),
		notModified: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_http_not_modified_total",
			Help: "Requests answered 304 Not Modified because the client's cached copy was current, by resource.",
		}, []string{"resource"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mediagw_http_requests_in_flight",
			Help: "HTTP requests being served now.",
		}),
		backendDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mediagw_backend_duration_seconds",
			Help:    "Time of one search engine call, by operation, failures included.",
			Buckets: latencyBuckets,
		}, []string{"op"}),
		backendErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_backend_errors_total",
			Help: "Failed search engine calls, by operation and kind (unavailable, timeout, other); a missing item and a client that went away are not failures.",
		}, []string{"op", "kind"}),
		own: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mediagw_gateway_own_seconds",
			Help:    "The gateway's own time per request, by resource: its duration less the time of its search engine calls (mediagw_backend_duration_seconds).",
			Buckets: ownBuckets,
		}, []string{"resource"}),
		limiterDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mediagw_ratelimit_duration_seconds",
			Help:    "Time of one rate-limit decision as the gateway waits for it (part of the gateway's own time).",
			Buckets: ownBuckets,
		}),
	}
	// Series that exist from the start make rate() and absent-alerts work before the first event.
	for _, op := range backendOps {
		m.backendDuration.WithLabelValues(op)
		for _, k := range errorKinds {
			m.backendErrors.WithLabelValues(op, k)
		}
	}
	for _, r := range []string{resItems, resItem, resCategories, resAuthors, resQR, resOpenAPI} {
		m.notModified.WithLabelValues(r)
	}
	return m
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.duration.Describe(ch)
	m.notModified.Describe(ch)
	m.inFlight.Describe(ch)
	m.backendDuration.Describe(ch)
	m.backendErrors.Describe(ch)
	m.own.Describe(ch)
	m.limiterDuration.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.duration.Collect(ch)
	m.notModified.Collect(ch)
	m.inFlight.Collect(ch)
	m.backendDuration.Collect(ch)
	m.backendErrors.Collect(ch)
	m.own.Collect(ch)
	m.limiterDuration.Collect(ch)
}

// observeRequest records one finished request: how long it took, and how much of that the engine's
// calls took.
func (m *metrics) observeRequest(resource string, status int, latency, engine time.Duration) {
	if !slices.Contains(metricResources, resource) {
		resource = resOther
	}
	m.requests.WithLabelValues(resource, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(resource).Observe(latency.Seconds())
	// Calls made side by side could add up to more than the request's time.
	m.own.WithLabelValues(resource).Observe(max(latency-engine, 0).Seconds())
	if status == 304 {
		m.notModified.WithLabelValues(resource).Inc()
	}
}

// meteredBackend times every call of the backend it wraps and counts its failures.
type meteredBackend struct {
	next search.Backend
	m    *metrics
}

func (b meteredBackend) observe(ctx context.Context, op string, start time.Time, err error) {
	d := time.Since(start)
	b.m.backendDuration.WithLabelValues(op).Observe(d.Seconds())
	if clock, ok := ctx.Value(engineClockKey{}).(*atomic.Int64); ok {
		clock.Add(int64(d))
	}
	if kind := errorKind(ctx, err); kind != "" {
		b.m.backendErrors.WithLabelValues(op, kind).Inc()
	}
}

// engineClockKey keys the request's sum of engine time (requestState.engine) in the contexts its
// engine calls get, so meteredBackend can add to it.
type engineClockKey struct{}

// errorKind classifies a backend error as the gateway's error mapping does (backendError), or
// returns "" when err is no fault of the engine.
func errorKind(ctx context.Context, err error) string {
	switch {
	case err == nil || errors.Is(err, search.ErrNotFound):
		return ""
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return kindTimeout
	case errors.Is(err, context.Canceled):
		return ""
	case errors.Is(err, search.ErrUnavailable), errors.Is(err, search.ErrOverloaded):
		return kindUnavailable
	}
	return kindOther
}

func (b meteredBackend) Search(ctx context.Context, q search.Query) (search.Result, error) {
	start := time.Now()
	res, err := b.next.Search(ctx, q)
	b.observe(ctx, opSearch, start, err)
	return res, err
}

func (b meteredBackend) Item(ctx context.Context, id string) (search.Item, error) {
	start := time.Now()
	it, err := b.next.Item(ctx, id)
	b.observe(ctx, opItem, start, err)
	return it, err
}

func (b meteredBackend) Categories(ctx context.Context) ([]search.Category, error) {
	start := time.Now()
	cs, err := b.next.Categories(ctx)
	b.observe(ctx, opCategories, start, err)
	return cs, err
}

func (b meteredBackend) Authors(ctx context.Context) ([]search.Author, error) {
	start := time.Now()
	as, err := b.next.Authors(ctx)
	b.observe(ctx, opAuthors, start, err)
	return as, err
}

func (b meteredBackend) Ping(ctx context.Context) error {
	start := time.Now()
	err := b.next.Ping(ctx)
	b.observe(ctx, opPing, start, err)
	return err
}

var (
	_ search.Backend       = meteredBackend{}
	_ prometheus.Collector = (*metrics)(nil)
)
