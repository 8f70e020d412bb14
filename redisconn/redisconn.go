// Package redisconn opens the process' one Redis client from a URL (one server, Sentinel or a
// cluster), with timeouts fit for the request path; the rate limiter and the query log share it.
package redisconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// ErrInvalidURL is wrapped by every error of ParseURL.
var ErrInvalidURL = errors.New("redisconn: invalid Redis URL")

// Config is a parsed Redis URL: exactly one of its fields is set.
type Config struct {
	Single   *redis.Options
	Cluster  *redis.ClusterOptions
	Sentinel *redis.FailoverOptions
}

// ParseURL reads a Redis URL in one of the forms go-redis parses, and fills in the
// defaults of a caller on the request path for whatever the URL leaves unset:
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
// redirects instead), and context deadlines always respected (so a caller's per-call timeout
// holds). Errors never contain the URL's password.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // url.Error repeats the whole URL, password included
		}
		return Config{}, fmt.Errorf("%w: %w", ErrInvalidURL, err)
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
	var c Config
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
		return Config{}, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	var addrs []string
	switch {
	case c.Sentinel != nil:
		// NewFailoverClient panics on these; the limiter and the query log write, so they need the master anyway.
		if c.Sentinel.RouteByLatency || c.Sentinel.RouteRandomly || c.Sentinel.ReplicaOnly {
			return Config{}, fmt.Errorf("%w: route_by_latency, route_randomly and replica_only do not apply: mediagw writes to the master", ErrInvalidURL)
		}
		if c.Sentinel.MasterName == "" {
			return Config{}, fmt.Errorf("%w: empty master_name", ErrInvalidURL)
		}
		addrs = c.Sentinel.SentinelAddrs
	case c.Cluster != nil:
		addrs = c.Cluster.Addrs
	}
	// go-redis gives the URL's host a default port but an addr option none, and dials without one
	// fail only when used.
	for _, a := range addrs {
		if host, _, err := net.SplitHostPort(a); err != nil || host == "" {
			return Config{}, fmt.Errorf("%w: address %q, want host:port", ErrInvalidURL, a)
		}
	}
	c.setDefaults()
	return c, nil
}

func (c *Config) setDefaults() {
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
	// go-redis's own retries (5 dials 100ms apart, 3 commands) outlast a rate-limit decision's 100ms: against
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
func (c Config) NewClient() redis.UniversalClient {
	switch {
	case c.Single != nil:
		return redis.NewClient(c.Single)
	case c.Cluster != nil:
		return redis.NewClusterClient(c.Cluster)
	default:
		return redis.NewFailoverClient(c.Sentinel)
	}
}

// Open is ParseURL followed by NewClient.
func Open(raw string) (redis.UniversalClient, error) {
	c, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	return c.NewClient(), nil
}

// SetLogger sends go-redis's own log lines (one per failed dial, so one per retry while
// Redis is down) to logger at Debug, leaving its users' throttled warnings as the visible ones.
// go-redis has one logger per process, so this is global; call it once at start-up.
func SetLogger(logger *zap.Logger) {
	redis.SetLogger(redisLogger{logger.Sugar()})
}

type redisLogger struct{ s *zap.SugaredLogger }

func (l redisLogger) Printf(_ context.Context, format string, v ...any) {
	l.s.Debugf(format, v...)
}
