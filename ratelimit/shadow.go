package ratelimit

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Shadow stands in front of a Fallback over a shared limiter (Redis) and answers from the
// Fallback's visitor memory, where the shared limiter last said each visitor stood:
//
//   - Inspect answers without asking the shared limiter, so a response the limit does not count
//     (health checks, preflights, 405s) makes no call to Redis at all;
//   - Allow refuses at once a visitor the memory already puts past the limit, so a flood of counted
//     requests (404s included) past the limit costs Redis nothing.
//
// Both are sound while Redis answers because the memory is then a lower bound of the shared state:
// a visitor's theoretical arrival time (TAT) only moves later with the requests other replicas
// count, and the one remembered is taken from the time the shared limiter was asked, before it
// answered. A refusal here is one the shared limiter would make; a standing read here is at least
// as good as the visitor's real one (it leaves out what other replicas counted since). Requests
// the Fallback decided in process while Redis failed count in the memory too, until they drain.
type Shadow struct {
	fb    *Fallback
	known *Memory

	refused prometheus.Counter
}

// NewShadow puts a Shadow in front of fb, reading fb's visitor memory.
func NewShadow(fb *Fallback) *Shadow {
	return &Shadow{fb: fb, known: fb.local,
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mediagw_ratelimit_refused_locally_total",
			Help: "Requests refused from what this replica knew of the visitor's shared limit, without asking Redis.",
		})}
}

// Allow refuses a visitor known to be past the limit; otherwise the Fallback decides, and its
// memory learns the answer.
func (s *Shadow) Allow(ctx context.Context, key string) (Decision, error) {
	if d, err := s.known.Inspect(ctx, key); err == nil && !d.Allowed {
		s.refused.Inc()
		d.RetryAfter = max(d.RetryAfter, time.Nanosecond)
		return d, nil
	}
	return s.fb.Allow(ctx, key)
}

// Inspect says where the visitor stood when this replica last asked the shared limiter, moved on
// by the time since; a visitor it has not asked about is at the full limit.
func (s *Shadow) Inspect(ctx context.Context, key string) (Decision, error) {
	return s.known.Inspect(ctx, key)
}

// Reserve is the Fallback's: one memory answers it.
func (s *Shadow) Reserve(ctx context.Context, key string) bool { return s.fb.Reserve(ctx, key) }

// Release is the Fallback's.
func (s *Shadow) Release(key string) { s.fb.Release(key) }

// Remote says that decisions may leave the process: a request the memory does not refuse asks
// the shared limiter.
func (s *Shadow) Remote() bool { return true }

// Describe implements prometheus.Collector.
func (s *Shadow) Describe(ch chan<- *prometheus.Desc) { s.refused.Describe(ch) }

// Collect implements prometheus.Collector.
func (s *Shadow) Collect(ch chan<- prometheus.Metric) { s.refused.Collect(ch) }
