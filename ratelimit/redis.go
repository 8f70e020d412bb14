package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// ErrUnavailable is wrapped by the errors of a limiter whose store (Redis) did not answer in time.
var ErrUnavailable = errors.New("ratelimit: limit store unavailable")

const (
	// DefaultPrefix starts every key the Redis limiter writes (after redis_rate's own "rate:").
	DefaultPrefix = "mediagw:"
	// DefaultTimeout bounds one Allow against Redis: a request must not wait on a slow Redis
	// longer than the in-process fallback takes to answer it.
	DefaultTimeout = 100 * time.Millisecond
)

// Redis is the limiter shared by every replica: redis_rate v10's GCRA script, with
// Rate and Burst both the policy's Limit over its Window. Memory computes the same numbers.
type Redis struct {
	limiter *redis_rate.Limiter
	limit   redis_rate.Limit
	p       Policy
	prefix  string
	timeout time.Duration
}

// RedisOption configures NewRedis.
type RedisOption func(*Redis)

// WithPrefix sets the key prefix (DefaultPrefix otherwise), for several services on one Redis.
func WithPrefix(prefix string) RedisOption {
	return func(r *Redis) { r.prefix = prefix }
}

// WithTimeout sets how long one Allow may wait for Redis (DefaultTimeout otherwise). The client
// must respect context deadlines: clients from redisconn.Open do.
func WithTimeout(d time.Duration) RedisOption {
	return func(r *Redis) { r.timeout = d }
}

// NewRedis returns a limiter for p kept in Redis through client. A call whose context names
// another policy (WithPolicy) is decided under that one.
func NewRedis(client redis.UniversalClient, p Policy, opts ...RedisOption) (*Redis, error) {
	if client == nil {
		return nil, errors.New("ratelimit: NewRedis: nil client")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	r := &Redis{
		limiter: redis_rate.NewLimiter(client),
		limit:   scriptLimit(p),
		p:       p,
		prefix:  DefaultPrefix,
		timeout: DefaultTimeout,
	}
	for _, o := range opts {
		o(r)
	}
	if r.timeout <= 0 {
		return nil, fmt.Errorf("ratelimit: NewRedis: timeout %s, want more than 0", r.timeout)
	}
	return r, nil
}

func scriptLimit(p Policy) redis_rate.Limit {
	return redis_rate.Limit{Rate: p.Limit, Burst: p.Limit, Period: p.Window}
}

// under is the policy ctx's call is decided under (WithPolicy), else the limiter's own.
func (r *Redis) under(ctx context.Context) (Policy, redis_rate.Limit) {
	if p := policyOf(ctx, r.p); p != r.p {
		return p, scriptLimit(p)
	}
	return r.p, r.limit
}

// Allow counts one request by the visitor key in Redis. Any failure, including the timeout,
// is returned wrapping ErrUnavailable; Fallback turns it into an in-process decision.
func (r *Redis) Allow(ctx context.Context, key string) (Decision, error) {
	p, limit := r.under(ctx)
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.limiter.Allow(ctx, r.prefix+key, limit)
	if err != nil {
		return Decision{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return decide(p, res.Allowed > 0, res.Remaining, res.RetryAfter, res.ResetAfter), nil
}

// Inspect says where the visitor key stands without counting a request: redis_rate's AllowN with
// a cost of 0, under the same timeout as Allow. That script never creates a key (with nothing to
// drain it stores nothing); for a visitor still draining it SETs the same TAT back with a TTL that
// still ends at or after the TAT. Failures wrap ErrUnavailable, as Allow's do.
func (r *Redis) Inspect(ctx context.Context, key string) (Decision, error) {
	p, limit := r.under(ctx)
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := r.limiter.AllowN(ctx, r.prefix+key, limit, 0)
	if err != nil {
		return Decision{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return inspection(p, res.Remaining, res.RetryAfter, res.ResetAfter), nil
}

// inspection reads the script's answer to a cost of 0. Its Allowed is always 0 (the cost); its
// retry_after is -1 except in the limited branch, which a cost of 0 reaches only when Redis's
// clock went backwards.
func inspection(p Policy, remaining int, retryAfter, resetAfter time.Duration) Decision {
	if retryAfter != -1 {
		return decide(p, false, 0, retryAfter, resetAfter)
	}
	return standing(p, remaining, resetAfter)
}
