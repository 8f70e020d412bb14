package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/live"
	"mediagw/search/searchtest"
	"mediagw/search/telemetry"
)

// counting forwards to a real backend and counts the calls that reach it. While gate is open
// (not closed), every call first waits for it to close; fail makes calls fail as an unreachable
// engine would.
type counting struct {
	b                                    *bleve.Backend
	searches, items, categories, authors atomic.Int64
	extras                               atomic.Int64
	gate                                 chan struct{}
	fail                                 atomic.Bool
	// callErr is the context error the engine call saw when it finished.
	callErr atomic.Pointer[error]
	// sawClock is set when a call carried a caller's telemetry.EngineClock.
	sawClock atomic.Bool
}

func (c *counting) Version(ctx context.Context) (string, error) { return c.b.Version(ctx) }

func (c *counting) Words(ctx context.Context) ([]search.Word, error) { return c.b.Words(ctx) }

func (c *counting) enter(ctx context.Context, n *atomic.Int64) error {
	n.Add(1)
	if telemetry.EngineClockOf(ctx) != nil {
		c.sawClock.Store(true)
	}
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
		}
	}
	err := ctx.Err()
	c.callErr.Store(&err)
	if c.fail.Load() {
		return fmt.Errorf("engine down: %w", search.ErrUnavailable)
	}
	return nil
}

// ended waits until an engine call has ended, and returns the context error it saw.
func (c *counting) ended(t *testing.T) error {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if err := c.callErr.Load(); err != nil {
			return *err
		}
		if time.Now().After(end) {
			t.Fatal("the engine call still runs after 10 s")
		}
	}
}

func (c *counting) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	if err := c.enter(ctx, &c.searches); err != nil {
		return search.Result{}, err
	}
	return c.b.Search(ctx, search.NewRequest(q))
}

func (c *counting) Item(ctx context.Context, id string) (search.Item, error) {
	if err := c.enter(ctx, &c.items); err != nil {
		return search.Item{}, err
	}
	return c.b.Item(ctx, id)
}

func (c *counting) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	if err := c.enter(ctx, &c.categories); err != nil {
		return nil, err
	}
	return c.b.Categories(ctx, f)
}

func (c *counting) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	if err := c.enter(ctx, &c.authors); err != nil {
		return nil, err
	}
	return c.b.Authors(ctx, f)
}

func (c *counting) Ping(ctx context.Context) error { return c.b.Ping(ctx) }

func (c *counting) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	if err := c.enter(ctx, &c.extras); err != nil {
		return nil, err
	}
	return c.b.Complete(ctx, text, n)
}

func (c *counting) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	if err := c.enter(ctx, &c.extras); err != nil {
		return nil, err
	}
	return c.b.Related(ctx, id, n)
}

func (c *counting) Totals(ctx context.Context, req *search.Request, alts []search.Alternative, m search.Matches) ([]int, error) {
	q := req.Query
	if err := c.enter(ctx, &c.extras); err != nil {
		return nil, err
	}
	return c.b.Totals(ctx, search.NewRequest(q), alts, m)
}

// remote presents the version as a network call would, as search/elastic does.
type remote struct {
	*counting
	versions atomic.Int64
	fail     atomic.Bool
}

func (r *remote) Version(ctx context.Context) (string, error) {
	r.versions.Add(1)
	if r.fail.Load() {
		return "", fmt.Errorf("get alias: %w", search.ErrUnavailable)
	}
	v, _ := r.b.Version(ctx)
	return v, ctx.Err()
}

// The ways a cache can learn the backend's version: at every read (search/bleve), in the
// background (search/elastic), or not at all.
var modes = []string{"local", "remote", "none"}

// wrap is c seen through mode, and opts with the owner of its version.
func wrap(mode string, c *counting, opts Options) (search.Backend, Options) {
	switch mode {
	case "remote":
		r := &remote{counting: c}
		opts.Live = remoteLive(r, opts.Now)
		return r, opts
	case "none":
		return c, opts
	}
	opts.Live = live.New(c.Version, live.Options{Now: opts.Now})
	return c, opts
}

// remoteLive asks r's version every two seconds of the clock now (nil: time.Now), as an engine's is.
func remoteLive(r *remote, now func() time.Time) *live.Version {
	return live.New(r.Version, live.Options{Every: live.DefaultEvery, Now: now})
}

// served is the version c's index serves.
func served(c *counting) string {
	v, _ := c.b.Version(context.Background())
	return v
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func openBleve(t testing.TB, items []search.Item) *bleve.Backend {
	t.Helper()
	b, err := bleve.NewFromItems(context.Background(), t.TempDir(), items)
	if err != nil {
		t.Fatalf("NewFromItems: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// newCached wraps a bleve backend of items, seen through mode, and waits until the cache knows
// its version.
func newCached(t *testing.T, mode string, items []search.Item, opts Options) (*Backend, *counting) {
	t.Helper()
	c := &counting{b: openBleve(t, items)}
	b := New(wrap(mode, c, opts))
	waitVersion(t, b, served(c))
	return b, c
}

// waitVersion waits until b has seen version want: a remote version is checked in the background.
func waitVersion(t *testing.T, b *Backend, want string) {
	t.Helper()
	if !b.versioned() {
		return
	}
	eventually(t, "cache sees version "+want, func() bool {
		v, _ := b.version()
		return v == want
	})
}

// eventually polls cond until it holds, for work finishing on another goroutine.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting until %s", what)
		}
	}
}

func counted(b *Backend, op, result string) int {
	return int(testutil.ToFloat64(b.metrics.requests.WithLabelValues(op, result)))
}

// ops calls each operation once; the count says how many calls reached the engine.
var ops = []struct {
	name  string
	call  func(ctx context.Context, b search.Backend) (any, error)
	count func(c *counting) int64
}{
	{opSearch, func(ctx context.Context, b search.Backend) (any, error) {
		return b.Search(ctx, search.NewRequest(search.Query{Text: "harbour", Sort: search.SortRelevance, Page: 1, PerPage: 10}))
	}, func(c *counting) int64 { return c.searches.Load() }},
	{opItem, func(ctx context.Context, b search.Backend) (any, error) { return b.Item(ctx, "ph-full") },
		func(c *counting) int64 { return c.items.Load() }},
	{opCategories, func(ctx context.Context, b search.Backend) (any, error) { return b.Categories(ctx, search.Query{}) },
		func(c *counting) int64 { return c.categories.Load() }},
	{opAuthors, func(ctx context.Context, b search.Backend) (any, error) { return b.Authors(ctx, search.Query{}) },
		func(c *counting) int64 { return c.authors.Load() }},
}

// TestConformance: caching never changes an answer, whichever way the backend tells its version.
func TestConformance(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			searchtest.RunLayer(t, func(t *testing.T, items []search.Item) search.Backend {
				b, _ := newCached(t, mode, items, Options{})
				return b
			})
		})
	}
}

// TestExtrasConformance: caching never changes the extras' answers either.
func TestExtrasConformance(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			searchtest.RunExtras(t, func(t *testing.T, items []search.Item) search.Backend {
				b, _ := newCached(t, mode, items, Options{})
				return b
			})
		})
	}
}

// TestConformanceTinyCache: the same under constant eviction.
func TestConformanceTinyCache(t *testing.T) {
	searchtest.RunLayer(t, func(t *testing.T, items []search.Item) search.Backend {
		b, _ := newCached(t, "local", items, Options{MaxEntries: 2})
		return b
	})
}

// TestRepeatsAreServedFromMemory: a second identical question does not reach the engine.
func TestRepeatsAreServedFromMemory(t *testing.T) {
	for _, mode := range modes {
		for _, op := range ops {
			t.Run(mode+"/"+op.name, func(t *testing.T) {
				b, c := newCached(t, mode, searchtest.Fixture(t), Options{})
				first, err := op.call(t.Context(), b)
				if err != nil {
					t.Fatal(err)
				}
				second, err := op.call(t.Context(), b)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(first) != fmt.Sprint(second) {
					t.Errorf("second answer differs:\n got %v\nwant %v", second, first)
				}
				if n := op.count(c); n != 1 {
					t.Errorf("engine called %d times, want 1", n)
				}
				if hit, miss := counted(b, op.name, resultHit), counted(b, op.name, resultMiss); hit != 1 || miss != 1 {
					t.Errorf("counted %d hits and %d misses, want 1 and 1", hit, miss)
				}
			})
		}
	}
}

// TestReloadInvalidates: after the index changes, every answer comes from the new one.
func TestReloadInvalidates(t *testing.T) {
	before := searchtest.Fixture(t)
	after := slices.Clone(before[:5])
	for i := range after {
		after[i].ID = fmt.Sprintf("new-%d", i)
		after[i].Category, after[i].CategoryName = "reloaded", "Reloaded"
		after[i].Author = "New Author"
	}
	for _, mode := range []string{"local", "remote"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			loader := bleve.NewLoader(dir, 1)
			if _, err := loader.Load(t.Context(), search.Values(before)); err != nil {
				t.Fatal(err)
			}
			be, err := bleve.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = be.Close() })
			clk := newClock()
			c := &counting{b: be}
			b := New(wrap(mode, c, Options{Now: clk.Now}))
			waitVersion(t, b, served(c))

			ask := func() ([]search.Category, []search.Author, search.Result, error) {
				cats, err := b.Categories(t.Context(), search.Query{})
				if err != nil {
					t.Fatal(err)
				}
				as, err := b.Authors(t.Context(), search.Query{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 50}))
				if err != nil {
					t.Fatal(err)
				}
				_, err = b.Item(t.Context(), before[0].ID)
				return cats, as, res, err
			}
			cats, _, res, err := ask()
			if err != nil || len(cats) < 2 || res.Total != len(before) {
				t.Fatalf("before the reload: %d categories, total %d, item error %v", len(cats), res.Total, err)
			}
			// Categories are kept for the version, however long.
			clk.Advance(time.Hour)
			waitVersion(t, b, served(c))
			ask()
			if n := c.categories.Load(); n != 1 {
				t.Errorf("categories computed %d times on one version, want 1", n)
			}

			if _, err := loader.Load(t.Context(), search.Values(after)); err != nil {
				t.Fatal(err)
			}
			if _, err := be.Reload(t.Context()); err != nil {
				t.Fatal(err)
			}
			clk.Advance(live.DefaultEvery)
			waitVersion(t, b, served(c))
			if n, _ := b.results.stats(); n != 0 {
				t.Errorf("the cache still holds %d answers of the old version", n)
			}

			cats, as, res, err := ask()
			want := []search.Category{{Slug: "reloaded", Name: "Reloaded", Count: len(after)}}
			if !slices.Equal(cats, want) {
				t.Errorf("categories after the reload = %v, want %v", cats, want)
			}
			if wantA := []search.Author{{Name: "New Author", Count: len(after)}}; !slices.Equal(as, wantA) {
				t.Errorf("authors after the reload = %v, want %v", as, wantA)
			}
			if res.Total != len(after) {
				t.Errorf("search total after the reload = %d, want %d", res.Total, len(after))
			}
			if !errors.Is(err, search.ErrNotFound) {
				t.Errorf("Item(%s) of the old index after the reload: error %v, want ErrNotFound", before[0].ID, err)
			}
		})
	}
}

// TestConcurrentCallsCollapse: identical questions asked together reach the engine once.
func TestConcurrentCallsCollapse(t *testing.T) {
	const n = 8
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			b, c := newCached(t, "local", searchtest.Fixture(t), Options{})
			c.gate = make(chan struct{})
			joined := make(chan struct{}, n)
			b.onJoin = func() { joined <- struct{}{} }
			answers := make([]any, n)
			errs := make([]error, n)
			clocks := make([]*telemetry.EngineClock, n)
			var wg sync.WaitGroup
			for i := range n {
				var ctx context.Context
				ctx, clocks[i] = telemetry.WithEngineClock(t.Context())
				wg.Go(func() { answers[i], errs[i] = op.call(ctx, b) })
			}
			// The engine call cannot finish before every caller has joined it.
			for range n {
				<-joined
			}
			const held = 10 * time.Millisecond
			time.Sleep(held)
			close(c.gate)
			wg.Wait()
			// Every caller waited on the one engine call, and its time counts for each.
			for i, clock := range clocks {
				if clock.Total() < held {
					t.Errorf("caller %d's engine clock: %v, want at least the %v it waited", i, clock.Total(), held)
				}
			}
			if c.sawClock.Load() {
				t.Error("the shared engine call carried a caller's engine clock")
			}
			// An answer from memory is no engine time.
			ctx, clock := telemetry.WithEngineClock(t.Context())
			if _, err := op.call(ctx, b); err != nil || clock.Total() != 0 {
				t.Errorf("answer from memory: %v, engine clock %v; want none", err, clock.Total())
			}
			for i := range n {
				if errs[i] != nil {
					t.Fatalf("caller %d: %v", i, errs[i])
				}
				if fmt.Sprint(answers[i]) != fmt.Sprint(answers[0]) {
					t.Errorf("caller %d got %v, caller 0 got %v", i, answers[i], answers[0])
				}
			}
			if got := op.count(c); got != 1 {
				t.Errorf("%d concurrent identical calls reached the engine %d times, want 1", n, got)
			}
			if miss, shared := counted(b, op.name, resultMiss), counted(b, op.name, resultShared); miss != 1 || shared != n-1 {
				t.Errorf("counted %d misses and %d shared, want 1 and %d", miss, shared, n-1)
			}
		})
	}
}

// gated is a cache over an engine whose calls wait for c.gate to close, and a channel that hears
// of each of up to n callers joining a call.
func gated(t *testing.T, n int) (*Backend, *counting, chan struct{}) {
	t.Helper()
	b, c := newCached(t, "local", searchtest.Fixture(t), Options{})
	c.gate = make(chan struct{})
	joined := make(chan struct{}, n)
	b.onJoin = func() { joined <- struct{}{} }
	return b, c, joined
}

// TestCancelledCallerDoesNotPoisonOthers: a caller that leaves returns at once, and the shared
// call goes on for the others and is cached.
func TestCancelledCallerDoesNotPoisonOthers(t *testing.T) {
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			b, c, joined := gated(t, 2)

			leaving, leave := context.WithCancel(t.Context())
			leftErr := make(chan error, 1)
			go func() {
				_, err := op.call(leaving, b)
				leftErr <- err
			}()
			<-joined
			stayed := make(chan error, 1)
			go func() {
				_, err := op.call(t.Context(), b)
				stayed <- err
			}()
			<-joined

			leave()
			select {
			case err := <-leftErr:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the caller that left got %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the caller that left is still waiting for the engine")
			}
			close(c.gate)
			if err := <-stayed; err != nil {
				t.Fatalf("the caller that stayed got %v", err)
			}
			if err := *c.callErr.Load(); err != nil {
				t.Errorf("the engine call saw its context end: %v", err)
			}
			if _, err := op.call(t.Context(), b); err != nil {
				t.Fatal(err)
			}
			if got := op.count(c); got != 1 {
				t.Errorf("engine called %d times, want 1 (the shared answer cached)", got)
			}
		})
	}
}

// TestLastCallerLeavingCancels: when every caller waiting on a shared engine call has left, the
// call is cancelled (a visitor who has gone stops costing the engine), and the next caller with
// the same question starts a call of its own. The first of two leaving cancels nothing
// (TestCancelledCallerDoesNotPoisonOthers).
func TestLastCallerLeavingCancels(t *testing.T) {
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			b, c, joined := gated(t, 2)

			errs := make(chan error, 2)
			var cancels []context.CancelFunc
			for range 2 {
				ctx, cancel := context.WithCancel(t.Context())
				cancels = append(cancels, cancel)
				go func() {
					_, err := op.call(ctx, b)
					errs <- err
				}()
				<-joined
			}
			for i, cancel := range cancels {
				cancel()
				if err := <-errs; !errors.Is(err, context.Canceled) {
					t.Errorf("caller %d that left got %v, want context.Canceled", i, err)
				}
			}
			if err := c.ended(t); !errors.Is(err, context.Canceled) {
				t.Errorf("the engine call ended with %v, want context.Canceled", err)
			}
			close(c.gate)
			b.onJoin = nil
			if _, err := op.call(t.Context(), b); err != nil {
				t.Fatalf("the next caller: %v", err)
			}
			if got := op.count(c); got != 2 {
				t.Errorf("engine called %d times, want 2 (the cancelled call, then the next caller's own)", got)
			}
		})
	}
}

// TestLastCallerTimingOutCancelsNothing: a shared call whose last caller left at its deadline
// runs to its own, so that the engine's failure is a timeout (which a circuit breaker counts),
// not a cancellation.
func TestLastCallerTimingOutCancelsNothing(t *testing.T) {
	b, c := newCached(t, "local", searchtest.Fixture(t), Options{CallTimeout: 300 * time.Millisecond})
	c.gate = make(chan struct{})
	defer close(c.gate)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Search(ctx, search.NewRequest(search.Query{Text: "harbour"})); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the caller: %v, want its deadline", err)
	}
	if err := c.ended(t); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the engine call ended with %v, want its own deadline", err)
	}
}

// TestErrorsAreNotCached: after a failure, the next call asks the engine again.
func TestErrorsAreNotCached(t *testing.T) {
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			b, c := newCached(t, "local", searchtest.Fixture(t), Options{})
			c.fail.Store(true)
			if _, err := op.call(t.Context(), b); !errors.Is(err, search.ErrUnavailable) {
				t.Fatalf("with the engine down: %v, want ErrUnavailable", err)
			}
			c.fail.Store(false)
			if _, err := op.call(t.Context(), b); err != nil {
				t.Fatalf("with the engine back: %v", err)
			}
			if got := op.count(c); got != 2 {
				t.Errorf("engine called %d times, want 2", got)
			}
			// Each question counts once, as what the cache answered it with.
			if errs, miss := counted(b, op.name, resultError), counted(b, op.name, resultMiss); errs != 1 || miss != 1 {
				t.Errorf("counted %d errors and %d misses, want 1 and 1", errs, miss)
			}
		})
	}
	t.Run("not found", func(t *testing.T) {
		b, c := newCached(t, "local", searchtest.Fixture(t), Options{})
		for range 2 {
			if _, err := b.Item(t.Context(), "no-such-item"); !errors.Is(err, search.ErrNotFound) {
				t.Fatalf("Item: %v, want ErrNotFound", err)
			}
		}
		if got := c.items.Load(); got != 2 {
			t.Errorf("engine called %d times, want 2", got)
		}
	})
}

// TestTTL: searches and items are kept for the TTL; so are categories and authors of a backend
// without a version.
func TestTTL(t *testing.T) {
	const ttl = 10 * time.Second
	tests := []struct {
		mode string
		op   int
	}{
		{"local", 0}, {"local", 1}, {"none", 0}, {"none", 1}, {"none", 2}, {"none", 3},
	}
	for _, tt := range tests {
		op := ops[tt.op]
		t.Run(tt.mode+"/"+op.name, func(t *testing.T) {
			clk := newClock()
			b, c := newCached(t, tt.mode, searchtest.Fixture(t), Options{TTL: ttl, Now: clk.Now})
			steps := []struct {
				advance time.Duration
				calls   int64
			}{{0, 1}, {ttl - 1, 1}, {1, 2}, {ttl - 1, 2}, {1, 3}}
			for i, s := range steps {
				clk.Advance(s.advance)
				if _, err := op.call(t.Context(), b); err != nil {
					t.Fatal(err)
				}
				if got := op.count(c); got != s.calls {
					t.Errorf("step %d (+%v): engine called %d times, want %d", i, s.advance, got, s.calls)
				}
			}
		})
	}
}

// TestBounds: the cache holds no more entries or bytes than allowed, dropping the least recently used.
func TestBounds(t *testing.T) {
	page := func(p int) search.Query { return search.Query{Sort: search.SortNewest, Page: p, PerPage: 10} }
	probe, pc := newCached(t, "local", searchtest.Fixture(t), Options{})
	res, err := probe.Search(t.Context(), search.NewRequest(page(1)))
	if err != nil {
		t.Fatal(err)
	}
	perEntry := resultSize(res) + int64(len(searchKey(served(pc), search.NewRequest(page(1))))) + entryOverhead

	tests := []struct {
		name string
		opts Options
		want int
	}{
		{"entries", Options{MaxEntries: 3}, 3},
		{"bytes", Options{MaxBytes: 2*perEntry + perEntry/2}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := newCached(t, "local", searchtest.Fixture(t), tt.opts)
			for p := 1; p <= 5; p++ {
				if _, err := b.Search(t.Context(), search.NewRequest(page(p))); err != nil {
					t.Fatal(err)
				}
			}
			entries, bytes := b.results.stats()
			if entries != tt.want {
				t.Errorf("holds %d entries, want %d", entries, tt.want)
			}
			if bytes > b.opts.MaxBytes {
				t.Errorf("holds %d bytes, more than MaxBytes %d", bytes, b.opts.MaxBytes)
			}
			// The most recent page is still there; the first was dropped.
			b.Search(t.Context(), search.NewRequest(page(5)))
			if got := c.searches.Load(); got != 5 {
				t.Errorf("the most recent search reached the engine again")
			}
			b.Search(t.Context(), search.NewRequest(page(1)))
			if got := c.searches.Load(); got != 6 {
				t.Errorf("the oldest search was still cached")
			}
		})
	}
}

// TestRemoteVersionIsCheckedAtMostPerInterval: the version costs a call, so requests never wait on
// it and it is asked for at most once per interval of its live.Version.
func TestRemoteVersionIsCheckedAtMostPerInterval(t *testing.T) {
	clk := newClock()
	c := &counting{b: openBleve(t, searchtest.Fixture(t))}
	r := &remote{counting: c}
	b := New(r, Options{Now: clk.Now, Live: remoteLive(r, clk.Now)})
	idle := func() bool { return !b.opts.Live.Asking() }
	burst := func() {
		for range 20 {
			if _, err := b.Categories(t.Context(), search.Query{}); err != nil {
				t.Fatal(err)
			}
		}
		eventually(t, "the version check ends", idle)
	}
	burst()
	clk.Advance(2*time.Second - 1)
	burst()
	if got := r.versions.Load(); got != 1 {
		t.Errorf("version asked %d times within one interval, want 1", got)
	}
	clk.Advance(1)
	burst()
	if got := r.versions.Load(); got != 2 {
		t.Errorf("version asked %d times over two intervals, want 2", got)
	}

	// After a quiet spell the version may be out of date: the first call does not trust it.
	clk.Advance(4 * time.Second)
	before := c.categories.Load()
	if _, err := b.Categories(t.Context(), search.Query{}); err != nil {
		t.Fatal(err)
	}
	if got := c.categories.Load(); got != before+1 {
		t.Errorf("after a quiet spell, categories came from a version checked %v ago", 4*time.Second)
	}
	eventually(t, "the version check ends", idle)
}

// TestUnknownVersionIsNotCached: when the version cannot be told, every call asks the engine,
// though concurrent ones still share.
func TestUnknownVersionIsNotCached(t *testing.T) {
	c := &counting{b: openBleve(t, searchtest.Fixture(t))}
	r := &remote{counting: c}
	r.fail.Store(true)
	b := New(r, Options{Live: remoteLive(r, nil)})
	for range 3 {
		if _, err := b.Categories(t.Context(), search.Query{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the version check ends", func() bool { return !b.opts.Live.Asking() })
	}
	if got := c.categories.Load(); got != 3 {
		t.Errorf("engine called %d times, want 3", got)
	}
}

// TestWhitespaceVariantsShareAnEntry: text differing only in white space is one search, as the
// query codec normalizes it.
func TestWhitespaceVariantsShareAnEntry(t *testing.T) {
	b, c := newCached(t, "local", searchtest.Fixture(t), Options{})
	for _, text := range []string{"sunset harbour", "sunset  harbour", "\tsunset harbour "} {
		q := search.Query{Text: text, Sort: search.SortRelevance, Page: 1, PerPage: 10}
		q.Normalize()
		res, err := b.Search(t.Context(), search.NewRequest(q))
		if err != nil || res.Total == 0 {
			t.Fatalf("Search(%q) = %d results, %v", text, res.Total, err)
		}
	}
	if got := c.searches.Load(); got != 1 {
		t.Errorf("engine called %d times, want 1", got)
	}
}

// TestWalkPages: a walk's first page is kept like any page, its later pages are not (each is one
// step of one client's walk), and a cursor is part of the key, so two pages never share an entry.
func TestWalkPages(t *testing.T) {
	b, c := newCached(t, "local", searchtest.Fixture(t), Options{})
	q := search.Query{Sort: search.SortNewest, PerPage: 5, Cursor: search.StartCursor}
	search2 := func(q search.Query) search.Result {
		t.Helper()
		first, err := b.Search(t.Context(), search.NewRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		second, err := b.Search(t.Context(), search.NewRequest(q))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, second) {
			t.Errorf("cursor %.10q: second answer differs", q.Cursor)
		}
		return first
	}
	start := search2(q)
	if got := c.searches.Load(); got != 1 {
		t.Errorf("the first page twice: engine called %d times, want 1", got)
	}
	q.Cursor = start.Next
	next := search2(q)
	if got := c.searches.Load(); got != 3 {
		t.Errorf("the second page twice: engine called %d times in all, want 3", got)
	}
	if slices.Equal(ids(start.Items), ids(next.Items)) {
		t.Errorf("the second page repeats the first: %v", ids(next.Items))
	}
}

func ids(items []search.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// TestKeysAreUnambiguous: different queries never share a key.
func TestKeysAreUnambiguous(t *testing.T) {
	qs := []search.Query{
		{Text: "a", Type: "b"},
		{Text: "a1:b"},
		{Text: "a", Category: "b"},
		{Type: "ab"},
		{Text: "a", Page: 11},
		{Text: "a", Page: 1, PerPage: 1},
	}
	seen := map[string]search.Query{}
	for _, q := range qs {
		k := searchKey("v", search.NewRequest(q))
		if other, ok := seen[k]; ok {
			t.Errorf("%+v and %+v share the key %q", q, other, k)
		}
		seen[k] = q
	}
}

// TestMetrics: the cache is a valid collector with every series present from the start.
func TestMetrics(t *testing.T) {
	b, _ := newCached(t, "local", searchtest.Fixture(t), Options{})
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(b); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg, "mediagw_cache_requests_total"); err != nil || n != 35 {
		t.Errorf("mediagw_cache_requests_total has %d series (%v), want 35 (7 operations × hit, miss, shared, stale, error)", n, err)
	}
	for range 3 {
		if _, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 10})); err != nil {
			t.Fatal(err)
		}
	}
	if hit, miss := counted(b, opSearch, resultHit), counted(b, opSearch, resultMiss); hit != 2 || miss != 1 {
		t.Errorf("counted %d hits, %d misses; want 2, 1", hit, miss)
	}
	if got := testutil.ToFloat64(b.metrics.entries); got != 1 {
		t.Errorf("mediagw_cache_entries = %v, want 1", got)
	}
}

// facetsOnAsk answers facets exactly when a query asks for them, as a backend must.
type facetsOnAsk struct{ search.Backend }

func (f facetsOnAsk) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	res, err := f.Backend.Search(ctx, search.NewRequest(q))
	if q.Facets.Has(search.FacetType) {
		res.Facets = map[search.Facet][]search.FacetValue{search.FacetType: {{Value: "photo", Count: 1}}}
	}
	return res, err
}

// TestFacetsAreKeyed: a search with facets and the same search without them are two answers.
func TestFacetsAreKeyed(t *testing.T) {
	inner, _ := newCached(t, "local", searchtest.Fixture(t), Options{})
	b := New(facetsOnAsk{inner}, Options{})
	q := search.Query{Sort: search.SortNewest, Page: 1, PerPage: 10}
	for _, facets := range []search.FacetSet{0, search.FacetSet(search.FacetType), 0} {
		q.Facets = facets
		res, err := b.Search(t.Context(), search.NewRequest(q))
		if err != nil || (res.Facets != nil) != (facets != 0) {
			t.Errorf("Search with facets %b: Facets %v, %v", facets, res.Facets, err)
		}
	}
}

// TestPingLearnsRemoteVersion: once Ping (what /readyz calls) has succeeded, the very first
// answers are cached, with no background check to wait for.
func TestPingLearnsRemoteVersion(t *testing.T) {
	c := &counting{b: openBleve(t, searchtest.Fixture(t))}
	r := &remote{counting: c}
	b := New(r, Options{Live: live.New(r.Version, live.Options{Every: time.Hour})})
	if err := b.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	for range 3 {
		if _, err := b.Categories(t.Context(), search.Query{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.categories.Load(); got != 1 {
		t.Errorf("categories asked of the engine %d times after Ping, want 1 (cached from the first)", got)
	}
	if got := r.versions.Load(); got != 1 {
		t.Errorf("version asked %d times, want 1", got)
	}

	r.fail.Store(true)
	b = New(r, Options{Live: remoteLive(r, nil)})
	if err := b.Ping(t.Context()); err == nil {
		t.Error("Ping succeeded while the version could not be told")
	}
}
