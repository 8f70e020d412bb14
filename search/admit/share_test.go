package admit

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/search"
)

// fakeClock is a shares clock the test moves: nanoseconds since the epoch.
type fakeClock struct{ atomic.Int64 }

func (c *fakeClock) now() time.Time { return time.Unix(0, c.Load()) }

func (c *fakeClock) add(d time.Duration) { c.Add(int64(d)) }

// visit starts a search of visitor and reports whether it runs (true) or was refused for its
// visitor's share (false); a running search holds its slot until b.release.
func visit(t *testing.T, a *Backend, b *blocking, visitor string, done chan error) bool {
	t.Helper()
	errs := make(chan error, 1)
	go func() {
		_, err := a.Search(search.WithVisitor(context.Background(), visitor), search.Query{Text: visitor})
		errs <- err
		done <- err
	}()
	select {
	case <-b.started:
		return true
	case err := <-errs:
		<-done
		var se *ShareError
		if !errors.As(err, &se) || !errors.Is(err, search.ErrOverloaded) || se.RetryAfter() != time.Second {
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBlocking()
			a := New(b, Options{Limit: tc.limit, Wait: time.Minute})
			clock := &fakeClock{}
			a.shares.now = clock.now
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
			a.shares.mu.Lock()
			defer a.shares.mu.Unlock()
			if a.shares.running != 0 {
				t.Errorf("%d calls counted running after all ended", a.shares.running)
			}
			for v, acc := range a.shares.visitors {
				if acc.held != 0 {
					t.Errorf("%s holds %d after all ended", v, acc.held)
				}
			}
		})
	}
}

// TestHeavinessFades: a visitor's engine time halves every heavyHalfLife, so one that was heavy
// is anyone again once it has let the engine be.
func TestHeavinessFades(t *testing.T) {
	b := newBlocking()
	a := New(b, Options{Limit: 2, Wait: time.Minute})
	clock := &fakeClock{}
	a.shares.now = clock.now
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
	clock.add(3 * heavyHalfLife) // 8 s -> 1 s
	if !visit(t, a, b, "a", done) {
		t.Fatal("a visitor whose engine time faded was refused the last slot")
	}
	for range 2 {
		b.release <- struct{}{}
		<-done
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
	if len(a.shares.visitors) != 0 {
		t.Errorf("%d visitors counted for calls of none", len(a.shares.visitors))
	}
}

// TestIdleVisitorsForgotten: the account keeps no visitor with nothing running and no engine
// time left once it has minSweep of them.
func TestIdleVisitorsForgotten(t *testing.T) {
	s := newShares(2)
	clock := &fakeClock{}
	s.now = clock.now
	for i := range 3 * minSweep {
		v := string(rune('a'+i%26)) + time.Duration(i).String()
		if _, err := s.enter(v, func() bool { return true }, time.Second); err != nil {
			t.Fatal(err)
		}
		s.started()
		s.ended(v, time.Millisecond)
		clock.add(heavyHalfLife)
	}
	if n := len(s.visitors); n > minSweep {
		t.Errorf("%d visitors kept, want at most %d", n, minSweep)
	}
}
