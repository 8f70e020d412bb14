// Package breaker wraps a search engine reached over the network in a circuit breaker
// (github.com/sony/gobreaker/v2), so that an engine that hangs or cannot be reached costs callers
// an immediate error instead of a deadline each: after Options.Failures engine failures in a row
// (search.ErrorKind.EngineFailed: timeouts, connection failures, 5xx) it opens, and every call fails at once
// with an *OpenError (a search.ErrUnavailable, carried as a *search.Error with its Retry-After)
// for Options.OpenFor; then one call at a time probes
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
	"mediagw/search/layer"
)

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

// Backend is a search engine's backend behind a circuit breaker: every call goes through it, the
// version checks and the listing of words included. It is safe for concurrent use.
type Backend struct {
	*layer.Backend[func(error)]
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

// New wraps next.
func New(next search.Backend, opts Options) *Backend {
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
		opts: opts,
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mediagw_breaker_rejected_total",
			Help: "Search engine calls the circuit breaker failed at once, without asking the engine.",
		}),
	}
	b.Backend = layer.Wrap(next, layer.Hook[func(error)](hook{b}))
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
	retry = max(retry, time.Second)
	return &search.Error{Kind: search.KindUnavailable, RetryAfter: retry, Err: &OpenError{Retry: retry}}
}

// hook lets each call through the breaker, or refuses it; readiness probes are among the calls,
// so readiness fails at once while the breaker is open, and probes the engine when it is half-open.
type hook struct{ b *Backend }

// Begin asks the breaker; what it returns reports the call's outcome.
func (h hook) Begin(context.Context, layer.Op) (func(error), error) {
	done, err := h.b.cb.Allow()
	if err != nil {
		return nil, h.b.refused()
	}
	return done, nil
}

// End reports the call's outcome to the breaker.
func (h hook) End(_ context.Context, _ layer.Op, done func(error), err error) { done(err) }

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
	_ search.Backend       = (*Backend)(nil)
	_ prometheus.Collector = (*Backend)(nil)
)
