package ratelimit

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// speculated leaves a margin of 2 (a tenth of 20) and drains one request every 30s, exactly.
var speculated = Policy{Limit: 20, Window: 10 * time.Minute}

// switchable answers as its limiter until down is set, then fails as Redis does when unreachable.
type switchable struct {
	Limiter
	down atomic.Bool
}

var errDown = errors.New("redis: connection refused")

func (s *switchable) Allow(ctx context.Context, key string) (Decision, error) {
	if s.down.Load() {
		return Decision{}, errDown
	}
	return s.Limiter.Allow(ctx, key)
}

func (s *switchable) Inspect(ctx context.Context, key string) (Decision, error) {
	if s.down.Load() {
		return Decision{}, errDown
	}
	return s.Limiter.Inspect(ctx, key)
}

// TestOneVisitorMemory: the fallback, the shadow and the speculation read and update one state per
// visitor. What Redis said is what the shadow answers and what the speculation reserves against;
// when Redis fails, the fallback goes on from it instead of from a fresh allowance, and what it
// counts then is what the shadow and the speculation see.
func TestOneVisitorMemory(t *testing.T) {
	clk := newClock()
	redis := &switchable{Limiter: NewMemory(speculated, clk.Now)}
	fb := NewFallback(redis, NewMemory(speculated, clk.Now), nil, WithClock(clk.Now))
	sh := NewShadow(fb)
	ctx := t.Context()

	if sh.Reserve(ctx, "v") {
		t.Fatal("a visitor never decided here is reserved")
	}
	for i := range 15 {
		if d, err := sh.Allow(ctx, "v"); err != nil || d.Remaining != speculated.Limit-1-i {
			t.Fatalf("request %d through Redis: %+v, %v", i+1, d, err)
		}
	}
	want, _ := redis.Limiter.Inspect(ctx, "v")
	if got, _ := sh.Inspect(ctx, "v"); got != want {
		t.Errorf("the shadow's standing %+v, Redis's %+v", got, want)
	}
	if !sh.Reserve(ctx, "v") {
		t.Fatal("a visitor Redis left 5 of 20 is not reserved")
	}
	sh.Release("v")

	redis.down.Store(true)
	if d, _ := sh.Allow(ctx, "v"); !d.Allowed || d.Remaining != 4 {
		t.Fatalf("first request with Redis down: %+v, want 4 left, counted on from what Redis said", d)
	}
	if got, _ := sh.Inspect(ctx, "v"); got.Remaining != 4 {
		t.Errorf("the shadow's standing after a request decided in process: %+v, want 4 left", got)
	}
	for range 2 {
		sh.Allow(ctx, "v")
	}
	if !sh.Reserve(ctx, "v") {
		t.Error("a visitor the fallback left 2 of 20, the margin, is not reserved")
	}
	sh.Release("v")
	sh.Allow(ctx, "v")
	if sh.Reserve(ctx, "v") {
		t.Error("a visitor the fallback left 1 of 20, below the margin, is reserved")
	}
	sh.Allow(ctx, "v")
	if d, _ := sh.Allow(ctx, "v"); d.Allowed {
		t.Errorf("request 21 with Redis down: %+v, want refused", d)
	}
	if n := redis.Limiter.(*Memory).Len(); n != 1 {
		t.Errorf("Redis holds %d visitors, want 1", n)
	}
	if n := fb.local.Len(); n != 1 {
		t.Errorf("the replica's memory holds %d visitors, want 1: one state for the fallback, the shadow and the speculation", n)
	}
}

// TestReserve: a visitor's request is reserved while the memory knows the visitor and what it has
// left under its policy, less its requests in flight, is at least the margin (a tenth of the limit,
// at least 1); a release gives the reservation back.
func TestReserve(t *testing.T) {
	type step struct {
		// allow is how many requests the visitor makes first; advance how much time passes;
		// release, how many reservations end.
		allow, release int
		advance        time.Duration
		want           bool
	}
	strict := Policy{Limit: 5, Window: time.Minute}
	for _, tc := range []struct {
		name   string
		policy *Policy
		steps  []step
	}{
		{"unknown", nil, []step{{want: false}}},
		{"plenty left", nil, []step{{allow: 1, want: true}, {want: true}}},
		{"at the margin", nil, []step{{allow: 18, want: true}, {want: false}, {release: 1, want: true}}},
		{"below the margin", nil, []step{{allow: 19, want: false}}},
		{"out of requests", nil, []step{{allow: 25, want: false}}},
		{"drained back over the margin", nil, []step{{allow: 19, want: false}, {advance: 30 * time.Second, want: true}}},
		{"in flight count against the margin", nil, []step{{allow: 16, want: true}, {want: true}, {want: true}, {want: false}}},
		{"a stray release", nil, []step{{allow: 18, release: 3, want: true}, {want: false}}},
		{"under its own policy", &strict, []step{{allow: 4, want: true}, {want: false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			m := NewMemory(speculated, clk.Now)
			ctx := t.Context()
			if tc.policy != nil {
				ctx = WithPolicy(ctx, tc.policy)
			}
			for i, s := range tc.steps {
				for range s.allow {
					m.Allow(ctx, "v")
				}
				for range s.release {
					m.Release("v")
				}
				clk.Advance(s.advance)
				if got := m.Reserve(ctx, "v"); got != s.want {
					t.Fatalf("step %d: reserved %v, want %v", i, got, s.want)
				}
			}
		})
	}
}

// TestReservedVisitorOutlivesTheSweep: a visitor back at the full limit is swept as idle, unless a
// request of its is reserved and not yet decided; once released it is swept like any other.
func TestReservedVisitorOutlivesTheSweep(t *testing.T) {
	clk := newClock()
	m := NewMemory(speculated, clk.Now)
	ctx := t.Context()
	m.Allow(ctx, "reserved")
	m.Allow(ctx, "idle")
	if !m.Reserve(ctx, "reserved") {
		t.Fatal("not reserved")
	}
	round := 0
	sweep := func() {
		// A window later, every shard sweeps when its next new visitor arrives.
		clk.Advance(speculated.Window)
		round++
		for i := range 64 * shardCount {
			m.Allow(ctx, "new-"+strconv.Itoa(round)+"-"+strconv.Itoa(i))
		}
	}
	held := func(key string) bool {
		s := m.shard(key)
		s.mu.Lock()
		defer s.mu.Unlock()
		_, ok := s.visitors[key]
		return ok
	}
	sweep()
	if held("idle") || !held("reserved") {
		t.Fatalf("after a sweep: idle held %v, reserved held %v; want false, true", held("idle"), held("reserved"))
	}
	m.Release("reserved")
	sweep()
	if held("reserved") {
		t.Error("a released idle visitor outlived the sweep")
	}
}
