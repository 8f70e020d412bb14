package ratelimit

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
)

// full is where a visitor with nothing to drain stands under the contract.
var full = Decision{Allowed: true, Limit: 120, Remaining: 120}

// inspectSteps walks one visitor through the contract, inspecting after each step: count n
// requests after wait, then Inspect must say want, however often it is asked.
var inspectSteps = []struct {
	name string
	wait time.Duration
	n    int
	want Decision
}{
	{name: "never seen", want: full},
	{name: "one request", n: 1,
		want: Decision{Allowed: true, Limit: 120, Remaining: 119, ResetAfter: 5 * time.Second}},
	{name: "sixty", n: 59,
		want: Decision{Allowed: true, Limit: 120, Remaining: 60, ResetAfter: 300 * time.Second}},
	{name: "all used", n: 60,
		want: Decision{Limit: 120, RetryAfter: 5 * time.Second, ResetAfter: 600 * time.Second}},
	{name: "limited too", n: 1,
		want: Decision{Limit: 120, RetryAfter: 5 * time.Second, ResetAfter: 600 * time.Second}},
	{name: "2s later", wait: 2 * time.Second,
		want: Decision{Limit: 120, RetryAfter: 3 * time.Second, ResetAfter: 598 * time.Second}},
	{name: "one drained", wait: 3 * time.Second,
		want: Decision{Allowed: true, Limit: 120, Remaining: 1, ResetAfter: 595 * time.Second}},
	{name: "a minute drains 12", wait: time.Minute,
		want: Decision{Allowed: true, Limit: 120, Remaining: 13, ResetAfter: 535 * time.Second}},
	{name: "a window later", wait: 10 * time.Minute, want: full},
}

func TestMemoryInspect(t *testing.T) {
	clk := newClock()
	m := NewMemory(contract, clk.Now)
	counted := 0
	for _, st := range inspectSteps {
		clk.Advance(st.wait)
		for range st.n {
			m.Allow(t.Context(), "v")
			counted++
		}
		t.Run(st.name, func(t *testing.T) {
			for range 5 {
				got, err := m.Inspect(t.Context(), "v")
				if err != nil || got != st.want {
					t.Fatalf("got %+v, %v; want %+v", got, err, st.want)
				}
			}
		})
	}
	if counted != 121 {
		t.Fatalf("%d counted requests, want 121", counted)
	}
	// Inspections between counted requests take nothing away.
	m2 := NewMemory(Policy{Limit: 5, Window: time.Minute}, clk.Now)
	for i := range 5 {
		for range 10 {
			m2.Inspect(t.Context(), "w")
		}
		if d, _ := m2.Allow(t.Context(), "w"); !d.Allowed || d.Remaining != 4-i {
			t.Fatalf("request %d after inspections: %+v, want %d remaining", i+1, d, 4-i)
		}
	}
}

func TestMemoryInspectKeepsNothing(t *testing.T) {
	clk := newClock()
	m := NewMemory(contract, clk.Now)
	for i := range 10_000 {
		if d, err := m.Inspect(t.Context(), strconv.Itoa(i)); err != nil || d != full {
			t.Fatalf("visitor %d: %+v, %v; want %+v", i, d, err, full)
		}
	}
	if n := m.Len(); n != 0 {
		t.Fatalf("inspecting unseen visitors left %d of them held", n)
	}
	if _, err := NewMemory(Policy{}, nil).Inspect(t.Context(), "v"); !errors.Is(err, ErrInvalidPolicy) {
		t.Fatalf("invalid policy: %v, want ErrInvalidPolicy", err)
	}
}

// TestRedisInspect runs the inspect steps against Redis, each next to Memory fed the same history,
// and checks that an inspection neither creates a key nor changes one.
func TestRedisInspect(t *testing.T) {
	c := newRedisClient(t, redisURL(t))
	prefix := uniquePrefix(t)
	r := newTestRedis(t, c, prefix)
	clk := newClock()
	m := NewMemory(contract, clk.Now)
	const visitor = "203.0.113.20"
	key := "rate:" + prefix + visitor
	for _, st := range inspectSteps {
		clk.Advance(st.wait)
		shiftTAT(t, c, key, st.wait)
		for range st.n {
			m.Allow(t.Context(), visitor)
			if _, err := r.Allow(t.Context(), visitor); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(st.name, func(t *testing.T) {
			// The stored TAT as a number: shiftTAT writes the shortest form, the script %.17g.
			stored := func() float64 {
				s, err := c.Get(t.Context(), key).Result()
				if errors.Is(err, redis.Nil) {
					return 0
				}
				if err != nil {
					t.Fatal(err)
				}
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			before := stored()
			for range 5 {
				got, err := r.Inspect(t.Context(), visitor)
				if err != nil {
					t.Fatal(err)
				}
				mem, _ := m.Inspect(t.Context(), visitor)
				near(t, got, st.want)
				near(t, got, mem)
			}
			if after := stored(); after != before {
				t.Errorf("inspecting changed the stored TAT from %v to %v", before, after)
			}
		})
	}

	ghost := "198.51.100.99"
	for range 3 {
		if d, err := r.Inspect(t.Context(), ghost); err != nil || d != full {
			t.Fatalf("unseen visitor: %+v, %v; want %+v", d, err, full)
		}
	}
	if n, err := c.Exists(t.Context(), "rate:"+prefix+ghost).Result(); err != nil || n != 0 {
		t.Fatalf("inspecting an unseen visitor created %d keys (%v)", n, err)
	}
	// Inspections in between leave every counted request its slot.
	for i := range 5 {
		r.Inspect(t.Context(), "between")
		if d, err := r.Allow(t.Context(), "between"); err != nil || d.Remaining != 119-i {
			t.Fatalf("request %d after inspections: %+v, %v; want %d remaining", i+1, d, err, 119-i)
		}
	}
}

func TestFallbackInspect(t *testing.T) {
	t.Run("primary answers", func(t *testing.T) {
		clk := newClock()
		primary := &countingLimiter{Limiter: NewMemory(contract, clk.Now)}
		local := NewMemory(contract, clk.Now)
		fb := NewFallback(primary, local, nil, WithClock(clk.Now))
		fb.Allow(t.Context(), "v")
		for range 3 {
			if d, err := fb.Inspect(t.Context(), "v"); err != nil || d.Remaining != 119 {
				t.Fatalf("got %+v, %v; want the primary's 119 remaining", d, err)
			}
		}
		if n := primary.inspects.Load(); n != 3 {
			t.Errorf("primary inspected %d times, want 3", n)
		}
		// The answers came from the primary; the replica's memory learned where they left the visitor.
		if d, _ := local.Inspect(t.Context(), "v"); d.Remaining != 119 {
			t.Errorf("the memory puts the visitor at %+v, want the primary's 119 remaining", d)
		}
		if a := testutil.ToFloat64(fb.allowed); a != 1 {
			t.Errorf("decisions allowed %v, want 1: inspections are no decisions", a)
		}
	})

	t.Run("primary unreachable", func(t *testing.T) {
		clk := newClock()
		primary := unreachableRedis(t)
		local := NewMemory(contract, clk.Now)
		fb := NewFallback(primary, local, nil, WithClock(clk.Now))
		if d, err := fb.Inspect(t.Context(), "v"); err != nil || d != full {
			t.Fatalf("unseen visitor: %+v, %v; want %+v from the local limiter", d, err, full)
		}
		if !fb.down.Load() || testutil.ToFloat64(fb.active) != 1 {
			t.Fatal("a failed inspection did not mark the primary down")
		}
		fb.Allow(t.Context(), "v")
		fb.Allow(t.Context(), "v")
		for range 3 {
			if d, err := fb.Inspect(t.Context(), "v"); err != nil || d.Remaining != 118 {
				t.Fatalf("got %+v, %v; want the local 118 remaining", d, err)
			}
		}
		if i, a := primary.inspects.Load(), primary.calls.Load(); i != 1 || a != 0 {
			t.Errorf("primary asked %d inspections and %d decisions within the retry interval, want 1 and 0", i, a)
		}
		if f, a := testutil.ToFloat64(fb.fallbacks), testutil.ToFloat64(fb.allowed); f != 2 || a != 2 {
			t.Errorf("fallback_total %v, allowed %v; want 2 and 2: only counted requests count", f, a)
		}
		// The next retry interval's probe may be an inspection.
		clk.Advance(DefaultRetryInterval)
		fb.Inspect(t.Context(), "v")
		if i := primary.inspects.Load(); i != 2 {
			t.Errorf("%d inspections reached the primary after the retry interval, want 2", i)
		}
	})

	t.Run("without primary", func(t *testing.T) {
		fb := NewFallback(nil, NewMemory(contract, nil), nil)
		if d, err := fb.Inspect(t.Context(), "v"); err != nil || d != full {
			t.Fatalf("got %+v, %v; want %+v", d, err, full)
		}
	})

	t.Run("both fail", func(t *testing.T) {
		fb := NewFallback(unreachableRedis(t), NewMemory(Policy{}, nil), nil)
		if _, err := fb.Inspect(t.Context(), "v"); !errors.Is(err, ErrInvalidPolicy) {
			t.Fatalf("got %v, want the local limiter's ErrInvalidPolicy", err)
		}
	})
}
