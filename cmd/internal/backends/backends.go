// Package backends opens the search backend the settings name, for both binaries: one table of
// each backend's name (config.Backends) and how to open it to serve (mediagw) and to manage its
// index versions (mediactl).
package backends

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/config"
	"mediagw/mappings"
	"mediagw/search"
	blevebackend "mediagw/search/bleve"
	"mediagw/search/breaker"
	"mediagw/search/engine"
)

// opener opens one backend.
type opener struct {
	// serve opens it to answer the API, its metrics going to reg; the function it returns releases it.
	serve func(ctx context.Context, cfg config.Config, log *zap.Logger, reg prometheus.Registerer) (search.Backend, func(), error)
	// admin opens it to load, list and roll back index versions.
	admin func(cfg config.Config) (search.Admin, error)
	// inflightPerCPU sizes the bound on engine calls in progress when the settings leave it to
	// the backend (MaxInflight).
	inflightPerCPU int
}

// openers has an entry for every name of config.Backends (a test holds them equal).
var openers = map[string]opener{
	config.BackendEmbedded: {
		serve: serveEmbedded,
		admin: func(cfg config.Config) (search.Admin, error) {
			return blevebackend.NewLoader(cfg.IndexDir, cfg.KeepIndices), nil
		},
		// It searches on this process' CPUs: one call per CPU keeps them busy, and more only
		// share them, each answer later and the heap larger.
		inflightPerCPU: 1,
	},
	config.BackendOpenSearch: {
		serve: serveOpenSearch,
		admin: func(cfg config.Config) (search.Admin, error) { return OpenSearch(cfg) },
		// The engine works on its own nodes while a call here waits on the network; reading its
		// answer is a small part of a call's time.
		inflightPerCPU: 8,
	},
}

func lookup(name string) (opener, error) {
	o, ok := openers[name]
	if !ok {
		return opener{}, fmt.Errorf("unknown backend %q", name)
	}
	return o, nil
}

// Open opens the configured backend to serve the API until ctx ends, registering its metrics
// with reg; the returned function releases it.
func Open(ctx context.Context, cfg config.Config, log *zap.Logger, reg prometheus.Registerer) (search.Backend, func(), error) {
	o, err := lookup(cfg.Backend)
	if err != nil {
		return nil, nil, err
	}
	return o.serve(ctx, cfg, log, reg)
}

// MaxInflight is how many engine calls may run at once: cfg.MaxInflight, or when that is 0 the
// configured backend's share of GOMAXPROCS.
func MaxInflight(cfg config.Config) (int, error) {
	if cfg.MaxInflight > 0 {
		return cfg.MaxInflight, nil
	}
	o, err := lookup(cfg.Backend)
	if err != nil {
		return 0, err
	}
	return o.inflightPerCPU * runtime.GOMAXPROCS(0), nil
}

// OpenAdmin opens the configured backend to manage its index versions.
func OpenAdmin(cfg config.Config) (search.Admin, error) {
	o, err := lookup(cfg.Backend)
	if err != nil {
		return nil, err
	}
	return o.admin(cfg)
}

// OpenSearch makes the OpenSearch backend of cfg, with what tune changes of its settings (the
// load benchmark's bulk sizes); it does not contact the engine.
func OpenSearch(cfg config.Config, tune ...func(*engine.Config)) (*engine.Backend, error) {
	oc := engine.Config{
		URLs:    config.SplitList(cfg.OpenSearchURL),
		Alias:   cfg.OpenSearchIndex,
		Timeout: cfg.BackendTimeout,
		Keep:    cfg.KeepIndices,

		DiscoverInterval: cfg.OpenSearchDiscover,
	}
	if cfg.OpenSearchMapping != "" {
		m, err := mappings.Read(cfg.OpenSearchMapping)
		if err != nil {
			return nil, err
		}
		oc.Mapping = m
	}
	for _, t := range tune {
		t(&oc)
	}
	b, err := engine.New(oc)
	if err != nil {
		return nil, fmt.Errorf("opensearch backend: %w", err)
	}
	return b, nil
}

// serveOpenSearch opens OpenSearch behind a circuit breaker (unless BreakerFailures is 0), so
// that an engine that hangs or cannot be reached costs requests no deadline once it has failed
// repeatedly.
func serveOpenSearch(_ context.Context, cfg config.Config, log *zap.Logger, reg prometheus.Registerer) (search.Backend, func(), error) {
	b, err := OpenSearch(cfg)
	if err != nil {
		return nil, nil, err
	}
	if cfg.BreakerFailures == 0 {
		return b, func() { b.Close() }, nil
	}
	cb := breaker.New(b, breaker.Options{Failures: cfg.BreakerFailures, OpenFor: cfg.BreakerOpen, Log: log.Named("breaker")})
	if err := reg.Register(cb); err != nil {
		b.Close()
		return nil, nil, fmt.Errorf("register breaker metrics: %w", err)
	}
	return cb, func() { b.Close() }, nil
}

// reloadEvery is how often a server looks for a new embedded index version.
const reloadEvery = 2 * time.Second

// serveEmbedded opens the embedded index and follows reloads of its directory, so that a
// `mediactl load` goes live without a restart. It needs no circuit breaker: it runs in the process.
func serveEmbedded(ctx context.Context, cfg config.Config, log *zap.Logger, _ prometheus.Registerer) (search.Backend, func(), error) {
	b, err := blevebackend.Open(cfg.IndexDir)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded index in %s: %w (build one with: mediactl load FILE)", cfg.IndexDir, err)
	}
	watchCtx, cancel := context.WithCancel(ctx)
	go watchIndex(watchCtx, b, log)
	return b, func() { cancel(); b.Close() }, nil
}

func watchIndex(ctx context.Context, b *blevebackend.Backend, log *zap.Logger) {
	tick := time.NewTicker(reloadEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			changed, err := b.Reload(ctx)
			switch {
			case err != nil:
				log.Warn("index reload failed; still serving the previous index", zap.Error(err))
			case changed:
				log.Info("index reloaded", zap.String("index", b.Version()))
			}
		}
	}
}
