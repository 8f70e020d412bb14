// Package admit bounds the engine work in progress: a search.Backend in front of another that
// lets at most Options.Limit calls run at once, makes up to Options.Queue more wait up to
// Options.Wait for a slot, first come first served, and refuses the rest at once with an
// *OverloadedError (search.ErrOverloaded). Work beyond what the machine can do only makes every
// answer later and the process bigger: 150 heavy searches at once took 5 s each and up to 380 MiB
// on two CPUs, where a bound answers the admitted ones in their own time and the others at once
// (docs/attack.md).
//
// It sits below the cache (search/cache): answers from memory are never refused, and a call
// several visitors share takes one slot. Ping, Item and the version checks pass unadmitted: a
// readiness probe never waits behind searches, and an item is one lookup by id, cheaper than the
// admission itself.
package admit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"

	"mediagw/search"
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
	next search.Backend
	// extras is next, when it answers the search-box extras; nil otherwise.
	extras search.Extras
	opts   Options
	sem    *semaphore.Weighted
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
		next: next,
		opts: opts,
		sem:  semaphore.NewWeighted(int64(opts.Limit)),
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
	b.extras, _ = next.(search.Extras)
	b.limit.Set(float64(opts.Limit))
	for _, r := range []string{resultAdmitted, resultQueued, resultRefused} {
		b.admissions.WithLabelValues(r)
	}
	return b
}

// Unwrap returns the wrapped backend, for a caller that looks for what it can do besides the
// calls (search/cache asks it for its index version).
func (b *Backend) Unwrap() search.Backend { return b.next }

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

// admitted runs f once a slot is taken.
func admitted[T any](ctx context.Context, b *Backend, f func() (T, error)) (T, error) {
	if err := b.acquire(ctx); err != nil {
		var zero T
		return zero, err
	}
	defer b.release()
	return f()
}

// errNoExtras is the answer to an extra the wrapped backend does not give.
var errNoExtras = errors.New("admit: the backend answers no search-box extras")

// Search runs once admitted.
func (b *Backend) Search(ctx context.Context, q search.Query) (search.Result, error) {
	return admitted(ctx, b, func() (search.Result, error) { return b.next.Search(ctx, q) })
}

// Item is not admitted: one lookup by id.
func (b *Backend) Item(ctx context.Context, id string) (search.Item, error) {
	return b.next.Item(ctx, id)
}

// Categories runs once admitted.
func (b *Backend) Categories(ctx context.Context) ([]search.Category, error) {
	return admitted(ctx, b, func() ([]search.Category, error) { return b.next.Categories(ctx) })
}

// Authors runs once admitted.
func (b *Backend) Authors(ctx context.Context) ([]search.Author, error) {
	return admitted(ctx, b, func() ([]search.Author, error) { return b.next.Authors(ctx) })
}

// Ping is not admitted: readiness must not wait behind searches.
func (b *Backend) Ping(ctx context.Context) error { return b.next.Ping(ctx) }

// Complete runs once admitted.
func (b *Backend) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	if b.extras == nil {
		return nil, errNoExtras
	}
	return admitted(ctx, b, func() ([]search.Completion, error) { return b.extras.Complete(ctx, text, n) })
}

// Related runs once admitted.
func (b *Backend) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	if b.extras == nil {
		return nil, errNoExtras
	}
	return admitted(ctx, b, func() ([]search.Item, error) { return b.extras.Related(ctx, id, n) })
}

// Totals runs once admitted: a did-you-mean correction counts its alternatives.
func (b *Backend) Totals(ctx context.Context, q search.Query, alts []search.Alternative, m search.Matches) ([]int, error) {
	if b.extras == nil {
		return nil, errNoExtras
	}
	return admitted(ctx, b, func() ([]int, error) { return b.extras.Totals(ctx, q, alts, m) })
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
	_ search.Extras        = (*Backend)(nil)
	_ prometheus.Collector = (*Backend)(nil)
)
