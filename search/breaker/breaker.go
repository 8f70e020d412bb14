// Package breaker wraps a search engine reached over the network in a circuit breaker
// (github.com/sony/gobreaker/v2), so that an engine that hangs or cannot be reached costs callers
// an immediate error instead of a deadline each: after Options.Failures engine failures in a row
// (search.ErrorKind.EngineFailed: timeouts, connection failures, 5xx) it opens, and every call fails at once
// with an *OpenError (a search.ErrUnavailable) for Options.OpenFor; then one call at a time probes
// the engine (half-open), and the first that gets an answer closes it. The question's errors (not
// found, a bad cursor, a query the engine refuses) are answers: they never count as failures.
package breaker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"
	"go.uber.org/zap"

	"mediagw/search"
)

// Engine is what the breaker wraps: a backend with the extras, a version it asks its engine for
// and the words its index holds (search/spell), such as search/engine. Every call goes through
// the breaker, the version check included.
type Engine interface {
	search.Backend
	search.Extras
	Version(ctx context.Context) (string, error)
	Words(ctx context.Context) ([]string, error)
}

// Options tune a Backend. Zero values take the defaults.
type Options struct {
	// Failures is how many engine failures in a row open the breaker (default DefaultFailures).
	Failures int
	// OpenFor is how long it stays open before a call probes the engine (default DefaultOpenFor).
	OpenFor time.Duration
	// Log receives one line per change of state (default none).
	Log *zap.Logger
}

// The defaults, and the configuration's (MEDIA_BREAKER_FAILURES, MEDIA_BREAKER_OPEN): five
// failures in a row are no passing hiccup, and five seconds let an engine restart or a node
// rejoin while costing visitors without a stale answer no more than a few seconds of 503.
const (
	DefaultFailures = 5
	DefaultOpenFor  = 5 * time.Second
)

// Backend is an Engine behind a circuit breaker. It is safe for concurrent use.
type Backend struct {
	next Engine
	opts Options
	cb   *gobreaker.TwoStepCircuitBreaker[struct{}]

	state    prometheus.GaugeFunc
	rejected prometheus.Counter

	mu sync.Mutex
	// openedAt is when the breaker last opened; downSince when it first opened after being closed.
	openedAt, downSince time.Time
}

// OpenError is the error of a call the open breaker refused without asking the engine.
type OpenError struct {
	// Retry is how long until the breaker lets a call probe the engine.
	Retry time.Duration
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("search engine failing: circuit breaker open, next probe in %v", e.Retry.Round(time.Millisecond))
}

// Unwrap makes the error a search.ErrUnavailable.
func (e *OpenError) Unwrap() error { return search.ErrUnavailable }

// RetryAfter is how long a client should wait before asking again.
func (e *OpenError) RetryAfter() time.Duration { return e.Retry }

// New wraps next.
func New(next Engine, opts Options) *Backend {
	if opts.Failures <= 0 {
		opts.Failures = DefaultFailures
	}
	if opts.OpenFor <= 0 {
		opts.OpenFor = DefaultOpenFor
	}
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	b := &Backend{
		next: next,
		opts: opts,
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mediagw_breaker_rejected_total",
			Help: "Search engine calls the circuit breaker failed at once, without asking the engine.",
		}),
	}
	b.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:    "search engine",
		Timeout: opts.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.ConsecutiveFailures >= uint32(opts.Failures)
		},
		IsSuccessful:  func(err error) bool { return !search.Kind(err).EngineFailed() },
		IsExcluded:    func(err error) bool { return search.Kind(err) == search.KindCanceled },
		OnStateChange: b.changed,
	})
	// Read when scraped: an open breaker turns half-open when asked for its state, not by a timer.
	b.state = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mediagw_breaker_state",
		Help: "State of the search engine's circuit breaker: 0 closed (calls reach the engine), 1 half-open (one call probes it), 2 open (calls fail at once).",
	}, func() float64 { return float64(b.cb.State()) })
	return b
}

// changed logs a change of state. gobreaker calls it under its own lock, once per change.
func (b *Backend) changed(_ string, from, to gobreaker.State) {
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case to == gobreaker.StateOpen && from == gobreaker.StateClosed:
		b.openedAt, b.downSince = now, now
		b.opts.Log.Warn("search engine failing: circuit breaker open, calls fail at once",
			zap.Int("consecutive_failures", b.opts.Failures), zap.Duration("probe_in", b.opts.OpenFor))
	case to == gobreaker.StateOpen:
		b.openedAt = now
		b.opts.Log.Info("search engine probe failed: circuit breaker open again", zap.Duration("probe_in", b.opts.OpenFor),
			zap.Duration("down_for", now.Sub(b.downSince)))
	case to == gobreaker.StateHalfOpen:
		b.opts.Log.Info("circuit breaker half-open: probing the search engine", zap.Duration("down_for", now.Sub(b.downSince)))
	case to == gobreaker.StateClosed:
		b.opts.Log.Info("search engine answers again: circuit breaker closed", zap.Duration("down_for", now.Sub(b.downSince)))
	}
}

// refused is the error of a call the breaker did not let through.
func (b *Backend) refused() error {
	b.rejected.Inc()
	b.mu.Lock()
	retry := time.Until(b.openedAt.Add(b.opts.OpenFor))
	b.mu.Unlock()
	// Half-open with the probe out: the probe's answer decides, soon.
	return &OpenError{Retry: max(retry, time.Second)}
}

// call runs f through the breaker.
func call[T any](b *Backend, f func() (T, error)) (T, error) {
	done, err := b.cb.Allow()
	if err != nil {
		var zero T
		return zero, b.refused()
	}
	v, err := f()
	done(err)
	return v, err
}

// Search asks the engine unless the breaker is open.
func (b *Backend) Search(ctx context.Context, q search.Query) (search.Result, error) {
	return call(b, func() (search.Result, error) { return b.next.Search(ctx, q) })
}

// Item asks the engine unless the breaker is open.
func (b *Backend) Item(ctx context.Context, id string) (search.Item, error) {
	return call(b, func() (search.Item, error) { return b.next.Item(ctx, id) })
}

// Categories asks the engine unless the breaker is open.
func (b *Backend) Categories(ctx context.Context) ([]search.Category, error) {
	return call(b, func() ([]search.Category, error) { return b.next.Categories(ctx) })
}

// Authors asks the engine unless the breaker is open.
func (b *Backend) Authors(ctx context.Context) ([]search.Author, error) {
	return call(b, func() ([]search.Author, error) { return b.next.Authors(ctx) })
}

// Complete asks the engine unless the breaker is open.
func (b *Backend) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	return call(b, func() ([]search.Completion, error) { return b.next.Complete(ctx, text, n) })
}

// Related asks the engine unless the breaker is open.
func (b *Backend) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	return call(b, func() ([]search.Item, error) { return b.next.Related(ctx, id, n) })
}

// Totals asks the engine unless the breaker is open.
func (b *Backend) Totals(ctx context.Context, q search.Query, alts []search.Alternative, m search.Matches) ([]int, error) {
	return call(b, func() ([]int, error) { return b.next.Totals(ctx, q, alts, m) })
}

// Words asks the engine unless the breaker is open.
func (b *Backend) Words(ctx context.Context) ([]string, error) {
	return call(b, func() ([]string, error) { return b.next.Words(ctx) })
}

// Version asks the engine unless the breaker is open.
func (b *Backend) Version(ctx context.Context) (string, error) {
	return call(b, func() (string, error) { return b.next.Version(ctx) })
}

// Ping asks the engine unless the breaker is open, so readiness fails at once while it is, and
// readiness probes are among the calls that probe the engine when it is half-open.
func (b *Backend) Ping(ctx context.Context) error {
	_, err := call(b, func() (struct{}, error) { return struct{}{}, b.next.Ping(ctx) })
	return err
}

// Describe implements prometheus.Collector.
func (b *Backend) Describe(ch chan<- *prometheus.Desc) {
	b.state.Describe(ch)
	b.rejected.Describe(ch)
}

// Collect implements prometheus.Collector.
func (b *Backend) Collect(ch chan<- prometheus.Metric) {
	b.state.Collect(ch)
	b.rejected.Collect(ch)
}

var (
	_ Engine               = (*Backend)(nil)
	_ prometheus.Collector = (*Backend)(nil)
)
