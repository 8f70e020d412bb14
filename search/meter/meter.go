// Package meter times the calls that reach the search engine and counts their failures, by
// operation and kind (search.Kind): a search.Backend in front of another, placed below the cache
// (search/cache) and above admission (search/admit), so that answers from memory are not engine
// time and a wait for an admission slot is. Each call's time is added to the request's
// search.EngineClock, the part of a request that is not the gateway's own.
package meter

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"mediagw/search"
)

// Operations, one per method of search.Backend and search.Extras, as the metrics label them.
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

// Failures as the metrics label them: what a client is answered, 503, 504 or 500.
const (
	failUnavailable = "unavailable"
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
	}
	return failOther
}

// Backend meters the calls of the backend it wraps. It is safe for concurrent use, and a
// prometheus.Collector of its calls.
type Backend struct {
	next search.Backend
	// extras is next, when it answers the search-box extras; nil otherwise.
	extras   search.Extras
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

// New wraps next.
func New(next search.Backend) *Backend {
	b := &Backend{
		next: next,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mediagw_backend_duration_seconds",
			Help:    "Time of one call that reached the search engine (an answer from the cache is none; a wait for admission is part of it), by operation, failures included.",
			Buckets: search.LatencyBuckets,
		}, []string{"op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_backend_errors_total",
			Help: "Failed search engine calls, by operation and kind (unavailable, timeout, other); a missing item, a bad cursor and a client that went away are not failures.",
		}, []string{"op", "kind"}),
	}
	b.extras, _ = next.(search.Extras)
	// Series that exist from the start make rate() and absent-alerts work before the first event.
	for _, op := range []string{opSearch, opItem, opCategories, opAuthors, opPing, opComplete, opRelated, opTotals} {
		b.duration.WithLabelValues(op)
		for _, f := range []string{failUnavailable, failTimeout, failOther} {
			b.errors.WithLabelValues(op, f)
		}
	}
	return b
}

// Unwrap returns the wrapped backend, for a caller that looks for what it can do besides the
// calls (search/cache asks it for its index version).
func (b *Backend) Unwrap() search.Backend { return b.next }

// metered makes call, timing it as op.
func metered[T any](ctx context.Context, b *Backend, op string, call func() (T, error)) (T, error) {
	start := time.Now()
	val, err := call()
	d := time.Since(start)
	b.duration.WithLabelValues(op).Observe(d.Seconds())
	search.EngineClockOf(ctx).Add(d)
	if f := failure(search.KindIn(ctx, err)); f != "" {
		b.errors.WithLabelValues(op, f).Inc()
	}
	return val, err
}

// Search is metered.
func (b *Backend) Search(ctx context.Context, q search.Query) (search.Result, error) {
	return metered(ctx, b, opSearch, func() (search.Result, error) { return b.next.Search(ctx, q) })
}

// Item is metered.
func (b *Backend) Item(ctx context.Context, id string) (search.Item, error) {
	return metered(ctx, b, opItem, func() (search.Item, error) { return b.next.Item(ctx, id) })
}

// Categories is metered.
func (b *Backend) Categories(ctx context.Context) ([]search.Category, error) {
	return metered(ctx, b, opCategories, func() ([]search.Category, error) { return b.next.Categories(ctx) })
}

// Authors is metered.
func (b *Backend) Authors(ctx context.Context) ([]search.Author, error) {
	return metered(ctx, b, opAuthors, func() ([]search.Author, error) { return b.next.Authors(ctx) })
}

// Ping is metered.
func (b *Backend) Ping(ctx context.Context) error {
	_, err := metered(ctx, b, opPing, func() (struct{}, error) { return struct{}{}, b.next.Ping(ctx) })
	return err
}

// errNoExtras is the answer to an extra the wrapped backend does not give.
var errNoExtras = errors.New("meter: the backend answers no search-box extras")

// Complete is metered.
func (b *Backend) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	if b.extras == nil {
		return nil, errNoExtras
	}
	return metered(ctx, b, opComplete, func() ([]search.Completion, error) { return b.extras.Complete(ctx, text, n) })
}

// Related is metered.
func (b *Backend) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	if b.extras == nil {
		return nil, errNoExtras
	}
	return metered(ctx, b, opRelated, func() ([]search.Item, error) { return b.extras.Related(ctx, id, n) })
}

// Totals is metered.
func (b *Backend) Totals(ctx context.Context, q search.Query, alts []search.Alternative, m search.Matches) ([]int, error) {
	if b.extras == nil {
		return nil, errNoExtras
	}
	return metered(ctx, b, opTotals, func() ([]int, error) { return b.extras.Totals(ctx, q, alts, m) })
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
	_ search.Extras        = (*Backend)(nil)
	_ prometheus.Collector = (*Backend)(nil)
)
