// Command mediagw serves the public API: it reads its settings, opens the search backend and the
// rate limiter, and runs the public and admin listeners until SIGTERM, then drains.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"mediagw/cmd/internal/backends"
	"mediagw/cmd/internal/buildinfo"
	"mediagw/config"
	"mediagw/demo"
	"mediagw/gateway"
	"mediagw/openapi"
	"mediagw/ratelimit"
	"mediagw/redisconn"
	"mediagw/search/chain"
	"mediagw/search/spell"
)

func main() {
	// The first signal starts the drain; the default action is restored before the drain can
	// begin, so a second signal ends the process at once (Ctrl-C twice on a laptop).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel()
	}()
	if buildinfo.Requested(os.Args[1:]) {
		buildinfo.Print(os.Stdout, "mediagw")
		return
	}
	run := run
	if len(os.Args) > 1 && os.Args[1] == "healthcheck" {
		os.Args = append(os.Args[:1], os.Args[2:]...)
		run = healthcheck
	}
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "mediagw:", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. ready, when not nil, receives the listeners' addresses once both listen.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, ready func(public, admin net.Addr)) error {
	cfg, rest, err := config.Load("mediagw", args, getenv, stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	log := newLogger(stderr, cfg.LogLevel)
	defer log.Sync() //nolint:errcheck // nothing useful to do if stderr fails
	reg := newRegistry()
	// First: a bad policies file stops the server before anything slower starts.
	policies, stopPolicies, err := openPolicies(ctx, cfg, log, reg)
	if err != nil {
		return err
	}
	defer stopPolicies()

	mem, gcPct := applyMemoryLimit(getenv, log)
	inflight, err := backends.MaxInflight(cfg)
	if err != nil {
		return err
	}
	cacheMax := cacheBytes(cfg, mem)
	backend, closeBackend, err := backends.Open(ctx, cfg, log, reg, cacheMax)
	if err != nil {
		return err
	}
	defer closeBackend()
	warm(ctx, cfg, backend, log)

	// One client, so one pool of connections, for every user of Redis in the process; closed last.
	rdb, closeRedis, err := openRedis(cfg, log)
	if err != nil {
		return err
	}
	defer closeRedis()
	limiter, err := openLimiter(cfg, rdb, log, reg)
	if err != nil {
		return err
	}
	queries, closeQueries, err := openQueryLog(cfg, rdb, log, reg)
	if err != nil {
		return err
	}
	defer closeQueries()
	gcfg := gatewayConfig(cfg, reg)
	gcfg.Queries = queries
	gcfg.Policies = policies
	gw, err := gateway.New(gcfg, backend, limiter, log)
	if err != nil {
		return err
	}
	public, admin, err := listen(cfg, gw, reg, log)
	if err != nil {
		return err
	}

	errc := make(chan error, 2)
	go func() { errc <- serve(public.server, public.ln) }()
	go func() { errc <- serve(admin.server, admin.ln) }()
	log.Info("serving", zap.String("addr", public.ln.Addr().String()), zap.String("admin_addr", admin.ln.Addr().String()),
		zap.String("backend", cfg.Backend), zap.Bool("shared_rate_limit", cfg.RedisURL != ""),
		zap.Int64("memory_limit_bytes", mem.Bytes), zap.String("memory_limit_from", mem.Source), zap.Int64("cgroup_limit_bytes", mem.Cgroup),
		zap.Int("gc_percent", gcPct),
		zap.Int64("cache_max_bytes", cacheMax), zap.Int("max_inflight", inflight), zap.Duration("admit_wait", cfg.AdmitWait))
	if ready != nil {
		ready(public.ln.Addr(), admin.ln.Addr())
	}

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return shutdown(cfg, log, gw, public.server, admin.server)
}

// newRegistry holds the process' metrics: besides the defaults, how long goroutines wait to run
// and the GC's stop-the-world pauses, as histograms: what a request's tail can wait on besides the
// gateway's own work.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	goRuntime := collectors.WithGoCollectorRuntimeMetrics(collectors.GoRuntimeMetricsRule{
		Matcher: regexp.MustCompile(`^/sched/(latencies|pauses/total/gc):seconds$`)})
	reg.MustRegister(collectors.NewGoCollector(goRuntime), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildinfo.Read().Collector())
	return reg
}

// warm learns what the first answers need before serving: the index version, so that they are
// cached (an engine not up yet is left to /readyz, whose Ping learns it too), and, in the
// background, the whole lists the chain keeps (which /readyz waits for) and the did-you-mean's
// words (a failure leaves them to the first search with a typo).
func warm(ctx context.Context, cfg config.Config, c *chain.Chain, log *zap.Logger) {
	pingCtx, cancel := context.WithTimeout(ctx, cfg.BackendTimeout)
	if err := c.Ping(pingCtx); err != nil {
		log.Warn("search engine not ready at start", zap.Error(err))
	}
	cancel()
	c.Lists()
	go func() {
		warmCtx, cancel := context.WithTimeout(ctx, spell.DefaultLoadTimeout)
		defer cancel()
		if err := c.Warm(warmCtx); err != nil {
			log.Warn("did-you-mean dictionary not loaded at start", zap.Error(err))
		}
	}()
}

// gatewayConfig is the HTTP layer's part of the settings.
func gatewayConfig(cfg config.Config, reg prometheus.Registerer) gateway.Config {
	gcfg := gateway.DefaultConfig()
	gcfg.PublicURL = cfg.PublicURL
	gcfg.BasePath = cfg.BasePath
	gcfg.TrustedProxies = cfg.TrustedProxies
	gcfg.Attribution = cfg.Attribution
	gcfg.RatePolicy = ratelimit.Policy{Limit: cfg.RateLimit, Window: cfg.RateWindow}
	gcfg.RequestTimeout = cfg.BackendTimeout
	gcfg.OpenAPI = openapi.Document
	gcfg.Demo = demo.Files()
	gcfg.DemoAPIs = cfg.DemoAPIs
	gcfg.Metrics = reg
	return gcfg
}

// listener is a server with the listener it serves.
type listener struct {
	server *http.Server
	ln     net.Listener
}

// listen opens the public listener, capped (gateway.ConnLimits), and the admin one (metrics and
// profiles).
func listen(cfg config.Config, gw *gateway.Gateway, reg *prometheus.Registry, log *zap.Logger) (public, admin listener, err error) {
	publicLn, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return public, admin, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	adminLn, err := net.Listen("tcp", cfg.AdminAddr)
	if err != nil {
		publicLn.Close()
		return public, admin, fmt.Errorf("listen on %s: %w", cfg.AdminAddr, err)
	}
	conns := gw.Listener(publicLn, gateway.ConnLimits{Max: cfg.MaxConns, PerIP: cfg.MaxConnsPerIP})
	if err := reg.Register(conns); err != nil {
		publicLn.Close()
		adminLn.Close()
		return public, admin, fmt.Errorf("register connection metrics: %w", err)
	}
	// WriteTimeout frees what a client that stops reading holds (a goroutine, a 5 MB authors list)
	// and bounds the drain; it leaves room for the backend's deadline and a slow link.
	public.server = &http.Server{Handler: gw, ReadHeaderTimeout: cfg.HeaderTimeout, ReadTimeout: cfg.ReadTimeout,
		MaxHeaderBytes: cfg.MaxHeaderBytes, IdleTimeout: 2 * time.Minute, ConnState: conns.ConnState,
		// OPTIONS * is the API's to answer (a problem with CORS), not net/http's bare 200.
		DisableGeneralOptionsHandler: true,
		WriteTimeout:                 cfg.BackendTimeout + time.Minute, ErrorLog: zap.NewStdLog(log.Named("http"))}
	public.ln = conns
	admin.server = adminServer(cfg, reg, log)
	admin.ln = adminLn
	return public, admin, nil
}

// shutdown follows what Kubernetes expects on SIGTERM: readiness fails at once so endpoints drop
// the pod, traffic keeps being served for ShutdownDelay while that propagates, then in-flight
// requests get up to ShutdownGrace to finish.
func shutdown(cfg config.Config, log *zap.Logger, gw *gateway.Gateway, public, admin *http.Server) error {
	log.Info("draining", zap.Duration("delay", cfg.ShutdownDelay), zap.Duration("grace", cfg.ShutdownGrace))
	gw.Drain()
	time.Sleep(cfg.ShutdownDelay)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	err := public.Shutdown(ctx)
	if aerr := admin.Shutdown(ctx); err == nil {
		err = aerr
	}
	if err != nil {
		// Past the grace: cut the connections left, before the backend closes under their handlers.
		return errors.Join(fmt.Errorf("shutdown: %w", err), public.Close(), admin.Close())
	}
	log.Info("stopped")
	return nil
}

func serve(s *http.Server, ln net.Listener) error {
	if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}

// newLogger writes JSON lines for log collectors.
func newLogger(w io.Writer, level string) *zap.Logger {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		lvl = zapcore.InfoLevel
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), lvl))
}

// openPolicies reads the rate-limit policies file, when one is set, and watches it until ctx ends
// or stop is called.
func openPolicies(ctx context.Context, cfg config.Config, log *zap.Logger, reg prometheus.Registerer) (_ gateway.PolicySource, stop func(), err error) {
	if cfg.RatePolicies == "" {
		return nil, func() {}, nil
	}
	f, err := ratelimit.OpenPolicyFile(cfg.RatePolicies, log.Named("ratelimit"))
	if err != nil {
		return nil, nil, err
	}
	if err := reg.Register(f); err != nil {
		return nil, nil, fmt.Errorf("register rate-limit policy metrics: %w", err)
	}
	ctx, stop = context.WithCancel(ctx)
	go f.Watch(ctx, ratelimit.PolicyPollInterval)
	return f, stop, nil
}

// openRedis returns the process' Redis client (nil without REDIS_URL) and what closes it.
func openRedis(cfg config.Config, log *zap.Logger) (redis.UniversalClient, func(), error) {
	if cfg.RedisURL == "" {
		return nil, func() {}, nil
	}
	redisconn.SetLogger(log.Named("redis"))
	client, err := redisconn.Open(cfg.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("redis: %w", err)
	}
	return client, func() { client.Close() }, nil
}

// openLimiter returns the rate limiter: in Redis through client when there is one, in front of
// the replica's visitor memory that decides while Redis fails; in that memory alone otherwise.
func openLimiter(cfg config.Config, client redis.UniversalClient, log *zap.Logger, reg prometheus.Registerer) (ratelimit.Decider, error) {
	policy := ratelimit.Policy{Limit: cfg.RateLimit, Window: cfg.RateWindow}
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	var shared ratelimit.Limiter
	if client != nil {
		r, err := ratelimit.NewRedis(client, policy)
		if err != nil {
			return nil, fmt.Errorf("redis: %w", err)
		}
		shared = r
	}
	fb := ratelimit.NewFallback(shared, ratelimit.NewMemory(policy, nil), log.Named("ratelimit"))
	if err := reg.Register(fb); err != nil {
		return nil, fmt.Errorf("register rate-limit metrics: %w", err)
	}
	if shared == nil {
		return fb, nil
	}
	// Standings and refusals of visitors known past the limit come from memory: only a request
	// that may be allowed asks Redis.
	sh := ratelimit.NewShadow(fb)
	if err := reg.Register(sh); err != nil {
		return nil, fmt.Errorf("register rate-limit metrics: %w", err)
	}
	return sh, nil
}
