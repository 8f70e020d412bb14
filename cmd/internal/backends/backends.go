// Package backends opens the search backend the settings name, for both binaries: one table of
// each backend's name (config.Backends) and how to open it to serve (mediagw) and to manage its
// index versions (mediactl).
package backends

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/config"
	"mediagw/search"
	"mediagw/search/admit"
	blevebackend "mediagw/search/bleve"
	"mediagw/search/breaker"
	"mediagw/search/cache"
	"mediagw/search/chain"
	"mediagw/search/elastic"
	"mediagw/search/elastic/mappings"
	"mediagw/search/live"
	"mediagw/search/spell"
)

// opener opens one backend.
type opener struct {
	// serve opens it to answer the API, its metrics going to reg, with the layers of the chain
	// its kind needs (a breaker, how its version is asked, the speller's matches); the function
	// it returns releases it.
	serve func(ctx context.Context, cfg config.Config, log *zap.Logger, reg prometheus.Registerer) (search.Backend, chain.Options, func(), error)
	// admin opens it to load, list and roll back index versions, logging to log while it waits
	// for an engine.
	admin func(ctx context.Context, cfg config.Config, log *zap.Logger) (search.Admin, error)
	// engine is the search/elastic configuration of an engine backend, nil for the embedded one.
	engine func(cfg config.Config) elastic.Config
	// inflightPerCPU sizes the bound on engine calls in progress when the settings leave it to
	// the backend (MaxInflight).
	inflightPerCPU int
}

// openers has an entry for every name of config.Backends (a test holds them equal).
var openers = map[string]opener{
	config.BackendEmbedded: {
		serve: serveEmbedded,
		admin: func(_ context.Context, cfg config.Config, _ *zap.Logger) (search.Admin, error) {
			return blevebackend.NewLoader(cfg.IndexDir, cfg.KeepIndices), nil
		},
		// It searches on this process' CPUs. Two calls per CPU, not one: with one, as many long
		// calls as CPUs hold every slot for longer than a waiting call may wait, and short ones
		// are refused; with two the scheduler shares the CPUs among them (docs/attack.md).
		inflightPerCPU: 2,
	},
	config.BackendOpenSearch:    engineOpener(engineSettings(elastic.OpenSearch)),
	config.BackendElasticsearch: engineOpener(engineSettings(elastic.Elasticsearch)),
}

// engineSettings reads the engine settings (MEDIA_ENGINE_*), the same for either product p.
func engineSettings(p elastic.Product) func(config.Config) elastic.Config {
	return func(cfg config.Config) elastic.Config {
		a := cfg.EngineAuth
		return elastic.Config{Product: p, URLs: config.SplitList(cfg.EngineURL), Alias: cfg.EngineIndex,
			Username: a.Username, Password: a.Password, APIKey: a.APIKey, CAFile: a.CAFile, DiscoverInterval: cfg.EngineDiscover}
	}
}

// engineOpener is the opener of an engine backend whose settings conf reads.
func engineOpener(conf func(config.Config) elastic.Config) opener {
	return opener{
		serve: func(ctx context.Context, cfg config.Config, log *zap.Logger, reg prometheus.Registerer) (search.Backend, chain.Options, func(), error) {
			return serveEngine(ctx, cfg, conf, log, reg)
		},
		admin: func(ctx context.Context, cfg config.Config, log *zap.Logger) (search.Admin, error) {
			b, err := newEngine(cfg, conf)
			if err != nil {
				return nil, err
			}
			ctx, cancel := context.WithTimeout(ctx, detectWithin)
			defer cancel()
			if _, err := detect(ctx, cfg, b, log); err != nil {
				b.Close()
				return nil, err
			}
			return b, nil
		},
		engine: conf,
		// The engine works on its own nodes while a call here waits on the network; reading its
		// answer is a small part of a call's time.
		inflightPerCPU: 8,
	}
}

func lookup(name string) (opener, error) {
	o, ok := openers[name]
	if !ok {
		return opener{}, fmt.Errorf("unknown backend %q", name)
	}
	return o, nil
}

// Open opens the configured backend to serve the API until ctx ends, in front of it the chain of
// layers (search/chain) the settings ask for, its cache capped at cacheBytes, registering their
// metrics with reg; the returned function releases it.
func Open(ctx context.Context, cfg config.Config, log *zap.Logger, reg prometheus.Registerer, cacheBytes int64) (*chain.Chain, func(), error) {
	o, err := lookup(cfg.Backend)
	if err != nil {
		return nil, nil, err
	}
	inflight, err := MaxInflight(cfg)
	if err != nil {
		return nil, nil, err
	}
	b, layers, closeBackend, err := o.serve(ctx, cfg, log, reg)
	if err != nil {
		return nil, nil, err
	}
	layers.Admit = admit.Options{Limit: inflight, Wait: cfg.AdmitWait}
	if cfg.Cache {
		layers.Lists = true
		layers.Cache = &cache.Options{TTL: cfg.CacheTTL, StaleMax: cfg.StaleMax, CallTimeout: cfg.BackendTimeout, MaxBytes: cacheBytes}
	}
	layers.Live.Timeout, layers.Metrics, layers.Log = cfg.BackendTimeout, reg, log
	c, err := chain.New(b, layers)
	if err != nil {
		closeBackend()
		return nil, nil, err
	}
	return c, closeBackend, nil
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

// OpenAdmin opens the configured backend to manage its index versions, waiting for an engine
// until ctx ends or detectWithin passes and logging to log while it waits.
func OpenAdmin(ctx context.Context, cfg config.Config, log *zap.Logger) (search.Admin, error) {
	o, err := lookup(cfg.Backend)
	if err != nil {
		return nil, err
	}
	return o.admin(ctx, cfg, log)
}

// Engine makes the engine backend (OpenSearch or Elasticsearch) cfg names, with what tune changes of
// its settings (the load benchmark's bulk sizes); it does not contact the engine.
func Engine(cfg config.Config, tune ...func(*elastic.Config)) (*elastic.Backend, error) {
	o, err := lookup(cfg.Backend)
	if err != nil {
		return nil, err
	}
	if o.engine == nil {
		return nil, fmt.Errorf("MEDIA_BACKEND=%s is no search engine", cfg.Backend)
	}
	return newEngine(cfg, o.engine, tune...)
}

// EngineConfig is the settings of the engine backend cfg names, OpenSearch's for the embedded one
// (the benchmark's direct baseline is an engine's).
func EngineConfig(cfg config.Config) elastic.Config {
	o, err := lookup(cfg.Backend)
	if err != nil || o.engine == nil {
		o = openers[config.BackendOpenSearch]
	}
	return o.engine(cfg)
}

// EngineAddress is the first URL and the alias of EngineConfig.
func EngineAddress(cfg config.Config) (url, alias string) {
	c := EngineConfig(cfg)
	if len(c.URLs) == 0 {
		return "", c.Alias
	}
	return c.URLs[0], c.Alias
}

// newEngine makes the engine backend of cfg whose settings conf reads.
func newEngine(cfg config.Config, conf func(config.Config) elastic.Config, tune ...func(*elastic.Config)) (*elastic.Backend, error) {
	oc := conf(cfg)
	oc.Timeout, oc.Keep = cfg.BackendTimeout, cfg.KeepIndices
	m, err := Definition(cfg, cfg.EngineMapping)
	if err != nil {
		return nil, err
	}
	oc.Mapping = m
	for _, t := range tune {
		t(&oc)
	}
	b, err := elastic.New(oc)
	if err != nil {
		return nil, fmt.Errorf("%s backend: %w", cfg.Backend, err)
	}
	return b, nil
}

// Definition is the index definition new indices get: the file at path (the built-in one when
// path is empty) with cfg's shards and replicas over its own.
func Definition(cfg config.Config, path string) ([]byte, error) {
	def := mappings.Items
	if path != "" {
		var err error
		if def, err = mappings.Read(path); err != nil {
			return nil, err
		}
	}
	def, err := mappings.WithCopies(def, cfg.EngineShards, cfg.EngineReplicas)
	if err != nil {
		return nil, fmt.Errorf("shards and replicas: %w", err)
	}
	return def, nil
}

// detectWithin bounds how long opening an engine backend waits for the engine to say what it is:
// an engine started beside the gateway (compose, a pod's restart) takes some seconds to answer.
const detectWithin = 30 * time.Second

// waitNote is how often detect says it still waits for the engine.
const waitNote = 2 * time.Second

// detect reads what engine b talks to, asking again each second while it gives no answer (until
// ctx ends), and refuses a wrong product or version, or refused credentials, at once. While it
// waits it logs why, at once and every waitNote, so that a wait is never silent.
func detect(ctx context.Context, cfg config.Config, b *elastic.Backend, log *zap.Logger) (elastic.Engine, error) {
	start := time.Now()
	var noted time.Time
	for {
		e, err := b.Detect(ctx)
		var mismatch *elastic.MismatchError
		var auth *elastic.AuthError
		switch {
		case err == nil:
			return e, nil
		case errors.As(err, &mismatch), errors.As(err, &auth):
			return e, fmt.Errorf("MEDIA_BACKEND=%s: %w", cfg.Backend, err)
		}
		if time.Since(noted) >= waitNote {
			noted = time.Now()
			deadline, _ := ctx.Deadline()
			log.Info("waiting for the search engine", zap.String("backend", cfg.Backend), zap.Error(err),
				zap.Duration("waited", noted.Sub(start).Round(time.Second)), zap.Duration("gives_up_in", time.Until(deadline).Round(time.Second)))
		}
		select {
		case <-ctx.Done():
			return e, fmt.Errorf("MEDIA_BACKEND=%s: cannot tell what engine answers: %w", cfg.Backend, err)
		case <-time.After(time.Second):
		}
	}
}

// serveEngine opens the engine backend cfg names, once the engine says it is the one named in a
// version served (the mediagw_engine_info metric says which), behind a circuit breaker (unless
// BreakerFailures is 0), so that an engine that hangs or cannot be reached costs requests no
// deadline once it has failed repeatedly.
func serveEngine(ctx context.Context, cfg config.Config, conf func(config.Config) elastic.Config, log *zap.Logger,
	reg prometheus.Registerer) (search.Backend, chain.Options, func(), error) {
	layers := chain.Options{Live: live.Options{Every: live.DefaultEvery}}
	b, err := newEngine(cfg, conf)
	if err != nil {
		return nil, layers, nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, detectWithin)
	e, err := detect(dctx, cfg, b, log)
	cancel()
	if err != nil {
		b.Close()
		return nil, layers, nil, err
	}
	log.Info("search engine", zap.String("engine", string(e.Product)), zap.String("version", e.Version))
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "mediagw_engine_info",
		Help:        "The search engine the gateway serves from: its product and version (always 1).",
		ConstLabels: prometheus.Labels{"engine": string(e.Product), "version": e.Version}})
	info.Set(1)
	if err := reg.Register(info); err != nil {
		b.Close()
		return nil, layers, nil, fmt.Errorf("register engine metrics: %w", err)
	}
	if cfg.BreakerFailures != 0 {
		layers.Breaker = &breaker.Options{Failures: cfg.BreakerFailures, OpenFor: cfg.BreakerOpen, Log: log.Named("breaker")}
	}
	return b, layers, func() { b.Close() }, nil
}

// reloadEvery is how often a server looks for a new embedded index version.
const reloadEvery = 2 * time.Second

// serveEmbedded opens the embedded index and follows reloads of its directory, so that a
// `mediactl load` goes live without a restart. It needs no circuit breaker: it runs in the
// process, and knows its version without a call. It counts a correction's words by its own term
// dictionaries, so the speller lists no matches. It keeps its lists per version itself, so the
// chain keeps them indexed, cache or not.
func serveEmbedded(ctx context.Context, cfg config.Config, log *zap.Logger, _ prometheus.Registerer) (search.Backend, chain.Options, func(), error) {
	layers := chain.Options{Spell: spell.Options{NoMatches: true}, Lists: true}
	b, err := blevebackend.Open(cfg.IndexDir)
	if err != nil {
		return nil, layers, nil, fmt.Errorf("embedded index in %s: %w (build one with: mediactl load FILE)", cfg.IndexDir, err)
	}
	watchCtx, cancel := context.WithCancel(ctx)
	go watchIndex(watchCtx, b, log)
	return b, layers, func() { cancel(); b.Close() }, nil
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
				v, _ := b.Version(ctx)
				log.Info("index reloaded", zap.String("index", v))
			}
		}
	}
}
