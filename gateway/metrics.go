package gateway

import (
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"mediagw/params"
	"mediagw/search/telemetry"
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

var (
	metricResources = append(slices.Clone(params.Resources), resQR, resOpenAPI, resProblem, resDemo, resHealthz, resReadyz, resOther)
	// ownBuckets resolve the gateway's own time and the limiter's around the millisecond its aim
	// is (docs/performance.md), where percentiles read from the histogram need narrow buckets.
	ownBuckets = []float64{.00005, .0001, .0002, .0003, .0004, .0005, .00075, .001, .0015, .002, .003, .005,
		.0075, .01, .025, .05, .1, .25, .5, 1}
)

// metrics are the gateway's Prometheus series. Rate-limit decisions are counted here per policy,
// since the gateway chooses it; fallbacks are not: ratelimit.Fallback counts those where they
// happen. Nor are the engine calls: search/meter counts those below the cache.
type metrics struct {
	requests        *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	notModified     *prometheus.CounterVec
	inFlight        prometheus.Gauge
	own             *prometheus.HistogramVec
	limiterDuration prometheus.Histogram
	speculated      *prometheus.CounterVec
	// policyDecisions' policy label is a name of the operator's policies file, or "default".
	policyDecisions *prometheus.CounterVec
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
			Buckets: telemetry.LatencyBuckets,
		}, []string{"resource"}),
		notModified: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_http_not_modified_total",
			Help: "Requests answered 304 Not Modified because the client's cached copy was current, by resource.",
		}, []string{"resource"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mediagw_http_requests_in_flight",
			Help: "HTTP requests being served now.",
		}),
		own: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mediagw_gateway_own_seconds",
			Help:    "The gateway's own time per request, by resource: its duration less the time it waited on calls that reached the search engine (mediagw_backend_duration_seconds); an answer from the cache is the gateway's own time.",
			Buckets: ownBuckets,
		}, []string{"resource"}),
		limiterDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mediagw_ratelimit_duration_seconds",
			Help:    "Time of one rate-limit decision (part of the gateway's own time, unless the request was speculated: decided while its handler ran).",
			Buckets: ownBuckets,
		}),
		speculated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_ratelimit_speculated_total",
			Help: "Requests whose handler ran while the rate limit decided, by decision: allowed, limited (the answer thrown away for a 429) or failed (let through).",
		}, []string{"result"}),
		policyDecisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_ratelimit_policy_decisions_total",
			Help: "Rate-limit decisions by the policy they were made under (a name of the policies file, or default) and result: allowed or limited.",
		}, []string{"policy", "result"}),
	}
	// Series that exist from the start make rate() and absent-alerts work before the first event.
	for _, r := range []string{params.ResourceItems, params.ResourceItem, params.ResourceCategories, params.ResourceAuthors, resQR, resOpenAPI} {
		m.notModified.WithLabelValues(r)
	}
	for _, r := range []string{"allowed", "limited", "failed"} {
		m.speculated.WithLabelValues(r)
	}
	return m
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.duration.Describe(ch)
	m.notModified.Describe(ch)
	m.inFlight.Describe(ch)
	m.own.Describe(ch)
	m.limiterDuration.Describe(ch)
	m.speculated.Describe(ch)
	m.policyDecisions.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.duration.Collect(ch)
	m.notModified.Collect(ch)
	m.inFlight.Collect(ch)
	m.own.Collect(ch)
	m.limiterDuration.Collect(ch)
	m.speculated.Collect(ch)
	m.policyDecisions.Collect(ch)
}

// observeRequest records one finished request: how long it took, and how much of that it waited
// on calls that reached the engine (telemetry.EngineClock).
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

var _ prometheus.Collector = (*metrics)(nil)
