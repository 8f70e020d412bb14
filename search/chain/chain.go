// Package chain builds the layers in front of a search backend, in one place and one order, so
// that the order is read here rather than pieced together from where each layer is made. It is a
// package of its own, not part of cmd/internal/backends, because the layers are search's: the
// order holds for whichever backend the settings open, and tests build the same chain.
package chain

import (
	"fmt"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

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
	// without a call); its Tag is the chain's.
	Live live.Options
	// Admit bounds the engine calls in progress.
	Admit admit.Options
	// Cache, when not nil, keeps answers in memory; its Live is the chain's.
	Cache *cache.Options
	// Spell tunes the did-you-mean; its Live is the chain's.
	Spell spell.Options
	// Metrics, when not nil, receives every layer's metrics.
	Metrics prometheus.Registerer
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
type Chain struct {
	// Speller is the top of the chain: the search.Backend the gateway asks.
	*spell.Speller
	// Live is the owner of the index version, which the cache, the speller and the backend read.
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
	rules, _ := b.(curator)
	o.Live.Tag = rulesTag(rules)
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
	if rules != nil {
		o.Spell.Curation = func() search.Curation { return rules.CurrentRules().Served() }
	}
	c.Speller = spell.New(next, o.Spell)
	c.Layers = append(layers, "spell")
	slices.Reverse(c.Layers)
	return c, nil
}

// curator is a backend that serves the operators' synonyms and pins (search/curation).
type curator interface{ CurrentRules() *curation.Rules }

// rulesTag names the operators' synonyms and pins r serves as the live version's tag: what is
// kept per version (answers, words) is then kept per set too, and a new set is served as soon as
// its version is read. Nil when the backend serves none (r nil).
func rulesTag(r curator) func() string {
	if r == nil {
		return nil
	}
	return func() string {
		if d := r.CurrentRules().Digest(); d != "" {
			return "+rules-" + d
		}
		return ""
	}
}
