package admit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"mediagw/search"
)

// fakeClock is a shares clock the test moves: nanoseconds since the epoch.
type fakeClock struct{ atomic.Int64 }

func (c *fakeClock) now() time.Time { return time.Unix(0, c.Load()) }

func (c *fakeClock) add(d time.Duration) { c.Add(int64(d)) }

// call counts an engine call of visitor that took took, ending at now.
func (s *accounts) call(visitor string, now time.Time, took time.Duration) {
	_, charged := s.lookup(visitor, now)
	for _, a := range charged {
		a.charge(now, took)
	}
}

// visit starts a search of visitor and reports whether it runs (true) or was refused for its
// visitor's share (false); a running search holds its slot until b.release.
func visit(t *testing.T, a *Backend, b *blocking, visitor string, done chan error) bool {
	t.Helper()
	errs := make(chan error, 1)
	go func() {
		_, err := a.Search(WithVisitor(context.Background(), visitor), search.NewRequest(search.Query{Text: visitor}))
		errs <- err
		done <- err
	}()
	select {
	case <-b.started:
		return true
	case err := <-errs:
		<-done
		var se *ShareError
		var carried *search.Error
		if !errors.As(err, &se) || !errors.Is(err, search.ErrOverloaded) || !errors.As(err, &carried) ||
			carried.Kind != search.KindOverloaded || carried.RetryAfter != time.Second {
			t.Fatalf("%s's search: %v, want a *ShareError (search.ErrOverloaded) asking for 1s", visitor, err)
		}
		return false
	case <-time.After(10 * time.Second):
		t.Fatalf("%s's search neither ran nor was refused", visitor)
		return false
	}
}

// TestNoVisitorFillsTheSlots: a visitor past its share of the slots (max(1, Limit/4)) runs only
// on a slot that leaves half of them to the others, and so does one that kept the engine busy
// lately, however few calls it makes at once; the others still take their turn.
func TestNoVisitorFillsTheSlots(t *testing.T) {
	type step struct {
		visitor string
		runs    bool
	}
	for _, tc := range []struct {
		name  string
		limit int
		// heavy visitors have kept the engine busy for 3 s before the steps.
		heavy []string
		steps []step
	}{
		{"one slot each of two, the second not taken by the same visitor", 2, nil,
			[]step{{"a", true}, {"a", false}, {"b", true}}},
		{"past the share of four, up to half the slots", 4, nil,
			[]step{{"a", true}, {"a", true}, {"a", false}, {"b", true}, {"c", true}}},
		{"the others take their turn past half the slots", 4, nil,
			[]step{{"b", true}, {"c", true}, {"a", true}, {"a", false}}},
		{"a share of eight is two", 8, nil,
			[]step{{"a", true}, {"a", true}, {"a", true}, {"a", true}, {"a", false}, {"b", true}, {"b", true}}},
		{"two heavy visitors one after another hold one slot of two", 2, []string{"a", "b"},
			[]step{{"a", true}, {"b", false}, {"c", true}}},
		{"a heavy visitor past half the slots", 4, []string{"a"},
			[]step{{"b", true}, {"a", true}, {"a", false}, {"c", true}}},
		{"a heavy visitor with the slots free", 2, []string{"a"},
			[]step{{"a", true}}},
		{"past four /64s of one /56, the /56 is one visitor", 8, nil,
			[]step{{v64(1), true}, {v64(2), true}, {v64(3), true}, {v64(4), true}, {v64(5), true}, {v64(6), true}, {v64(7), false}, {"b", true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBlocking()
			// A call past its share waits this long for one of its visitor's own to end.
			a := New(b, Options{Limit: tc.limit, Wait: 50 * time.Millisecond})
			clock := &fakeClock{}
			a.now = clock.now
			done := make(chan error, 100)
			for _, v := range tc.heavy {
				if !visit(t, a, b, v, done) {
					t.Fatalf("%s's first search refused", v)
				}
				clock.add(3 * time.Second)
				b.release <- struct{}{}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
			running := 0
			for i, s := range tc.steps {
				if got := visit(t, a, b, s.visitor, done); got != s.runs {
					t.Fatalf("step %d, %s: runs %v, want %v", i, s.visitor, got, s.runs)
				}
				if s.runs {
					running++
				}
			}
			for range running {
				b.release <- struct{}{}
				if err := <-done; err != nil {
					t.Errorf("admitted search: %v", err)
				}
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.running != 0 {
				t.Errorf("%d calls counted running after all ended", a.running)
			}
			for v, acc := range a.accounts.visitors {
				if acc.held != 0 {
					t.Errorf("%s holds %d after all ended", v, acc.held)
				}
			}
		})
	}
}

// v64 is the n-th /64 visitor of the /56 2001:db8:0:100::/56.
func v64(n int) string { return fmt.Sprintf("2001:db8:0:1%02x::/64", n) }

// TestRangesCountAsFew: an IPv6 /56 of which more than rangeVisitors /64s are known at once is
// one visitor for the shares, and so is a /48 past four times as many; they are their own
// visitors again once the accounts have forgotten the idle ones.
func TestRangesCountAsFew(t *testing.T) {
	for _, tc := range []struct {
		name     string
		visitors []string
		// forget lets the accounts forget every idle visitor before the last is looked up.
		forget bool
		// want is the account the last visitor's calls count in: "own", or its range's.
		want string
	}{
		{"four /64s of a /56 are four visitors", []string{v64(1), v64(2), v64(3), v64(4)}, false, "own"},
		{"a fifth makes the /56 one", []string{v64(1), v64(2), v64(3), v64(4), v64(5)}, false, "2001:db8:0:100::/56"},
		{"one /64 asking again is one", []string{v64(1), v64(1), v64(1), v64(1), v64(1), v64(1)}, false, "own"},
		{"sixteen /64s over four /56s of a /48 are sixteen", spread(4, 4), false, "own"},
		{"a seventeenth makes the /48 one", append(spread(4, 4), "2001:db8:0:700::/64"), false, "2001:db8::/48"},
		{"the /48 before its /56", append(spread(3, 4), v64(1), v64(2), v64(3), v64(4), v64(5)), false, "2001:db8::/48"},
		{"IPv4 addresses are their own", []string{"203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4", "203.0.113.5", "203.0.113.6"}, false, "own"},
		{"forgotten once idle", []string{v64(1), v64(2), v64(3), v64(4), v64(5), v64(6)}, true, "own"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newAccounts()
			clock := &fakeClock{}
			for _, v := range tc.visitors[:len(tc.visitors)-1] {
				s.call(v, clock.now(), time.Millisecond)
			}
			if tc.forget {
				clock.add(2 * heavyHalfLife)
			}
			last := tc.visitors[len(tc.visitors)-1]
			share, charged := s.lookup(last, clock.now())
			got := "own"
			if share != s.visitors[last] {
				got = "none"
				for p, r := range s.ranges {
					if r == share {
						got = p.String()
					}
				}
			}
			if got != tc.want {
				t.Errorf("%s counts in %s, want %s", last, got, tc.want)
			}
			if n := len(charged); n != len(VisitorRanges(last))+2 {
				t.Errorf("%s's engine time charged to %d accounts, want its own, its ranges' and the total", last, n)
			}
		})
	}
}

// spread is perRange /64s in each of n /56s of 2001:db8::/48 from 2001:db8:0:200::/56.
func spread(n, perRange int) []string {
	var vs []string
	for r := range n {
		for i := range perRange {
			vs = append(vs, fmt.Sprintf("2001:db8:0:%x%02x::/64", r+2, i))
		}
	}
	return vs
}

// TestOwnCallsQueue: a visitor's call past its share, refused a slot, waits up to Options.Wait
// for one of the visitor's own calls to end and then takes its turn (a search box's overlapping
// requests).
func TestOwnCallsQueue(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 2, Wait: time.Minute})
	done := make(chan error, 10)
	if !visit(t, a, b, "a", done) {
		t.Fatal("a's first search refused")
	}
	second := make(chan error, 1)
	go func() {
		_, err := a.Search(WithVisitor(context.Background(), "a"), search.NewRequest(search.Query{Text: "a again"}))
		second <- err
		done <- err
	}()
	select {
	case <-b.started:
		t.Fatal("a's second search ran beside its first, on the last slot")
	case err := <-second:
		t.Fatalf("a's second search: %v before its first ended, want it to wait", err)
	case <-time.After(100 * time.Millisecond):
	}
	b.release <- struct{}{} // a's first ends
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.started:
	case err := <-second:
		t.Fatalf("a's second search: %v, want it run once a slot is free", err)
	case <-time.After(10 * time.Second):
		t.Fatal("a's second search never ran")
	}
	b.release <- struct{}{}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestHeavinessFades: a visitor's engine time halves every heavyHalfLife, so one that was heavy
// is anyone again once it has let the engine be.
func TestHeavinessFades(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 2, Wait: time.Minute})
	clock := &fakeClock{}
	a.now = clock.now
	done := make(chan error, 10)
	run := func(v string, hold time.Duration) {
		if !visit(t, a, b, v, done) {
			t.Fatalf("%s refused", v)
		}
		clock.add(hold)
		b.release <- struct{}{}
		<-done
	}
	run("a", 8*time.Second)
	if !visit(t, a, b, "b", done) {
		t.Fatal("b refused")
	}
	if visit(t, a, b, "a", done) {
		t.Fatal("a heavy visitor took the last slot")
	}
	clock.add(5 * heavyHalfLife) // 8 s -> 0.25 s, under heavyFloor
	if !visit(t, a, b, "a", done) {
		t.Fatal("a visitor whose engine time faded was refused the last slot")
	}
	for range 2 {
		b.release <- struct{}{}
		<-done
	}
}

// TestHeavyIsAShare: two visitors sending costly searches one after another among eighty at a
// person's pace are heavy and the others not, however slow every call is on busy CPUs (a costly
// visitor's time grows no faster than the clock, the others' with their calls' slowness); a lone
// visitor is heavy only past heavyFloor.
func TestHeavyIsAShare(t *testing.T) {
	for _, tc := range []struct {
		name                string
		costly, light       time.Duration
		costlyN, lightEvery int // costly visitors; a light call ends every lightEvery ms
		wantCostly          bool
		wantLight           bool
	}{
		{"a fast engine", 1500 * time.Millisecond, 30 * time.Millisecond, 2, 50, true, false},
		{"every call three times slower", 4500 * time.Millisecond, 90 * time.Millisecond, 2, 50, true, false},
		{"every call slow, the others' tenfold", 3 * time.Second, 300 * time.Millisecond, 2, 50, true, false},
		{"no costly visitors, every call slow", 0, 2 * time.Second, 0, 50, false, false},
		{"ten costly visitors, each under 1/8 of the total", 1500 * time.Millisecond, 30 * time.Millisecond, 10, 50, true, false},
		{"ten costly visitors, every call slow", 4500 * time.Millisecond, 300 * time.Millisecond, 10, 50, true, false},
		{"a lone visitor at a person's pace", 0, 100 * time.Millisecond, 0, 1000, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newAccounts()
			clock := &fakeClock{}
			call := func(v string, took time.Duration) { s.call(v, clock.now(), took) }
			light := 80
			if tc.lightEvery >= 1000 {
				light = 1
			}
			const step = 10 * time.Millisecond
			for i := range int(30 * time.Second / step) {
				clock.add(step)
				ms := (i + 1) * int(step/time.Millisecond)
				if ms%tc.lightEvery == 0 {
					call(fmt.Sprintf("light%d", (ms/tc.lightEvery)%light), tc.light)
				}
				for c := range tc.costlyN {
					if ms%int(tc.costly/time.Millisecond) == 0 {
						call(fmt.Sprintf("costly%d", c), tc.costly)
					}
				}
			}
			for v, a := range s.visitors {
				want := tc.wantLight
				if strings.HasPrefix(v, "costly") {
					want = tc.wantCostly
				}
				if got := s.heavy(a, clock.now()); got != want {
					t.Errorf("%s (%v of %v): heavy %v, want %v", v, a.busy, s.total.busy, got, want)
				}
			}
		})
	}
}

// TestCallsOfNoVisitor: the process's own calls (no visitor) are admitted as before, by slots
// alone.
func TestCallsOfNoVisitor(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 2, Wait: time.Minute})
	done := fill(t, a, b, 2)
	close(b.release)
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if len(a.accounts.visitors) != 0 {
		t.Errorf("%d visitors counted for calls of none", len(a.accounts.visitors))
	}
}

// TestIdleVisitorsForgotten: the account keeps no visitor with nothing running and no engine
// time left once it has minSweep of them.
func TestIdleVisitorsForgotten(t *testing.T) {
	s := newAccounts()
	clock := &fakeClock{}
	for i := range 3 * minSweep {
		v := string(rune('a'+i%26)) + time.Duration(i).String()
		s.call(v, clock.now(), time.Millisecond)
		clock.add(heavyHalfLife / 100)
	}
	if n := len(s.visitors); n > minSweep {
		t.Errorf("%d visitors kept, want at most %d", n, minSweep)
	}
}

// TestRefusalsKeepAVisitorHeavy: each refused call of a visitor counts as much engine time as
// its calls took on average, so a heavy visitor asking on while refused stays heavy, where one
// that lets the engine be fades.
func TestRefusalsKeepAVisitorHeavy(t *testing.T) {
	for _, tc := range []struct {
		name      string
		asks      int // calls refused, one a second
		wantHeavy bool
	}{
		{"asking once a second", 10, true},
		{"asking no more", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBlocking()
			a := New(b, Options{Limit: 2, Wait: time.Millisecond})
			clock := &fakeClock{}
			a.now = clock.now
			done := make(chan error, 100)
			if !visit(t, a, b, "a", done) {
				t.Fatal("a's first search refused")
			}
			clock.add(3 * time.Second)
			b.release <- struct{}{}
			<-done
			if !visit(t, a, b, "b", done) { // half the slots taken
				t.Fatal("b refused")
			}
			for range tc.asks {
				clock.add(time.Second)
				if visit(t, a, b, "a", done) {
					t.Fatal("a heavy visitor took the last slot")
				}
			}
			clock.add(time.Duration(10-tc.asks) * time.Second)
			a.mu.Lock()
			heavy := a.accounts.heavy(a.accounts.visitors["a"], clock.now())
			a.mu.Unlock()
			if heavy != tc.wantHeavy {
				t.Errorf("a heavy %v after 10 s, want %v", heavy, tc.wantHeavy)
			}
			b.release <- struct{}{}
			<-done
		})
	}
}

// held is a backend whose searches hold their slots until release is closed.
type held struct {
	search.Backend
	release chan struct{}
}

func (h held) Search(ctx context.Context, _ *search.Request) (search.Result, error) {
	select {
	case <-h.release:
		return search.Result{Total: 1}, nil
	case <-ctx.Done():
		return search.Result{}, ctx.Err()
	}
}

// TestOneWaitInAll: a call past its visitor's share waits Wait in all, however its wait ends.
// Here its visitor's queued call times out at the same instant and frees the share: the call
// must still be refused then, not go on to wait with a timer that has already fired (which let
// such calls wait for seconds, until a running call of their visitor ended, and then be refused).
func TestOneWaitInAll(t *testing.T) {
	const wait = 10 * time.Millisecond
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			h := held{release: make(chan struct{})}
			a := New(h, Options{Limit: 8, Wait: wait})
			start := func(visitor string) {
				go a.Search(WithVisitor(context.Background(), visitor), search.NewRequest(search.Query{Text: visitor}))
			}
			// Every slot taken, one of them a's: a's next call queues, the one after waits for a's own.
			for _, v := range []string{"b", "b", "c", "c", "d", "d", "e", "a"} {
				start(v)
			}
			synctest.Wait()
			start("a")
			synctest.Wait()
			ctx, cancel := context.WithTimeout(WithVisitor(context.Background(), "a"), time.Second)
			defer cancel()
			began := time.Now()
			_, err := a.Search(ctx, search.NewRequest(search.Query{Text: "a"}))
			if took := time.Since(began); took > wait || !errors.Is(err, search.ErrOverloaded) {
				t.Errorf("a call past its share: %v after %v, want refused within %v", err, took, wait)
			}
			close(h.release)
		})
	}
}
