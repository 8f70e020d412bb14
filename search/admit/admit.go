// Package admit bounds the engine work in progress: a search.Backend in front of another that
// lets at most Options.Limit calls run at once, makes up to Options.Queue more wait up to
// Options.Wait for a slot, first come first served, and refuses the rest at once with an
// *OverloadedError (search.ErrOverloaded). Work beyond what the machine can do only makes every
// answer later and the process bigger (docs/performance.md), where a bound answers the admitted
// ones in their own time and the others at once. No one visitor (search.VisitorOf) fills the slots: past its share, or once it
// has kept the engine busy lately, its calls run only while half the slots stay free (share.go).
//
// It sits below the cache (search/cache): answers from memory are never refused, and a call
// several visitors share takes one slot. Ping, Item, the words and the version checks pass unadmitted: a
// readiness probe never waits behind searches, and an item is one lookup by id, cheaper than the
// admission itself.
package admit

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"

	"mediagw/search"
	"mediagw/search/layer"
)

// Options tune a Backend. Zero values take the defaults.
type Options struct {
	// Limit is how many calls may run at once (default GOMAXPROCS).
	Limit int
	// Wait is how long a call beyond Limit waits for a slot before it is refused (default
	// DefaultWait, MEDIA_ADMIT_WAIT's too): long enough to ride out a burst of short calls, short
	// enough that a refusal comes well within the 50 ms a client should wait for one, which on
	// busy CPUs takes more than the wait itself.
	Wait time.Duration
	// Queue is how many calls may wait for a slot (default 4 x Limit); the next are refused
	// without waiting. More waiters could not all get a slot within Wait, and each would only
	// take longer to be refused, on CPUs the running calls need.
	Queue int
	// RetryAfter is what a refusal asks the client to wait (default 1s): work in progress ends
	// within a backend deadline, most of it far sooner.
	RetryAfter time.Duration
}

// DefaultWait is Options.Wait's default.
const DefaultWait = 10 * time.Millisecond

func (o Options) withDefaults() Options {
	if o.Limit <= 0 {
		o.Limit = runtime.GOMAXPROCS(0)
	}
	if o.Queue <= 0 {
		o.Queue = 4 * o.Limit
	}
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Second
	}
	return o
}

// OverloadedError is the error of a call refused because Limit calls were in progress: for all
// of Wait, or with Queue others already waiting. It is a search.ErrOverloaded.
type OverloadedError struct {
	Limit int
	// Waited is how long the call waited for a slot: 0 when the queue was full.
	Waited time.Duration
	// Retry is how long the client should wait before asking again.
	Retry time.Duration
}

func (e *OverloadedError) Error() string {
	if e.Waited == 0 {
		return fmt.Sprintf("%d engine calls in progress and the queue for a slot full", e.Limit)
	}
	return fmt.Sprintf("%d engine calls in progress, none ended within %v", e.Limit, e.Waited)
}

// Unwrap makes the error a search.ErrOverloaded.
func (e *OverloadedError) Unwrap() error { return search.ErrOverloaded }

// RetryAfter is how long a client should wait before asking again.
func (e *OverloadedError) RetryAfter() time.Duration { return e.Retry }

// How a call was admitted, as the metrics label it.
const (
	resultAdmitted = "admitted"
	resultQueued   = "queued"
	resultRefused  = "refused"
)

// Backend admits the calls of the backend it wraps. It is safe for concurrent use, and a
// prometheus.Collector of its admissions.
type Backend struct {
	*layer.Backend[release]
	opts   Options
	sem    *semaphore.Weighted
	shares *shares
	// waiting counts the calls waiting for a slot.
	waiting atomic.Int64

	admissions *prometheus.CounterVec
	inFlight   prometheus.Gauge
	limit      prometheus.Gauge
}

// New wraps next.
func New(next search.Backend, opts Options) *Backend {
	opts = opts.withDefaults()
	b := &Backend{
		opts: opts,
		sem:  semaphore.NewWeighted(int64(opts.Limit)),
		// No one visitor fills the slots (share.go).
		shares: newShares(opts.Limit),
		admissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_admission_total",
			Help: "Engine calls by how they were admitted: admitted (a slot was free), queued (waited for one), refused (none came free in time, or too many waited already: 503).",
		}, []string{"result"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mediagw_admission_in_flight",
			Help: "Engine calls running now, admitted.",
		}),
		limit: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mediagw_admission_limit",
			Help: "How many engine calls may run at once (MEDIA_MAX_INFLIGHT).",
		}),
	}
	b.Backend = layer.Wrap(next, layer.Hook[release](hook{b}))
	b.limit.Set(float64(opts.Limit))
	for _, r := range []string{resultAdmitted, resultQueued, resultRefused} {
		b.admissions.WithLabelValues(r)
	}
	return b
}

// unadmitted are the calls that pass without a slot: a readiness probe never waits behind
// searches, an item is one lookup by id, cheaper than the admission itself, and the index's words
// and version are asked in the background.
var unadmitted = [layer.Version + 1]bool{layer.Item: true, layer.Ping: true, layer.Words: true, layer.Version: true}

// hook admits each call that needs a slot.
type hook struct{ b *Backend }

// release gives an admitted call's slot back.
type release func()

// Begin takes a slot for the call within its visitor's share, or refuses it.
func (h hook) Begin(ctx context.Context, op layer.Op) (release, error) {
	if unadmitted[op] {
		return nil, nil
	}
	return h.b.admit(ctx)
}

// End gives the call's slot back.
func (h hook) End(_ context.Context, _ layer.Op, r release, _ error) {
	if r != nil {
		r()
	}
}

// acquire takes a slot, waiting up to Wait for one; the caller must release it.
func (b *Backend) acquire(ctx context.Context) error {
	if b.sem.TryAcquire(1) {
		b.admissions.WithLabelValues(resultAdmitted).Inc()
		b.inFlight.Inc()
		return nil
	}
	defer b.waiting.Add(-1)
	if b.waiting.Add(1) > int64(b.opts.Queue) {
		b.admissions.WithLabelValues(resultRefused).Inc()
		return &OverloadedError{Limit: b.opts.Limit, Retry: b.opts.RetryAfter}
	}
	wctx, cancel := context.WithTimeout(ctx, b.opts.Wait)
	defer cancel()
	if err := b.sem.Acquire(wctx, 1); err != nil {
		if ctx.Err() != nil {
			// The caller left or ran out of time while waiting: not a refusal.
			return fmt.Errorf("waiting for admission: %w", ctx.Err())
		}
		b.admissions.WithLabelValues(resultRefused).Inc()
		return &OverloadedError{Limit: b.opts.Limit, Waited: b.opts.Wait, Retry: b.opts.RetryAfter}
	}
	b.admissions.WithLabelValues(resultQueued).Inc()
	b.inFlight.Inc()
	return nil
}

func (b *Backend) release() {
	b.inFlight.Dec()
	b.sem.Release(1)
}

// Describe implements prometheus.Collector.
func (b *Backend) Describe(ch chan<- *prometheus.Desc) {
	b.admissions.Describe(ch)
	b.inFlight.Describe(ch)
	b.limit.Describe(ch)
}

// Collect implements prometheus.Collector.
func (b *Backend) Collect(ch chan<- prometheus.Metric) {
	b.admissions.Collect(ch)
	b.inFlight.Collect(ch)
	b.limit.Collect(ch)
}

var (
	_ search.Backend       = (*Backend)(nil)
	_ prometheus.Collector = (*Backend)(nil)
)
