package admit

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"mediagw/search"
	"mediagw/search/cache"
	"mediagw/search/live"
)

// blocking is a backend whose searches wait until released; everything else answers at once.
type blocking struct {
	search.Backend
	started  chan struct{}
	release  chan struct{}
	searches atomic.Int32
	// ran are the texts searched, in the order the searches started.
	ran chan string
}

func newBlocking() *blocking {
	return &blocking{started: make(chan struct{}, 100), release: make(chan struct{}), ran: make(chan string, 100)}
}

func (b *blocking) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	b.searches.Add(1)
	b.ran <- q.Text
	b.started <- struct{}{}
	select {
	case <-b.release:
		return search.Result{Total: 1}, nil
	case <-ctx.Done():
		return search.Result{}, ctx.Err()
	}
}
func (b *blocking) Item(context.Context, string) (search.Item, error) {
	return search.Item{ID: "pg-1"}, nil
}
func (b *blocking) Categories(context.Context, search.Query) ([]search.Category, error) {
	return nil, nil
}
func (b *blocking) Authors(context.Context, search.Query) ([]search.Author, error) { return nil, nil }
func (b *blocking) Ping(context.Context) error                                     { return nil }
func (b *blocking) Version(context.Context) (string, error)                        { return "v1", nil }

// queued is how many calls wait for a slot.
func queued(a *Backend) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queue)
}

// pending is how many calls of visitor wait for one of its own to end.
func pending(a *Backend, visitor string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if acc := a.accounts.visitors[visitor]; acc != nil {
		return acc.pending
	}
	return 0
}

// fill starts n searches that hold their slots until b.release, and waits until they run.
func fill(t *testing.T, a *Backend, b *blocking, n int) chan error {
	t.Helper()
	done := make(chan error, n)
	for i := range n {
		go func() {
			_, err := a.Search(context.Background(), search.NewRequest(search.Query{Text: string(rune('a' + i))}))
			done <- err
		}()
	}
	for range n {
		<-b.started
	}
	return done
}

func TestRefusedPastTheLimit(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 2, Wait: 20 * time.Millisecond})
	done := fill(t, a, b, 2)

	start := time.Now()
	_, err := a.Search(context.Background(), search.NewRequest(search.Query{Text: "more"}))
	took := time.Since(start)
	var oe *OverloadedError
	var carried *search.Error
	if !errors.As(err, &oe) || !errors.Is(err, search.ErrOverloaded) || !errors.As(err, &carried) ||
		carried.Kind != search.KindOverloaded || carried.RetryAfter != time.Second {
		t.Fatalf("third search: %v, want an *OverloadedError (search.ErrOverloaded) asking for 1s", err)
	}
	// It waited for a slot, and not much longer (a generous bound for a busy machine).
	if took < 20*time.Millisecond || took > time.Second {
		t.Errorf("refused after %v, want about the 20ms wait", took)
	}
	if !search.Kind(err).EngineFailed() {
		t.Error("a refusal is not an engine failure: the cache would not serve a stale answer for it")
	}
	// What is never held: items, readiness.
	if _, err := a.Item(context.Background(), "pg-1"); err != nil {
		t.Errorf("item while full: %v", err)
	}
	if err := a.Ping(context.Background()); err != nil {
		t.Errorf("ping while full: %v", err)
	}
	if got := testutil.ToFloat64(a.inFlight); got != 2 {
		t.Errorf("in flight %v, want 2", got)
	}
	close(b.release)
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("admitted search: %v", err)
		}
	}
	for result, want := range map[string]float64{resultAdmitted: 2, resultQueued: 0, resultRefused: 1} {
		if got := testutil.ToFloat64(a.admissions.WithLabelValues(result)); got != want {
			t.Errorf("admissions %s = %v, want %v", result, got, want)
		}
	}
	if got := testutil.ToFloat64(a.inFlight); got != 0 {
		t.Errorf("in flight %v after all ended, want 0", got)
	}
}

// TestRefusedAtOnceWhenTheQueueIsFull: past Queue waiting calls, the next is refused without
// waiting its Wait.
func TestRefusedAtOnceWhenTheQueueIsFull(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 1, Queue: 1, Wait: time.Minute})
	done := fill(t, a, b, 1)
	waiter := make(chan error, 1)
	go func() {
		_, err := a.Search(context.Background(), search.NewRequest(search.Query{Text: "waits"}))
		waiter <- err
	}()
	for queued(a) != 1 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	_, err := a.Search(context.Background(), search.NewRequest(search.Query{Text: "refused"}))
	var oe *OverloadedError
	if !errors.As(err, &oe) || oe.Waited != 0 {
		t.Errorf("a call past the queue: %v, want an *OverloadedError that did not wait", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("refused after %v, want at once (the wait is a minute)", took)
	}
	b.release <- struct{}{}
	<-b.started
	b.release <- struct{}{}
	for _, ch := range []chan error{done, waiter} {
		if err := <-ch; err != nil {
			t.Errorf("admitted search: %v", err)
		}
	}
}

func TestQueuedUntilASlotFrees(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 1, Wait: time.Minute})
	done := fill(t, a, b, 1)
	third := make(chan error, 1)
	go func() {
		_, err := a.Search(context.Background(), search.NewRequest(search.Query{Text: "next"}))
		third <- err
	}()
	// The waiting call has not reached the backend.
	select {
	case <-b.started:
		t.Fatal("a call past the limit ran")
	case <-time.After(50 * time.Millisecond):
	}
	b.release <- struct{}{} // the first ends; the waiting one takes its slot
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-b.started
	b.release <- struct{}{}
	if err := <-third; err != nil {
		t.Errorf("queued search: %v", err)
	}
	if got := testutil.ToFloat64(a.admissions.WithLabelValues(resultQueued)); got != 1 {
		t.Errorf("queued %v, want 1", got)
	}
}

// TestCallerLeavesWhileWaiting: a caller gone while it waits is not a refusal; it gets its own
// context's error.
func TestCallerLeavesWhileWaiting(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 1, Wait: time.Minute})
	done := fill(t, a, b, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := a.Search(ctx, search.NewRequest(search.Query{Text: "gone"}))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, search.ErrOverloaded) {
		t.Errorf("search of a caller whose deadline passed while waiting: %v, want its deadline", err)
	}
	if got := testutil.ToFloat64(a.admissions.WithLabelValues(resultRefused)); got != 0 {
		t.Errorf("refused %v, want 0", got)
	}
	close(b.release)
	<-done
}

// TestBelowTheCache: the cache finds the version of the backend behind the admission, so it
// keeps answers, and an answer from memory is never refused.
func TestBelowTheCache(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 1, Wait: time.Millisecond})
	c := cache.New(a, cache.Options{Live: live.New(a.Version, live.Options{})})
	go func() { b.release <- struct{}{} }()
	q := search.Query{Text: "kept", Page: 1, PerPage: 10}
	if _, err := c.Search(context.Background(), search.NewRequest(q)); err != nil {
		t.Fatal(err)
	}
	<-b.started
	hold := fill(t, a, b, 1) // the one slot is taken
	if res, err := c.Search(context.Background(), search.NewRequest(q)); err != nil || res.Total != 1 {
		t.Errorf("cached search while full: %+v, %v", res, err)
	}
	if n := b.searches.Load(); n != 2 {
		t.Errorf("%d engine searches, want 2 (the second ask of the same search answered from memory)", n)
	}
	close(b.release)
	<-hold
}

// TestTheQueueIsSharedOut: with every slot taken, a visitor's calls waiting for a slot count in
// its share, so no visitor holds more than its share of the queue; a freed slot goes to the
// waiting call of the visitor with the least engine time lately, and a full queue makes room for
// a lighter visitor's call by refusing the heaviest one's latest.
func TestTheQueueIsSharedOut(t *testing.T) {
	const (
		queuedIn  = "queued"
		behind    = "behind"    // past its share, waiting for its visitor's own call to end
		refused   = "refused"   // at once, with the queue full or the visitor past its share
		displaced = "displaced" // an earlier call of the visitor lost its place to this one
	)
	type arrival struct {
		visitor string
		want    string
	}
	for _, tc := range []struct {
		name  string
		limit int
		queue int
		// lately is each visitor's engine time lately, under heavyFloor: none is heavy.
		lately   map[string]time.Duration
		arrivals []arrival
		// order is the visitors whose waiting calls take the freed slots, in turn.
		order []string
	}{
		{"a visitor's waiting call is its share of one", 1, 8, nil,
			[]arrival{{"a", queuedIn}, {"b", queuedIn}, {"a", behind}, {"a", refused}, {"c", queuedIn}},
			[]string{"a", "b", "c", "a"}},
		{"the lightest first, not the first to come", 1, 8,
			map[string]time.Duration{"x": 900 * time.Millisecond, "y": 600 * time.Millisecond, "z": 300 * time.Millisecond},
			[]arrival{{"x", queuedIn}, {"y", queuedIn}, {"z", queuedIn}, {"new", queuedIn}},
			[]string{"new", "z", "y", "x"}},
		{"equals in the order they came", 1, 8, nil,
			[]arrival{{"c", queuedIn}, {"a", queuedIn}, {"b", queuedIn}},
			[]string{"c", "a", "b"}},
		{"a full queue makes room for a lighter visitor", 1, 2,
			map[string]time.Duration{"x": 900 * time.Millisecond, "y": 600 * time.Millisecond, "z": 300 * time.Millisecond},
			[]arrival{{"x", queuedIn}, {"y", queuedIn}, {"z", displaced}, {"new", displaced}, {"x", refused}},
			[]string{"new", "z"}},
		{"a full queue refuses an equal", 1, 2, nil,
			[]arrival{{"a", queuedIn}, {"b", queuedIn}, {"c", refused}},
			[]string{"a", "b"}},
		{"a share of two on eight slots", 8, 4, nil,
			[]arrival{{"a", queuedIn}, {"a", queuedIn}, {"b", queuedIn}, {"b", queuedIn}, {"c", refused}},
			[]string{"a", "a", "b", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBlocking()
			a := New(b, Options{Limit: tc.limit, Queue: tc.queue, Wait: time.Minute})
			clock := &fakeClock{}
			a.now = clock.now
			for v, d := range tc.lately {
				a.accounts.call(v, clock.now(), d)
			}
			held := fill(t, a, b, tc.limit)
			for range tc.limit {
				<-b.ran
			}
			done := make(chan error, len(tc.arrivals))
			var lost []chan error
			for i, ar := range tc.arrivals {
				before := queued(a)
				errs := make(chan error, 1)
				go func() {
					_, err := a.Search(WithVisitor(context.Background(), ar.visitor), search.NewRequest(search.Query{Text: ar.visitor}))
					errs <- err
					done <- err
				}()
				switch ar.want {
				case queuedIn:
					for queued(a) != before+1 {
						time.Sleep(time.Millisecond)
					}
					lost = append(lost, errs)
				case behind:
					for pending(a, ar.visitor) != 1 {
						time.Sleep(time.Millisecond)
					}
				case refused:
					err := <-errs
					<-done
					var oe *OverloadedError
					var se *ShareError
					if !(errors.As(err, &oe) && oe.Waited == 0) && !errors.As(err, &se) {
						t.Fatalf("arrival %d, %s: %v, want refused at once", i, ar.visitor, err)
					}
				case displaced:
					var got error
					for got == nil {
						for _, ch := range lost {
							select {
							case got = <-ch:
								<-done
							default:
							}
						}
						time.Sleep(time.Millisecond)
					}
					var oe *OverloadedError
					if !errors.As(got, &oe) || !oe.Displaced || !errors.Is(got, search.ErrOverloaded) {
						t.Fatalf("arrival %d, %s: the call it displaced got %v, want a displaced *OverloadedError", i, ar.visitor, got)
					}
					lost = append(lost, errs)
				}
			}
			if n := queued(a); n > tc.queue {
				t.Errorf("%d calls waiting, more than the queue's %d", n, tc.queue)
			}
			var order []string
			for range tc.order {
				b.release <- struct{}{}
				order = append(order, <-b.ran)
				<-b.started
			}
			if !slices.Equal(order, tc.order) {
				t.Errorf("freed slots went to %v, want %v", order, tc.order)
			}
			close(b.release)
			for range tc.limit {
				if err := <-held; err != nil {
					t.Error(err)
				}
			}
			for range tc.order {
				if err := <-done; err != nil {
					t.Errorf("a queued search: %v", err)
				}
			}
		})
	}
}
