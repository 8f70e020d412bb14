// Package ratelimit decides whether a visitor may make another request: a GCRA limit kept in
// Redis (shared by every replica) or in process, with the same numbers either way, and each
// replica's one memory of its visitors beside Redis.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Decider decides one request by a visitor. Implementations are safe for concurrent use and
// honour ctx's deadline.
type Decider interface {
	Allow(ctx context.Context, key string) (Decision, error)
}

// Inspector says where a visitor stands without counting a request, for the responses the limit
// does not count, and keeps nothing for a visitor it does not know (who stands at the full limit).
type Inspector interface {
	Inspect(ctx context.Context, key string) (Decision, error)
}

// Limiter decides requests and inspects standings. Memory, Redis, Fallback and Shadow implement
// it, with the same numbers for the same history.
type Limiter interface {
	Decider
	Inspector
}

// Speculator is a limiter that tells, from the replica's visitor memory, whether a visitor's next
// request may run before its decision is in (the gateway's speculative admission).
type Speculator interface {
	// Remote says whether decisions leave the process: only those are worth running beside the
	// request, one made in process takes less time than the overlap costs.
	Remote() bool
	// Reserve says whether the visitor's request may run before its decision, and if so counts it
	// in flight until Release; ctx names the visitor's policy as for Allow.
	Reserve(ctx context.Context, key string) bool
	// Release ends a reservation once the request's decision is in.
	Release(key string)
}

// ErrInvalidPolicy is wrapped by every error about a Policy that cannot be enforced.
var ErrInvalidPolicy = errors.New("ratelimit: invalid policy")

// Policy is the contract's limit: Limit requests per Window per visitor.
type Policy struct {
	Limit  int
	Window time.Duration
}

// DefaultPolicy is the contract's limit when the operator sets none (MEDIA_RATE_LIMIT,
// MEDIA_RATE_WINDOW): 120 requests per 10 minutes.
var DefaultPolicy = Policy{Limit: 120, Window: 10 * time.Minute}

// MinWindow is the shortest window a policy may have: the headers announce the window and every
// wait in whole seconds (RateLimit-Policy's w, Retry-After), which a shorter window would misstate.
const MinWindow = time.Second

// Validate reports whether p can be enforced. Call it at start-up: limiters built from an invalid
// policy answer every Allow with the same error instead of panicking.
func (p Policy) Validate() error {
	var problems []string
	if p.Limit < 1 {
		problems = append(problems, fmt.Sprintf("rate limit %d requests, want at least 1", p.Limit))
	}
	if p.Window < MinWindow {
		problems = append(problems, fmt.Sprintf("rate window %s, want at least %s", p.Window, MinWindow))
	}
	if problems != nil {
		return fmt.Errorf("%w: %s", ErrInvalidPolicy, strings.Join(problems, "; "))
	}
	return nil
}

// Decision is the outcome of one request against a visitor's limit, or, from Inspect, where the
// visitor stands without a request being counted.
type Decision struct {
	// Allowed says the request was allowed; from Inspect, that a request made now would be.
	Allowed bool
	// Limit is the policy's request count, for the headers.
	Limit int
	// Remaining is how many more requests the visitor may make right now.
	Remaining int
	// RetryAfter is how long until the next request is allowed; zero while Remaining > 0.
	RetryAfter time.Duration
	// ResetAfter is how long until the visitor is back to the full Limit.
	ResetAfter time.Duration
}

// decide turns a GCRA outcome into a Decision. Memory and Redis both go through it, so equal
// GCRA states give equal Decisions. redis_rate reports no retry time for an allowed request; when
// that request used the last slot, the next one is allowed once one emission interval has
// drained, which is ResetAfter minus the rest of the window.
func decide(p Policy, allowed bool, remaining int, retryAfter, resetAfter time.Duration) Decision {
	d := Decision{Allowed: allowed, Limit: p.Limit, Remaining: remaining, ResetAfter: resetAfter}
	switch {
	case !allowed:
		d.RetryAfter = retryAfter
	case remaining == 0:
		d.RetryAfter = max(0, resetAfter-p.Window+p.Window/time.Duration(p.Limit))
	}
	return d
}

// standing turns an inspection, the GCRA script run with a cost of 0, into a Decision. The script
// answers like an allowed request that used nothing: remaining is what is left (truncated), and
// the next request is allowed once remaining reaches 1, which decide computes for remaining 0.
// A visitor with nothing left to drain (resetAfter 0: no state, or a TAT already passed) is at
// the full Limit, whatever the float division made of Limit; Memory and Redis both go through
// here, so they agree on that too.
func standing(p Policy, remaining int, resetAfter time.Duration) Decision {
	if resetAfter <= 0 {
		return Decision{Allowed: true, Limit: p.Limit, Remaining: p.Limit}
	}
	d := decide(p, true, remaining, 0, resetAfter)
	d.Allowed = remaining > 0
	return d
}
