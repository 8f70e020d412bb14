// Package admit bounds the engine work in progress: a search.Backend in front of another that
// lets at most Options.Limit calls run at once, makes up to Options.Queue more wait up to
// Options.Wait for a slot, and refuses the rest at once with an *OverloadedError
// (search.ErrOverloaded, carried as a *search.Error with Options.RetryAfter). Work beyond what the machine can do only makes every
// answer later and the process bigger (docs/performance.md), where a bound answers the admitted
// ones in their own time and the others at once. No one visitor (VisitorOf) fills the slots or the queue: its calls
// running and waiting count in one share, past which, or once it has kept the engine busy lately,
// its calls run only while half the slots stay free (share.go). A freed slot goes to the waiting
// call whose visitor has taken the least engine time lately, not to the first in line: however
// many visitors send costly searches, one who sends few waits for the next slot only. A full
// queue makes room for such a call by refusing the waiting call of the visitor who has taken the
// most.
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
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
	// without waiting, unless a waiting call's visitor has taken more engine time lately. More waiters could not all get a slot within Wait, and each would only
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
// of Wait, or with Queue others already waiting, or while it waited a lighter visitor's call took
// its place. It is a search.ErrOverloaded.
type OverloadedError struct {
	Limit int
	// Waited is how long the call waited for a slot: 0 when the queue was full.
	Waited time.Duration
	// Displaced says a lighter visitor's call took the call's place in the queue.
	Displaced bool
}

func (e *OverloadedError) Error() string {
	switch {
	case e.Displaced:
		return fmt.Sprintf("%d engine calls in progress, the call's place in the queue given to a visitor who took less engine time", e.Limit)
	case e.Waited == 0:
		return fmt.Sprintf("%d engine calls in progress and the queue for a slot full", e.Limit)
	}
	return fmt.Sprintf("%d engine calls in progress, none ended within %v", e.Limit, e.Waited)
}

// Unwrap makes the error a search.ErrOverloaded.
func (e *OverloadedError) Unwrap() error { return search.ErrOverloaded }

// refusal is the error of a call admission refused, why saying why: classified here, once, with
// when the client may ask again.
func (b *Backend) refusal(why error) error {
	return &search.Error{Kind: search.KindOverloaded, RetryAfter: b.opts.RetryAfter, Err: why}
}

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
	opts Options
	// share is how many calls one visitor may have running and waiting at once: max(1, Limit/4).
	share int
	// now is the accounts' clock.
	now func() time.Time

	mu sync.Mutex
	// running counts the calls holding a slot, a visitor's or not.
	running int
	// queue are the calls waiting for a slot, in the order they came.
	queue    []*waiter
	accounts accounts

	admissions *prometheus.CounterVec
	inFlight   prometheus.Gauge
	limit      prometheus.Gauge
}

// New wraps next.
func New(next search.Backend, opts Options) *Backend {
	opts = opts.withDefaults()
	b := &Backend{
		opts:     opts,
		share:    max(1, opts.Limit/4),
		now:      time.Now,
		accounts: newAccounts(),
		admissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_admission_total",
			Help: "Engine calls by how they were admitted: admitted (a slot was free), queued (waited for one), refused (none came free in time, too many waited already, or the visitor was past its share: 503).",
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

// call is one engine call's place in the accounts.
type call struct {
	// share is the account it counts in, its visitor's or its range's; nil for the process's own.
	share *account
	// charged are the accounts its engine time is added to.
	charged []*account
	start   time.Time
}

// waiter is a call waiting for a slot.
type waiter struct {
	call *call
	// ready is closed once the call has a slot (granted) or has lost its place (displaced).
	ready              chan struct{}
	granted, displaced bool
}

// admit takes a slot for a call of ctx's visitor, within its share; the caller must call the
// returned release once the call has ended.
func (b *Backend) admit(ctx context.Context) (release, error) {
	visitor := VisitorOf(ctx)
	// One wait for the whole call: for its visitor's own calls to end, then for a slot.
	var timer *time.Timer
	wait := func() <-chan time.Time {
		if timer == nil {
			timer = time.NewTimer(b.opts.Wait)
		}
		return timer.C
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		b.mu.Lock()
		c, w, freed, err := b.enter(visitor)
		b.mu.Unlock()
		switch {
		case freed != nil:
			// Past its share, behind the visitor's own calls. Once the wait is over the call is
			// refused, whatever else ended meanwhile: its timer has fired, and would not again.
			ended := false
			select {
			case <-freed:
				ended = true
			case <-wait():
			case <-ctx.Done():
			}
			b.mu.Lock()
			c.share.pending--
			b.mu.Unlock()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("waiting for admission: %w", ctx.Err())
			}
			if ended {
				continue
			}
			return nil, b.refuse(c, err)
		case err != nil:
			return nil, b.refuse(c, err)
		case w == nil:
			b.admissions.WithLabelValues(resultAdmitted).Inc()
			return func() { b.end(c) }, nil
		}
		return b.await(ctx, w, wait())
	}
}

// await waits for w's slot until timeout or ctx's end.
func (b *Backend) await(ctx context.Context, w *waiter, timeout <-chan time.Time) (release, error) {
	start := time.Now()
	select {
	case <-w.ready:
	case <-timeout:
	case <-ctx.Done():
	}
	b.mu.Lock()
	granted, displaced := w.granted, w.displaced
	if !granted && !displaced {
		b.leave(w)
	}
	b.mu.Unlock()
	switch {
	case granted:
		b.admissions.WithLabelValues(resultQueued).Inc()
		return func() { b.end(w.call) }, nil
	case ctx.Err() != nil:
		// The caller left or ran out of time while waiting: not a refusal.
		return nil, fmt.Errorf("waiting for admission: %w", ctx.Err())
	}
	if displaced {
		return nil, b.refuse(w.call, b.refusal(&OverloadedError{Limit: b.opts.Limit, Waited: time.Since(start), Displaced: true}))
	}
	return nil, b.refuse(w.call, b.refusal(&OverloadedError{Limit: b.opts.Limit, Waited: b.opts.Wait}))
}

// refuse counts c refused with err, and charges its visitor a call of its average engine time
// lately: what it asked of the engine, so that being refused does not make a heavy visitor light.
func (b *Backend) refuse(c *call, err error) error {
	b.admissions.WithLabelValues(resultRefused).Inc()
	if c.share == nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	asked := c.share.average(now)
	for _, a := range c.charged {
		a.charge(now, asked)
	}
	return err
}

// enter counts a call of visitor in, under b.mu: it runs now, waits for a slot (w), or is
// refused (err), unless it is past its visitor's share and waits on freed for one of the
// visitor's own calls to end, to enter again; err is then its refusal if none ends in time.
func (b *Backend) enter(visitor string) (c *call, w *waiter, freed <-chan struct{}, err error) {
	now := b.now()
	c = &call{}
	if visitor != "" {
		c.share, c.charged = b.accounts.lookup(visitor, now)
		if heavy := b.accounts.heavy(c.share, now); heavy || c.share.held >= b.share {
			if b.running < max(1, b.opts.Limit/2) {
				// A slot free now that leaves half of them to the others.
				c.share.held++
				return b.start(c, now), nil, nil, nil
			}
			err = b.refusal(&ShareError{Share: b.share, Heavy: heavy})
			if !heavy && c.share.pending < b.share {
				// A search box's overlapping requests queue behind their own.
				return c, nil, c.share.waitFree(), err
			}
			return c, nil, nil, err
		}
		c.share.held++
	}
	if b.running < b.opts.Limit {
		return b.start(c, now), nil, nil, nil
	}
	if w, err = b.enqueue(c); err != nil && c.share != nil {
		c.share.free()
	}
	return c, w, nil, err
}

// start gives c a slot.
func (b *Backend) start(c *call, now time.Time) *call {
	b.running++
	b.inFlight.Set(float64(b.running))
	c.start = now
	return c
}

// weight orders the waiting calls: their visitor's engine time lately (account.busy), the
// process's own first.
func (b *Backend) weight(c *call, now time.Time) time.Duration {
	if c.share == nil {
		return -1
	}
	return c.share.decayed(now)
}

// enqueue puts c in the queue, in the place of the heaviest visitor's latest call when it is
// full and that visitor has taken more engine time lately than c's.
func (b *Backend) enqueue(c *call) (*waiter, error) {
	if len(b.queue) >= b.opts.Queue {
		now := b.now()
		out := -1
		for i, w := range b.queue {
			if b.weight(w.call, now) > b.weight(c, now) && (out < 0 || b.weight(w.call, now) >= b.weight(b.queue[out].call, now)) {
				out = i
			}
		}
		if out < 0 {
			return nil, b.refusal(&OverloadedError{Limit: b.opts.Limit})
		}
		w := b.queue[out]
		b.queue = slices.Delete(b.queue, out, out+1)
		w.call.share.free()
		w.displaced = true
		close(w.ready)
	}
	w := &waiter{call: c, ready: make(chan struct{})}
	b.queue = append(b.queue, w)
	return w, nil
}

// leave takes w out of the queue, under b.mu.
func (b *Backend) leave(w *waiter) {
	b.queue = slices.DeleteFunc(b.queue, func(q *waiter) bool { return q == w })
	if w.call.share != nil {
		w.call.share.free()
	}
}

// end counts c out and gives its slot to the waiting call of the visitor who has taken the
// least engine time lately, the first to come of those.
func (b *Backend) end(c *call) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.running--
	b.inFlight.Set(float64(b.running))
	if c.share != nil {
		c.share.free()
	}
	for _, a := range c.charged {
		a.charge(now, now.Sub(c.start))
	}
	if len(b.queue) == 0 {
		return
	}
	next := 0
	for i, w := range b.queue {
		if b.weight(w.call, now) < b.weight(b.queue[next].call, now) {
			next = i
		}
	}
	w := b.queue[next]
	b.queue = slices.Delete(b.queue, next, next+1)
	w.granted = true
	b.start(w.call, now)
	close(w.ready)
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
