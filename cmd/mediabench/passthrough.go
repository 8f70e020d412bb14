package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"mediagw/bench"
	"mediagw/cmd/internal/backends"
	"mediagw/ratelimit"
	"mediagw/redisconn"
	"mediagw/search/elastic"
)

// passthroughFlags are the flags of `mediabench passthrough`.
type passthroughFlags struct {
	listen string
	limit  bool
}

func passthroughFlagSet(fs *flag.FlagSet, e *env) {
	fs.StringVar(&e.passthrough.listen, "listen", "127.0.0.1:9201", "address to listen on")
	fs.BoolVar(&e.passthrough.limit, "limit", false, "first ask the rate limit in Redis (REDIS_URL, MEDIA_RATE_LIMIT, MEDIA_RATE_WINDOW) for each request, as mediagw does")
}

// runPassthrough serves bench.Passthrough in front of the engine until ctx ends, over the
// connections the gateway's engine backend makes (elastic.NewTransport).
func runPassthrough(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: passthrough takes flags only, got %q", errUsage, args)
	}
	ec := backends.EngineConfig(e.cfg)
	if len(ec.URLs) == 0 {
		return fmt.Errorf("%w: no engine URL", errUsage)
	}
	upstream, err := url.Parse(ec.URLs[0])
	if err != nil || upstream.Host == "" {
		return fmt.Errorf("%w: engine URL %q: want an http(s) URL", errUsage, ec.URLs[0])
	}
	transport, err := elastic.NewTransport(ec)
	if err != nil {
		return fmt.Errorf("passthrough: %w", err)
	}
	var limit bench.Limiter
	if e.passthrough.limit {
		if e.cfg.RedisURL == "" {
			return fmt.Errorf("%w: -limit needs REDIS_URL", errUsage)
		}
		client, err := redisconn.Open(e.cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("passthrough: %w", err)
		}
		defer client.Close()
		// Its own keys: a gateway on the same Redis counts the same visitors apart.
		limiter, err := ratelimit.NewRedis(client, ratelimit.Policy{Limit: e.cfg.RateLimit, Window: e.cfg.RateWindow},
			ratelimit.WithPrefix("passthrough:"))
		if err != nil {
			return fmt.Errorf("passthrough: %w", err)
		}
		limit = limiter
	}
	ln, err := net.Listen("tcp", e.passthrough.listen)
	if err != nil {
		return fmt.Errorf("passthrough: %w", err)
	}
	srv := &http.Server{Handler: bench.Passthrough(upstream, transport, limit), ReadHeaderTimeout: e.cfg.HeaderTimeout}
	e.log.Info("passthrough: forwarding to the engine", zap.String("listen", ln.Addr().String()),
		zap.String("engine", upstream.Redacted()), zap.Bool("rate_limit", limit != nil))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("passthrough: %w", err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		return fmt.Errorf("passthrough: shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("passthrough: %w", err)
	}
	return nil
}
