// Package meter times the calls that reach the search engine and counts their failures, by
// operation and kind (search.Kind): a search.Backend in front of another, placed below the cache
// (search/cache) and above admission (search/admit), so that answers from memory are not engine
// time and a wait for an admission slot is. Each call's time is added to the request's
// telemetry.EngineClock, the part of a request that is not the gateway's own.
package meter

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"mediagw/search"
	"mediagw/search/layer"
	"mediagw/search/telemetry"
)

// metered are the operations timed, as the metrics label them: the calls a request waits on.
var metered = []layer.Op{layer.Search, layer.Item, layer.Categories, layer.Authors, layer.Ping, layer.Complete, layer.Related, layer.Totals}

// Failures as the metrics label them: what a client is answered, 503, 504, 422 or 500.
const (
	failUnavailable = "unavailable"
	failRefused     = "refused"
	failNoIndex     = "no_index"
	failTimeout     = "timeout"
	failOther       = "other"
)

// failure is the label of a call's error of kind k, or "" when it is no failure of the engine's
// call: an answer to the question (not found, a bad cursor) or a caller that went away.
func failure(k search.ErrorKind) string {
	switch k {
	case search.KindNone, search.KindNotFound, search.KindCursorInvalid, search.KindCursorExpired, search.KindCanceled:
		return ""
	case search.KindTimeout:
		return failTimeout
	case search.KindUnavailable, search.KindOverloaded:
		return failUnavailable
	case search.KindNoIndex:
		return failNoIndex
	case search.KindRefused:
		return failRefused
	}
	return failOther
}

// Backend meters the calls of the backend it wraps. It is safe for concurrent use, and a
// prometheus.Collector of its calls.
type Backend struct {
	*layer.Backend[time.Time]
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
	// timed holds, by op, whether it is metered.
	timed [layer.Version + 1]bool
}

// New wraps next.
func New(next search.Backend) *Backend {
	b := &Backend{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mediagw_backend_duration_seconds",
			Help:    "Time of one call that reached the search engine (an answer from the cache is none; a wait for admission is part of it), by operation, failures included.",
			Buckets: telemetry.LatencyBuckets,
		}, []string{"op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_backend_errors_total",
			Help: "Failed search engine calls, by operation and kind (unavailable, no_index: the engine answers but holds no index under the configured name, timeout, refused: the engine refused the query itself, the question's fault and no engine failure, other); a missing item, a bad cursor and a client that went away are not failures.",
		}, []string{"op", "kind"}),
	}
	b.Backend = layer.Wrap(next, layer.Hook[time.Time](hook{b}))
	// Series that exist from the start make rate() and absent-alerts work before the first event.
	for _, op := range metered {
		b.timed[op] = true
		b.duration.WithLabelValues(op.String())
		for _, f := range []string{failUnavailable, failNoIndex, failTimeout, failRefused, failOther} {
			b.errors.WithLabelValues(op.String(), f)
		}
	}
	return b
}

// hook times each metered call.
type hook struct{ b *Backend }

// Begin notes when the call starts.
func (h hook) Begin(context.Context, layer.Op) (time.Time, error) { return time.Now(), nil }

// End records a metered call's time and failure, and adds its time to the request's engine clock.
// The index's words and version, asked in the background, are no request's time.
func (h hook) End(ctx context.Context, op layer.Op, start time.Time, err error) {
	if !h.b.timed[op] {
		return
	}
	d := time.Since(start)
	h.b.duration.WithLabelValues(op.String()).Observe(d.Seconds())
	telemetry.EngineClockOf(ctx).Add(d)
	if f := failure(search.KindIn(ctx, err)); f != "" {
		h.b.errors.WithLabelValues(op.String(), f).Inc()
	}
}

// Describe implements prometheus.Collector.
func (b *Backend) Describe(ch chan<- *prometheus.Desc) {
	b.duration.Describe(ch)
	b.errors.Describe(ch)
}

// Collect implements prometheus.Collector.
func (b *Backend) Collect(ch chan<- prometheus.Metric) {
	b.duration.Collect(ch)
	b.errors.Collect(ch)
}

var (
	_ search.Backend       = (*Backend)(nil)
	_ prometheus.Collector = (*Backend)(nil)
)
