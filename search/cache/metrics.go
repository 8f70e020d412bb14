package cache

import "github.com/prometheus/client_golang/prometheus"

// What the cache answered a question with, as the metrics label it: each question counts once.
const (
	resultHit    = "hit"
	resultMiss   = "miss"
	resultShared = "shared"
	resultStale  = "stale"
	resultError  = "error"
)

type metrics struct {
	requests *prometheus.CounterVec
	entries  prometheus.GaugeFunc
	bytes    prometheus.GaugeFunc
}

func newMetrics(c *lru) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_cache_requests_total",
			Help: "Questions to the cache, by operation and what the cache answered, once each: hit (from memory), miss (the answer of an engine call it made for this question), shared (the answer of an engine call made for another caller's same question), stale (the engine failed and an answer past its freshness stood in), error (no answer: the engine failed with no stale answer to stand in, or the caller went away).",
		}, []string{"op", "result"}),
		entries: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mediagw_cache_entries",
			Help: "Search and item answers held by the cache.",
		}, func() float64 { n, _ := c.stats(); return float64(n) }),
		bytes: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mediagw_cache_bytes",
			Help: "Estimated memory of the search and item answers held by the cache.",
		}, func() float64 { _, n := c.stats(); return float64(n) }),
	}
	// Series that exist from the start make rate() work before the first event.
	for _, op := range []string{opSearch, opItem, opCategories, opAuthors, opComplete, opRelated, opTotals} {
		for _, r := range []string{resultHit, resultMiss, resultShared, resultStale, resultError} {
			m.requests.WithLabelValues(op, r)
		}
	}
	return m
}

func (m *metrics) count(op, result string) { m.requests.WithLabelValues(op, result).Inc() }

// Describe implements prometheus.Collector.
func (b *Backend) Describe(ch chan<- *prometheus.Desc) {
	b.metrics.requests.Describe(ch)
	b.metrics.entries.Describe(ch)
	b.metrics.bytes.Describe(ch)
}

// Collect implements prometheus.Collector.
func (b *Backend) Collect(ch chan<- prometheus.Metric) {
	b.metrics.requests.Collect(ch)
	b.metrics.entries.Collect(ch)
	b.metrics.bytes.Collect(ch)
}

var _ prometheus.Collector = (*Backend)(nil)
