package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// ErrUnavailable is wrapped by the errors of a limiter whose store (Redis) did not answer in time.
var ErrUnavailable = errors.New("ratelimit: limit store unavailable")

// ErrInvalidURL is wrapped by every error of ParseRedisURL.
var ErrInvalidURL = errors.New("ratelimit: invalid Redis URL")

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
// must respect context deadlines: clients from NewClientFromURL do.
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

// Remote says that every decision is a round trip to Redis.
func (r *Redis) Remote() bool { return true }

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

// RedisConfig is a parsed Redis URL: exactly one of its fields is set.
type RedisConfig struct {
	Single   *redis.Options
	Cluster  *redis.ClusterOptions
	Sentinel *redis.FailoverOptions
}

// ParseRedisURL reads a Redis URL in one of the forms go-redis parses, and fills in the
// limiter's defaults for whatever the URL leaves unset:
//
//   - redis://[user:password@]host[:port][/db][?option=value...] one server;
//     rediss:// the same over TLS; unix://[user:password@]/path/to/socket[?db=N...].
//     Options are go-redis's (redis.ParseURL): dial_timeout, read_timeout, pool_size, ...
//   - Sentinel: the same redis:// or rediss:// form with master_name, its host and every
//     addr=host:port being sentinels (redis.ParseFailoverURL), e.g.
//     redis://sentinel-0:26379/0?master_name=mymaster&addr=sentinel-1:26379.
//     The password option is the master's; the URL's user information is the sentinels'.
//   - Cluster: redis+cluster:// or rediss+cluster://, host and every addr=host:port being seed
//     nodes (redis.ParseClusterURL), e.g. redis+cluster://node-0:6379?addr=node-1:6379.
//     go-redis has no scheme of its own for a cluster, so the "+cluster" marks it.
//
// Sentinel and Cluster URLs may also list their hosts separated by commas
// (redis+cluster://node-0:6379,node-1:6379), which become addr options.
//
// redis-sentinel:// and other schemes are not supported. Defaults: dial_timeout 250ms,
// read_timeout and write_timeout 100ms, pool_timeout 100ms, pool_size 10 per CPU, one dial per
// connection (dialer_retries 1) and one command retry (max_retries 1; a cluster keeps go-redis's
// redirects instead), and context deadlines always respected (so the limiter's per-call timeout
// holds). Errors never contain the URL's password.
func ParseRedisURL(raw string) (RedisConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // url.Error repeats the whole URL, password included
		}
		return RedisConfig{}, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	// Hosts separated by commas, as MEDIA_ENGINE_URL takes them, are addr options: go-redis would
	// read them as one address ("[h1:p1,h2]:p2") that never answers, and the limit would stay in
	// process for good.
	hosts := strings.Split(u.Host, ",")
	if len(hosts) > 1 {
		q := u.Query()
		for _, h := range hosts[1:] {
			q.Add("addr", h)
		}
		u.Host, u.RawQuery = hosts[0], q.Encode()
	}
	var c RedisConfig
	switch scheme := u.Scheme; scheme {
	case "redis", "rediss", "unix":
		switch {
		case scheme != "unix" && u.Query().Has("master_name"):
			c.Sentinel, err = redis.ParseFailoverURL(u.String())
		case len(hosts) > 1:
			err = errors.New("several hosts: a Sentinel URL needs master_name, a cluster's redis+cluster://")
		default:
			c.Single, err = redis.ParseURL(raw)
		}
	case "redis+cluster", "rediss+cluster":
		u.Scheme = strings.TrimSuffix(scheme, "+cluster")
		c.Cluster, err = redis.ParseClusterURL(u.String())
	default:
		err = fmt.Errorf("scheme %q, want redis, rediss, unix, redis+cluster or rediss+cluster", scheme)
	}
	if err != nil {
		return RedisConfig{}, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	var addrs []string
	switch {
	case c.Sentinel != nil:
		// NewFailoverClient panics on these; the limiter writes, so it needs the master anyway.
		if c.Sentinel.RouteByLatency || c.Sentinel.RouteRandomly || c.Sentinel.ReplicaOnly {
			return RedisConfig{}, fmt.Errorf("%w: route_by_latency, route_randomly and replica_only do not apply: the limiter writes to the master", ErrInvalidURL)
		}
		if c.Sentinel.MasterName == "" {
			return RedisConfig{}, fmt.Errorf("%w: empty master_name", ErrInvalidURL)
		}
		addrs = c.Sentinel.SentinelAddrs
	case c.Cluster != nil:
		addrs = c.Cluster.Addrs
	}
	// go-redis gives the URL's host a default port but an addr option none, and dials without one
	// fail only when used.
	for _, a := range addrs {
		if host, _, err := net.SplitHostPort(a); err != nil || host == "" {
			return RedisConfig{}, fmt.Errorf("%w: address %q, want host:port", ErrInvalidURL, a)
		}
	}
	c.setDefaults()
	return c, nil
}

func (c *RedisConfig) setDefaults() {
	type knobs struct {
		dial, read, write, pool *time.Duration
		size, dialRetries       *int
		retries                 *int // nil for a cluster, whose redirects retry
		ctxTimeout              *bool
	}
	var k knobs
	switch {
	case c.Single != nil:
		o := c.Single
		k = knobs{&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.PoolSize, &o.DialerRetries, &o.MaxRetries, &o.ContextTimeoutEnabled}
	case c.Cluster != nil:
		o := c.Cluster
		k = knobs{&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.PoolSize, &o.DialerRetries, nil, &o.ContextTimeoutEnabled}
	default:
		o := c.Sentinel
		k = knobs{&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.PoolSize, &o.DialerRetries, &o.MaxRetries, &o.ContextTimeoutEnabled}
	}
	// go-redis's own retries (5 dials 100ms apart, 3 commands) outlast a decision's 100ms: against
	// a Redis that refuses connections (a killed primary, until its replica is promoted) every try
	// waited the whole 100ms. One dial and one command retry fail well within it, and the retry
	// still gets past a connection the server closed.
	if *k.dialRetries == 0 {
		*k.dialRetries = 1
	}
	if k.retries != nil && *k.retries == 0 {
		*k.retries = 1
	}
	for _, d := range []struct {
		field *time.Duration
		value time.Duration
	}{{k.dial, 250 * time.Millisecond}, {k.read, 100 * time.Millisecond}, {k.write, 100 * time.Millisecond}, {k.pool, 100 * time.Millisecond}} {
		if *d.field == 0 {
			*d.field = d.value
		}
	}
	if *k.size == 0 {
		*k.size = 10 * runtime.GOMAXPROCS(0)
	}
	*k.ctxTimeout = true
}

// NewClient returns a client for the configuration; it connects lazily.
func (c RedisConfig) NewClient() redis.UniversalClient {
	switch {
	case c.Single != nil:
		return redis.NewClient(c.Single)
	case c.Cluster != nil:
		return redis.NewClusterClient(c.Cluster)
	default:
		return redis.NewFailoverClient(c.Sentinel)
	}
}

// NewClientFromURL is ParseRedisURL followed by NewClient.
func NewClientFromURL(raw string) (redis.UniversalClient, error) {
	c, err := ParseRedisURL(raw)
	if err != nil {
		return nil, err
	}
	return c.NewClient(), nil
}

// SetRedisLogger sends go-redis's own log lines (one per failed dial, so one per retry while
// Redis is down) to logger at Debug, leaving Fallback's throttled warning as the visible one.
// go-redis has one logger per process, so this is global; call it once at start-up.
func SetRedisLogger(logger *zap.Logger) {
	redis.SetLogger(redisLogger{logger.Sugar()})
}

type redisLogger struct{ s *zap.SugaredLogger }

func (l redisLogger) Printf(_ context.Context, format string, v ...any) {
	l.s.Debugf(format, v...)
}
