// Package cache wraps a search.Backend so that repeated questions cost the engine little: categories
// and authors are computed once per index version, identical concurrent calls share one engine
// call, and recent searches and items are answered from a bounded, short-lived LRU. Answers are
// keyed by the index version, so a reload or an alias move invalidates them. When the engine
// fails, an answer past its freshness is served instead for a while (Options.StaleMax). Each
// answer notes where it came from (telemetry.NoteOrigin).
package cache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"mediagw/search"
	"mediagw/search/live"
	"mediagw/search/telemetry"
)

// Options tune a Backend. Zero values take the defaults.
type Options struct {
	// TTL is how long a Search or Item answer is served from memory (default DefaultTTL). Categories and
	// authors are kept for the whole index version instead, when the backend has one.
	TTL time.Duration
	// StaleMax is how long past its freshness an answer is still served when the engine fails or
	// times out (stale if error); 0 serves none. A stale answer is the first to go when the cache
	// needs room. Categories and authors kept for a version count from when the version was last
	// confirmed.
	StaleMax time.Duration
	// MaxEntries bounds the number of cached Search and Item answers (default 10,000).
	MaxEntries int
	// MaxBytes bounds their estimated size in memory (default 64 MiB).
	MaxBytes int64
	// Live is the owner of the backend's index version (search/live), which answers are kept
	// under; nil keeps every answer, categories and authors included, for TTL only.
	Live *live.Version
	// CallTimeout bounds an engine call shared by several callers (default search.DefaultTimeout). No single
	// caller's context governs it, so that one caller leaving does not fail the others; it is
	// cancelled when the last caller waiting on it has gone (its context cancelled, not past its
	// deadline).
	CallTimeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultTTL is how long an answer is served from memory when the operator sets nothing
// (MEDIA_CACHE_TTL): a popular search costs the engine at most one call per TTL. Answers are
// keyed by the index version, so none goes out of date while kept: the TTL only lets a rarely
// asked answer make room before the size bound evicts it, and a long one keeps more of a
// search box's repeated questions (docs/performance.md).
const DefaultTTL = 5 * time.Minute

func (o Options) withDefaults() Options {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = 10_000
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 64 << 20
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = search.DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Backend is a caching search.Backend. It is safe for concurrent use.
//
// Answers are shared between callers, from memory and from collapsed calls alike: callers must
// treat the returned slices, and the slices and pointers inside items, as read-only.
//
// Without Options.Live every answer, categories and authors included, is cached for TTL only.
// While the version is unknown (no index, or the version check failed) nothing is cached until it
// is known again.
type Backend struct {
	next    search.Backend
	opts    Options
	flights flights
	results *lru
	metrics *metrics
	// onJoin, when set by tests, runs once a caller waits on a flight.
	onJoin func()

	mu sync.Mutex
	// seen is the version the caches hold answers of; a new one empties them.
	seen string
	// pinned holds categories and authors of version seen, by key.
	pinned map[string]any
	// confirmedAt is when version seen was last known to be the one served.
	confirmedAt time.Time
}

// New wraps b. To serve without a cache, use b itself.
func New(b search.Backend, opts Options) *Backend {
	opts = opts.withDefaults()
	c := &Backend{
		next:    b,
		opts:    opts,
		results: newLRU(opts.MaxEntries, opts.MaxBytes, opts.TTL, max(opts.StaleMax, 0)),
		pinned:  map[string]any{},
	}
	c.metrics = newMetrics(c.results)
	return c
}

// Operations, as the metrics label them.
const (
	opSearch     = "search"
	opItem       = "item"
	opCategories = "categories"
	opComplete   = "complete"
	opRelated    = "related"
	opTotals     = "totals"
	opAuthors    = "authors"
)

// Search returns one page of the items matching r, kept under its key (search.Request.Key).
//
// A walk's later pages (a cursor other than search.StartCursor) are not kept: each is one step of
// one client's walk, rarely asked for again, and a walk of 100,000 items would push 2,000 of them
// through the LRU, evicting the popular searches it is for. Identical concurrent requests still
// share one engine call, the cursor being part of the key. A walk's first page is kept like any
// first page.
func (b *Backend) Search(ctx context.Context, r *search.Request) (search.Result, error) {
	v, ok := b.versionOf(r)
	keep := ok && (r.Query.Cursor == "" || r.Query.Cursor == search.StartCursor)
	return lookup(ctx, b, opSearch, v, keep, func(v string) string { return searchKey(v, r) }, false, b.opts.CallTimeout, resultSize,
		func(ctx context.Context) (search.Result, error) { return b.next.Search(ctx, r) })
}

// Item returns the item with the given id. A missing item is not cached.
func (b *Backend) Item(ctx context.Context, id string) (search.Item, error) {
	v, ok := b.version()
	return lookup(ctx, b, opItem, v, ok, func(v string) string { return search.Key(opItem, v, id) }, false, b.opts.CallTimeout, itemSize,
		func(ctx context.Context) (search.Item, error) { return b.next.Item(ctx, id) })
}

// Categories returns every category with its item count, computed once per index version; a
// filtered list is kept like a search.
func (b *Backend) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	v, ok := b.version()
	keyOf, pin := listKey(opCategories, f, b.versioned())
	return lookup(ctx, b, opCategories, v, ok, keyOf, pin, b.opts.CallTimeout, categoriesSize,
		func(ctx context.Context) ([]search.Category, error) { return b.next.Categories(ctx, f) })
}

// Authors returns every credited author with its item count, computed once per index version; a
// filtered list is kept like a search.
func (b *Backend) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	v, ok := b.version()
	keyOf, pin := listKey(opAuthors, f, b.versioned())
	return lookup(ctx, b, opAuthors, v, ok, keyOf, pin, b.opts.CallTimeout, authorsSize,
		func(ctx context.Context) ([]search.Author, error) { return b.next.Authors(ctx, f) })
}

// listKey names the list op of the items f's filters find, and whether it is pinned for the
// version: the whole list is, when there are versions; a filtered one is kept for the TTL.
func listKey(op string, f search.Query, versioned bool) (func(v string) string, bool) {
	if f == (search.Query{}) {
		return func(v string) string { return search.Key(op, v) }, versioned
	}
	return func(v string) string { return search.Key(op, v, f.MatchKey()) }, false
}

// Complete returns completions of text, cached like a search: one per keystroke of every visitor
// typing the same thing.
func (b *Backend) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	v, ok := b.version()
	return lookup(ctx, b, opComplete, v, ok, func(v string) string { return search.Key(opComplete, v, text, strconv.Itoa(n)) }, false, b.opts.CallTimeout, completionsSize,
		func(ctx context.Context) ([]search.Completion, error) { return b.next.Complete(ctx, text, n) })
}

// Related returns the items most like the item with the given id, cached like a search.
func (b *Backend) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	v, ok := b.version()
	return lookup(ctx, b, opRelated, v, ok, func(v string) string { return search.Key(opRelated, v, id, strconv.Itoa(n)) }, false, b.opts.CallTimeout, itemsSize,
		func(ctx context.Context) ([]search.Item, error) { return b.next.Related(ctx, id, n) })
}

// Totals returns the totals of a correction's alternatives, cached like a search.
func (b *Backend) Totals(ctx context.Context, r *search.Request, alts []search.Alternative, m search.Matches) ([]int, error) {
	v, ok := b.versionOf(r)
	return lookup(ctx, b, opTotals, v, ok, func(v string) string { return totalsKey(v, r, alts) }, false, b.opts.CallTimeout, intsSize,
		func(ctx context.Context) ([]int, error) { return b.next.Totals(ctx, r, alts, m) })
}

// Ping reports whether the engine can answer, asking it every time: readiness must reflect it,
// not the cache. It learns the index version before saying so when it is not fresh: /readyz calls
// Ping, so the first answers after a start are cached rather than waiting for a background check.
func (b *Backend) Ping(ctx context.Context) error {
	if err := b.next.Ping(ctx); err != nil {
		return err
	}
	if b.opts.Live == nil {
		return nil
	}
	if _, err := b.opts.Live.Ask(ctx); err != nil {
		return fmt.Errorf("index version: %w", err)
	}
	return nil
}

// Words is the backend's: the did-you-mean keeps them per version itself (search/spell).
func (b *Backend) Words(ctx context.Context) ([]search.Word, error) { return b.next.Words(ctx) }

// Version is the backend's.
func (b *Backend) Version(ctx context.Context) (string, error) { return b.next.Version(ctx) }

// lookup answers op from memory when it can, and otherwise from one engine call shared by every
// concurrent caller with the same key. v is the index version, ok whether answers may be cached,
// keyOf the answer's key at a version, pin whether to keep the answer for the whole version rather
// than for the TTL; timeout bounds the engine call if this caller starts it. When the engine
// fails, a stale answer may stand in (serveStale). The answer's origin is noted in ctx.
func lookup[T any](ctx context.Context, b *Backend, op, v string, ok bool, keyOf func(v string) string, pin bool,
	timeout time.Duration, size func(T) int64, call func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		b.metrics.count(op, resultError)
		return zero, fmt.Errorf("%s: %w", op, err)
	}
	key := keyOf(v)
	if ok {
		if val, hit := b.get(key, pin); hit {
			b.metrics.count(op, resultHit)
			telemetry.NoteOrigin(ctx, telemetry.Origin{Cached: true})
			return val.(T), nil
		}
	}
	// The call is made for every caller that joins it, so no one caller's engine clock times it:
	// each adds the time it waited on it, from before the call can start.
	waiting := time.Now()
	defer func() { telemetry.EngineClockOf(ctx).Add(time.Since(waiting)) }()
	f, led := b.flights.join(telemetry.WithoutEngineClock(ctx), key, timeout, func(cctx context.Context) (val any, err error) {
		// A panic on the call's own goroutine would end the process; the error reaches every caller instead.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("%s: search backend panicked: %v", op, p)
			}
		}()
		res, err := call(cctx)
		if err == nil && ok {
			b.put(v, key, res, size(res), pin)
		}
		return res, err
	})
	defer func() { b.flights.leave(key, f, errors.Is(ctx.Err(), context.Canceled)) }()
	if b.onJoin != nil {
		b.onJoin()
	}
	select {
	case <-f.done:
		if f.err != nil {
			return serveStale[T](ctx, b, op, keyOf, pin, f.err)
		}
		if led {
			b.metrics.count(op, resultMiss)
		} else {
			b.metrics.count(op, resultShared)
		}
		telemetry.NoteOrigin(ctx, telemetry.Origin{Collapsed: !led})
		return f.val.(T), nil
	case <-ctx.Done():
		return serveStale[T](ctx, b, op, keyOf, pin, fmt.Errorf("%s: %w", op, ctx.Err()))
	}
}

// serveStale answers op, whose engine call failed with err, with the answer last kept for it when
// the engine is at fault and that answer is at most StaleMax past its freshness; otherwise it
// returns err.
func serveStale[T any](ctx context.Context, b *Backend, op string, keyOf func(v string) string, pin bool, err error) (T, error) {
	if b.opts.StaleMax > 0 && search.Kind(err).EngineFailed() {
		if val, stored, ok := b.getStale(keyOf, pin); ok {
			b.metrics.count(op, resultStale)
			telemetry.NoteOrigin(ctx, telemetry.Origin{Cached: true, Stale: true, Age: b.opts.Now().Sub(stored)})
			return val.(T), nil
		}
	}
	b.metrics.count(op, resultError)
	telemetry.NoteOrigin(ctx, telemetry.Origin{})
	var zero T
	return zero, err
}

func (b *Backend) versioned() bool { return b.opts.Live != nil }

// version names the index answers come from now; ok is false when they must not be cached.
func (b *Backend) version() (v string, ok bool) {
	if b.opts.Live == nil {
		return "", true
	}
	v, at := b.opts.Live.Current()
	if v == "" {
		return "", false
	}
	b.mu.Lock()
	if v != b.seen {
		// Answers of another version are dead weight, or wrong if that version comes back later
		// with a different index behind the same name.
		b.seen = v
		clear(b.pinned)
		b.results.purge()
	}
	if at.After(b.confirmedAt) {
		b.confirmedAt = at
	}
	b.mu.Unlock()
	return v, true
}

// versionOf is version for r, whose answer is not kept when the rules it carries are not those
// the version is tagged with: a set read between the chain's handing it over and now.
func (b *Backend) versionOf(r *search.Request) (string, bool) {
	v, ok := b.version()
	if ok && b.opts.Live != nil && b.opts.Live.Snapshot().Curation() != r.Curation {
		return v, false
	}
	return v, ok
}

func (b *Backend) get(key string, pin bool) (any, bool) {
	if pin {
		b.mu.Lock()
		defer b.mu.Unlock()
		val, ok := b.pinned[key]
		return val, ok
	}
	return b.results.get(key, b.opts.Now())
}

// getStale returns the answer kept under keyOf at the last version seen, fresh or stale, and when
// it was last known to be current: when the engine gave it, or for an answer kept for the whole
// version, when the version was last confirmed (such an answer then counts as fresh for the TTL
// like any other). An answer stale for StaleMax or more is not returned.
func (b *Backend) getStale(keyOf func(v string) string, pin bool) (val any, stored time.Time, ok bool) {
	now := b.opts.Now()
	b.mu.Lock()
	seen, confirmed := b.seen, b.confirmedAt
	if pin {
		val, ok = b.pinned[keyOf(seen)]
		b.mu.Unlock()
		return val, confirmed, ok && now.Before(confirmed.Add(b.opts.TTL+b.opts.StaleMax))
	}
	b.mu.Unlock()
	if b.versioned() && seen == "" {
		return nil, time.Time{}, false
	}
	return b.results.getStale(keyOf(seen), now)
}

// put stores an answer computed at version v, unless the version moved while it was computed:
// the answer may then come from either index.
func (b *Backend) put(v, key string, val any, size int64, pin bool) {
	if cur, ok := b.version(); !ok || cur != v {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen != v {
		return
	}
	if pin {
		b.pinned[key] = val
		return
	}
	b.results.put(key, val, size, b.opts.Now())
}

func searchKey(v string, r *search.Request) string { return search.Key(opSearch, v, r.Key()) }

// totalsKey names the totals of alts, alternatives of r's text under its filters: page, sort
// and facets do not change a total.
func totalsKey(v string, r *search.Request, alts []search.Alternative) string {
	parts := []string{opTotals, v, r.Query.MatchKey()}
	for _, a := range alts {
		parts = append(parts, a.Word, a.With)
	}
	return search.Key(parts...)
}

var (
	_ search.Backend = (*Backend)(nil)
)
