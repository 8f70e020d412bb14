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
	"mediagw/search/text"
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
	// Lists, when true, has the chain keep the whole lists of the version served (Chain.Lists):
	// for a backend whose lists are kept per version, by the cache or by the backend itself.
	Lists bool
	// Log, when not nil, hears when the operators' rules cannot be read, and when they can again,
	// and when the whole lists cannot be counted.
	Log *zap.Logger
}

// Chain is a backend with its layers, the outermost first:
//
//	spell   the did-you-mean (Correct), from the words of the live version
//	cache   answers kept per live version; a call it must make goes down the chain
//	meter   the time and failures of the calls that reach admission: engine time
//	admit   at most so many engine calls at once, a short queue, the rest refused
//	breaker fails calls at once while the engine fails (engines only)
//	backend search/bleve or search/elastic
//
// The live version is asked of the layer right above the backend: through the breaker, neither
// admitted nor metered, so that a version check never waits behind searches. A backend that would
// ask for it on a request's path (search.VersionReader) reads it from the chain's owner instead.
// The operators' rules are read beside it from the backend's store (curation.Store), not through
// the breaker (a store that refuses the read says nothing of searches), and handed to each query
// from the same owner's snapshot (search.Request.Curation): no layer or backend keeps its own. So
// are the languages the index holds, whose stems a search's words are matched against
// (search.Request.Held), asked of the layer right above the backend once per version. The whole
// lists of the version served (Options.Lists) are asked of the meter, below the cache (whose call
// timeout is a visitor's), and indexed once per version, before they are served.
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
	// lists owns the whole lists of the version served; nil without Options.Lists.
	lists *lists
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
	o.Live.Languages = heldLanguages(next)
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
	if o.Lists {
		c.lists = newLists(metered, c.Live.Named, o.Log)
	}
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

// Search is the speller's, with the rules and languages of the live snapshot (Request.Serve), the
// rules the answer says it was found under (Result.Curation).
func (c *Chain) Search(ctx context.Context, r *search.Request) (search.Result, error) {
	c.serve(r)
	res, err := c.Speller.Search(ctx, r)
	if err != nil {
		return res, err
	}
	res.Curation = r.Curation
	return res, nil
}

// Totals is the speller's, with the rules and languages of the live snapshot.
func (c *Chain) Totals(ctx context.Context, r *search.Request, alts []search.Alternative, m search.Matches) ([]int, error) {
	c.serve(r)
	return c.Speller.Totals(ctx, r, alts, m)
}

// Correct is the speller's, with the rules and languages of the live snapshot: a word the rules
// name is never corrected, and the alternatives are counted under them; a request the chain
// searched keeps what it was answered under.
func (c *Chain) Correct(ctx context.Context, r *search.Request) (string, error) {
	c.serve(r)
	return c.Speller.Correct(ctx, r)
}

// serve hands r the rules and the languages held of the live snapshot; a new version seen starts
// the build of its lists.
func (c *Chain) serve(r *search.Request) {
	s := c.Live.Snapshot()
	r.Serve(s.Curation(), s.Languages)
	if c.lists != nil {
		c.lists.notice(s.Named)
	}
}

// Ping is the speller's. A chain that keeps the whole lists learns the version served first and
// starts the build of its lists, so that a replica's first readiness check starts their count.
func (c *Chain) Ping(ctx context.Context) error {
	if err := c.Speller.Ping(ctx); err != nil {
		return err
	}
	if c.lists == nil {
		return nil
	}
	if _, err := c.Live.Ask(ctx); err != nil {
		return fmt.Errorf("index version: %w", err)
	}
	c.lists.get()
	return nil
}

// Lists returns the whole lists held, nil while none are built or without Options.Lists: those
// of the version served, or for the seconds until its own are built, of the version served
// before. Asking starts the build of the version served's lists when they are not held.
func (c *Chain) Lists() *search.Lists {
	if c.lists == nil {
		return nil
	}
	return c.lists.get()
}

// ListsSettled reports whether no build of the whole lists runs and one has ended, built or
// failed, for a reader that must know when they have landed (tests).
func (c *Chain) ListsSettled() bool {
	if c.lists == nil {
		return true
	}
	c.lists.mu.Lock()
	defer c.lists.mu.Unlock()
	return !c.lists.building && (c.lists.held != nil || !c.lists.failedAt.IsZero())
}

// KeepsLists reports whether the chain keeps the whole lists (Options.Lists): a replica is then
// ready only once it holds them.
func (c *Chain) KeepsLists() bool { return c.lists != nil }

// heldLanguages asks b which languages with a stemmer its index holds: those among the language
// facet's values, and when the facet lists as many values as it may, each language it leaves out
// by a search of it alone.
func heldLanguages(b search.Backend) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) (langs []string, err error) {
		// Asked in the background, where no request's recovery would catch a backend's panic.
		defer func() {
			if r := recover(); r != nil {
				langs, err = nil, fmt.Errorf("languages held: panic: %v", r)
			}
		}()
		q := search.Query{Facets: search.FacetSet(search.FacetLanguage), PerPage: 1}
		q.Normalize()
		res, err := b.Search(ctx, search.NewRequest(q))
		if err != nil {
			return nil, fmt.Errorf("languages held: %w", err)
		}
		values := res.Facets[search.FacetLanguage]
		out := []string{}
		for _, lang := range text.StemLanguages {
			held := slices.ContainsFunc(values, func(v search.FacetValue) bool { return v.Value == lang && v.Count > 0 })
			if !held && len(values) >= search.MaxFacetValues {
				one := q
				one.Facets, one.Language = 0, search.ListOf(lang)
				r, err := b.Search(ctx, search.NewRequest(one))
				if err != nil {
					return nil, fmt.Errorf("languages held: %s: %w", lang, err)
				}
				held = r.Total > 0
			}
			if held {
				out = append(out, lang)
			}
		}
		return out, nil
	}
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
