package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
)

const (
	// DefaultRetryInterval is how long Fallback answers in process after the primary failed
	// before it tries the primary again.
	DefaultRetryInterval = time.Second
	// logInterval is the least time between two log lines about the primary.
	logInterval = time.Minute
)

// Fallback asks the primary limiter (Redis) and, when it fails, the replica's visitor memory
// (Memory), so a Redis fault never turns into an error for the visitor: the limit is then kept per
// replica, starting from what the primary last said of each visitor, which the memory learns from
// every answer. After a failure it answers locally for a retry interval, then lets one request
// try the primary again, and returns to it as soon as it answers. It logs a failing primary at most
// once per log interval, and is a prometheus.Collector of
//
//	mediagw_ratelimit_decisions_total{result="allowed|limited"}
//	mediagw_ratelimit_fallback_total   requests decided locally because the primary failed
//	mediagw_ratelimit_fallback_active  1 while the primary is considered down
//
// which the caller registers.
type Fallback struct {
	primary       Limiter
	local         *Memory
	logger        *zap.Logger
	now           func() time.Time
	retryInterval time.Duration

	down    atomic.Bool
	retryAt atomic.Int64 // unix nanoseconds; while down, the first request from then probes

	logMu       sync.Mutex
	lastDownLog time.Time
	lastUpLog   time.Time
	downSince   time.Time
	failures    int // primary failures since the last log line

	decisions        *prometheus.CounterVec
	allowed, limited prometheus.Counter
	fallbacks        prometheus.Counter
	active           prometheus.Gauge
}

// FallbackOption configures NewFallback.
type FallbackOption func(*Fallback)

// WithRetryInterval sets how long to stay local after a primary failure (DefaultRetryInterval).
func WithRetryInterval(d time.Duration) FallbackOption {
	return func(f *Fallback) { f.retryInterval = d }
}

// WithClock sets the time source for the retry and log intervals (time.Now otherwise).
func WithClock(now func() time.Time) FallbackOption {
	return func(f *Fallback) { f.now = now }
}

// NewFallback returns a limiter that prefers primary and falls back to local, the replica's one
// visitor memory. A nil primary means there is no shared store: every request is decided locally
// and only counted in decisions_total. A nil logger logs nothing.
func NewFallback(primary Limiter, local *Memory, logger *zap.Logger, opts ...FallbackOption) *Fallback {
	if logger == nil {
		logger = zap.NewNop()
	}
	f := &Fallback{
		primary:       primary,
		local:         local,
		logger:        logger,
		now:           time.Now,
		retryInterval: DefaultRetryInterval,
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_ratelimit_decisions_total",
			Help: "Rate-limit decisions, by result.",
		}, []string{"result"}),
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mediagw_ratelimit_fallback_total",
			Help: "Requests whose rate limit was decided in process because the shared limiter (Redis) failed.",
		}),
		active: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mediagw_ratelimit_fallback_active",
			Help: "1 while the shared limiter (Redis) is considered down and limits are kept per replica.",
		}),
	}
	f.allowed = f.decisions.WithLabelValues("allowed")
	f.limited = f.decisions.WithLabelValues("limited")
	for _, o := range opts {
		o(f)
	}
	return f
}

// Allow decides one request. Its error is always nil: when both limiters fail (only an
// invalid policy does that) the request is let through and the failure logged.
func (f *Fallback) Allow(ctx context.Context, key string) (Decision, error) {
	if d, ok := f.askPrimary(ctx, key, false); ok {
		f.count(d)
		return d, nil
	}
	if f.primary != nil {
		f.fallbacks.Inc()
	}
	d, err := f.local.Allow(ctx, key)
	if err != nil {
		f.logger.Error("rate limit: in-process limiter failed, request let through", zap.Error(err))
		return Decision{Allowed: true}, nil
	}
	f.count(d)
	return d, nil
}

// Inspect says where the visitor stands without counting a request, from the primary or, when it
// fails, the local limiter, chosen exactly as for Allow (an inspection may be the one request that
// probes a primary that is down, and a failed one marks it down). It is no decision, so it counts
// in none of the metrics. Unlike Allow it returns the local limiter's error: a caller can leave
// the standing out of a response, where a request must be decided.
func (f *Fallback) Inspect(ctx context.Context, key string) (Decision, error) {
	if d, ok := f.askPrimary(ctx, key, true); ok {
		return d, nil
	}
	return f.local.Inspect(ctx, key)
}

// Remote says whether decisions go to a shared store first: whether there is a primary.
func (f *Fallback) Remote() bool { return f.primary != nil }

// Reserve says whether the visitor's request may run before its decision: this replica's memory
// knows the visitor and what it has left, less its requests in flight, is at least the margin.
func (f *Fallback) Reserve(ctx context.Context, key string) bool { return f.local.Reserve(ctx, key) }

// Release ends a reservation of the visitor's.
func (f *Fallback) Release(key string) { f.local.Release(key) }

// askPrimary asks the primary to inspect or decide, when it should be asked, and has the memory
// learn its answer; ok is false when it was not asked or failed, and the caller turns to the
// local limiter.
func (f *Fallback) askPrimary(ctx context.Context, key string, inspect bool) (d Decision, ok bool) {
	if f.primary == nil || !f.tryPrimary() {
		return Decision{}, false
	}
	// Taken before asking, so that it plus the answer's ResetAfter is a lower bound of the TAT.
	asked := f.local.now()
	var err error
	if inspect {
		d, err = f.primary.Inspect(ctx, key)
	} else {
		d, err = f.primary.Allow(ctx, key)
	}
	if err == nil {
		f.local.Learn(key, asked, d.ResetAfter)
		f.primaryAnswered()
		return d, true
	}
	// A caller that gave up says nothing about the primary's health.
	if ctx.Err() == nil {
		f.primaryFailed(err)
	}
	return Decision{}, false
}

// tryPrimary says whether this request should ask the primary: always while it is up; while
// it is down, only the one request that claims an expired retry time.
func (f *Fallback) tryPrimary() bool {
	if !f.down.Load() {
		return true
	}
	now := f.now().UnixNano()
	at := f.retryAt.Load()
	return now >= at && f.retryAt.CompareAndSwap(at, now+int64(f.retryInterval))
}

func (f *Fallback) primaryFailed(err error) {
	now := f.now()
	f.retryAt.Store(now.Add(f.retryInterval).UnixNano())
	f.logMu.Lock()
	defer f.logMu.Unlock()
	if !f.down.Swap(true) {
		f.active.Set(1)
		f.downSince = now
	}
	f.failures++
	if now.Sub(f.lastDownLog) < logInterval {
		return
	}
	f.logger.Warn("rate limit: Redis failed, keeping limits per replica until it answers",
		zap.Error(err), zap.Int("failures", f.failures), zap.Duration("retry_interval", f.retryInterval))
	f.lastDownLog = now
	f.failures = 0
}

func (f *Fallback) primaryAnswered() {
	if !f.down.Load() {
		return
	}
	f.logMu.Lock()
	defer f.logMu.Unlock()
	if !f.down.Swap(false) {
		return
	}
	f.active.Set(0)
	now := f.now()
	if now.Sub(f.lastUpLog) < logInterval {
		return
	}
	f.logger.Info("rate limit: Redis answers again, limits are shared across replicas",
		zap.Duration("down_for", now.Sub(f.downSince)))
	f.lastUpLog = now
}

func (f *Fallback) count(d Decision) {
	if d.Allowed {
		f.allowed.Inc()
	} else {
		f.limited.Inc()
	}
}

// Describe implements prometheus.Collector.
func (f *Fallback) Describe(ch chan<- *prometheus.Desc) {
	f.decisions.Describe(ch)
	f.fallbacks.Describe(ch)
	f.active.Describe(ch)
}

// Collect implements prometheus.Collector.
func (f *Fallback) Collect(ch chan<- prometheus.Metric) {
	f.decisions.Collect(ch)
	f.fallbacks.Collect(ch)
	f.active.Collect(ch)
}

var (
	_ Limiter              = (*Memory)(nil)
	_ Limiter              = (*Redis)(nil)
	_ Limiter              = (*Fallback)(nil)
	_ Limiter              = (*Shadow)(nil)
	_ Speculator           = (*Fallback)(nil)
	_ Speculator           = (*Shadow)(nil)
	_ prometheus.Collector = (*Fallback)(nil)
	_ prometheus.Collector = (*Shadow)(nil)
)
