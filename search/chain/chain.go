// Package chain builds the layers in front of a search backend, in one place and one order, so
// that the order is read here rather than pieced together from where each layer is made. It is a
// package of its own, not part of cmd/internal/backends, because the layers are search's: the
// order holds for whichever backend the settings open, and tests build the same chain.
package chain

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/breaker"
	"mediagw/search/cache"
	"mediagw/search/curation"
	"mediagw/search/live"
	"mediagw/search/meter"
	"mediagw/search/spell"
)

// Options say which layers a chain has and how each is tuned.
type Options struct {
	// Breaker, when not nil, puts a circuit breaker in front of the backend: an engine reached
	// over the network.
	Breaker *breaker.Options
	// Live says how the index version is asked (live.Options.Every 0 for a backend that knows it
	// without a call); its Rules are the backend's store's.
	Live live.Options
	// Admit bounds the engine calls in progress.
	Admit admit.Options
	// Cache, when not nil, keeps answers in memory; its Live is the chain's.
	Cache *cache.Options
	// Spell tunes the did-you-mean; its Live is the chain's.
	Spell spell.Options
	// Metrics, when not nil, receives every layer's metrics.
	Metrics prometheus.Registerer
	// Log, when not nil, hears when the operators' rules cannot be read, and when they can again.
	Log *zap.Logger
}

// Chain is a backend with its layers, the outermost first:
//
//	spell   the did-you-mean (Correct), from the words of the live version
//	cache   answers kept per live version; a call it must make goes down the chain
//	meter   the time and failures of the calls that reach admission: engine time
//	admit   at most so many engine calls at once, a short queue, the rest refused
//	breaker fails calls at once while the engine fails (engines only)
//	backend search/bleve or search/engine
//
// The live version is asked of the layer right above the backend: through the breaker, neither
// admitted nor metered, so that a version check never waits behind searches. A backend that would
// ask for it on a request's path (search.VersionReader) reads it from the chain's owner instead.
// The operators' rules are read beside it from the backend's store (curation.Store), not through
// the breaker (a store that refuses the read says nothing of searches), and handed to each query
// from the same owner's snapshot (search.Query.Curation): no layer or backend keeps its own.
type Chain struct {
	// Speller is the top of the chain: the search.Backend the gateway asks.
	*spell.Speller
	// Live is the owner of the index version and the rules served, which the cache, the speller,
	// the backend and the chain's own calls read.
	Live *live.Version
	// Cache is the cache layer, nil without one.
	Cache *cache.Backend
	// Layers names the layers New built, the outermost first, each by its package (search/...).
	Layers []string
}

// New builds the chain in front of b.
func New(b search.Backend, o Options) (*Chain, error) {
	reg := o.Metrics
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	var next search.Backend = b
	var layers []string // the innermost first, as built
	if o.Breaker != nil {
		cb := breaker.New(next, *o.Breaker)
		if err := reg.Register(cb); err != nil {
			return nil, fmt.Errorf("register breaker metrics: %w", err)
		}
		next = cb
		layers = append(layers, "breaker")
	}
	if store, ok := b.(curation.Store); ok {
		reads := newRulesReads(o.Log)
		if err := reg.Register(reads.failures); err != nil {
			return nil, fmt.Errorf("register rules metrics: %w", err)
		}
		o.Live.Rules, o.Live.RulesRead = store.Rules, reads.observe
	}
	c := &Chain{Live: live.New(next.Version, o.Live)}
	if r, ok := b.(search.VersionReader); ok {
		r.ReadVersionFrom(c.Live)
	}
	admitted := admit.New(next, o.Admit)
	if err := reg.Register(admitted); err != nil {
		return nil, fmt.Errorf("register admission metrics: %w", err)
	}
	metered := meter.New(admitted)
	if err := reg.Register(metered); err != nil {
		return nil, fmt.Errorf("register engine call metrics: %w", err)
	}
	next = metered
	layers = append(layers, "admit", "meter")
	if o.Cache != nil {
		opts := *o.Cache
		opts.Live = c.Live
		c.Cache = cache.New(next, opts)
		if err := reg.Register(c.Cache); err != nil {
			return nil, fmt.Errorf("register cache metrics: %w", err)
		}
		next = c.Cache
		layers = append(layers, "cache")
	}
	o.Spell.Live = c.Live
	c.Speller = spell.New(next, o.Spell)
	c.Layers = append(layers, "spell")
	slices.Reverse(c.Layers)
	return c, nil
}

// Search is the speller's, with the rules of the live snapshot, which the answer says it was
// found under (Result.Curation).
func (c *Chain) Search(ctx context.Context, q search.Query) (search.Result, error) {
	q.Curation = c.Live.Snapshot().Curation()
	res, err := c.Speller.Search(ctx, q)
	if err != nil {
		return res, err
	}
	res.Curation = q.Curation
	return res, nil
}

// Totals is the speller's, with the rules of the live snapshot.
func (c *Chain) Totals(ctx context.Context, q search.Query, alts []search.Alternative, m search.Matches) ([]int, error) {
	q.Curation = c.Live.Snapshot().Curation()
	return c.Speller.Totals(ctx, q, alts, m)
}

// Correct is the speller's, with the rules of the live snapshot: a word they name is never
// corrected, and the alternatives are counted under them.
func (c *Chain) Correct(ctx context.Context, q search.Query) (string, error) {
	q.Curation = c.Live.Snapshot().Curation()
	return c.Speller.Correct(ctx, q)
}

// ReadinessDetail says, while the operators' rules cannot be read, since when and that the set
// read before is served; "" otherwise.
func (c *Chain) ReadinessDetail() string {
	s := c.Live.Snapshot()
	if s.RulesErr == nil {
		return ""
	}
	set := "none"
	if d := s.Rules.Digest(); d != "" {
		set = "set " + d
	}
	return fmt.Sprintf("the operators' synonyms and pins cannot be read since %s; serving the ones read before (%s)",
		s.RulesFailing.UTC().Format(time.RFC3339), set)
}

// rulesReads counts the failed reads of the rules and logs when they start and stop failing.
type rulesReads struct {
	log      *zap.Logger
	failures prometheus.Counter

	mu      sync.Mutex
	failing bool
}

func newRulesReads(log *zap.Logger) *rulesReads {
	if log == nil {
		log = zap.NewNop()
	}
	return &rulesReads{log: log, failures: prometheus.NewCounter(prometheus.CounterOpts{
		Name: "mediagw_rules_read_failures_total",
		Help: "Reads of the operators' synonyms and pins that failed; the set read before stays served.",
	})}
}

func (r *rulesReads) observe(err error) {
	if err != nil {
		r.failures.Inc()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil && !r.failing:
		r.log.Warn("the operators' rules cannot be read; serving the ones read before", zap.Error(err))
	case err == nil && r.failing:
		r.log.Info("the operators' rules are read again")
	}
	r.failing = err != nil
}
