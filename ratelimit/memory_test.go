package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock is a settable time source for the in-process limiter.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var contract = Policy{Limit: 120, Window: 10 * time.Minute}

// step is one moment of a visitor's history: wait, then make n requests; the last one's
// Decision must equal want.
type step struct {
	name  string
	wait  time.Duration
	n     int
	want  Decision
	allOK bool // every one of the n requests must be allowed (otherwise only the last is checked)
}

// contractSteps walks one visitor through the contract's 120 per 10 minutes.
var contractSteps = []step{
	{name: "first request", n: 1, allOK: true,
		want: Decision{Allowed: true, Limit: 120, Remaining: 119, ResetAfter: 5 * time.Second}},
	{name: "burst to 60", n: 59, allOK: true,
		want: Decision{Allowed: true, Limit: 120, Remaining: 60, ResetAfter: 300 * time.Second}},
	{name: "120th uses the last slot", n: 60, allOK: true,
		want: Decision{Allowed: true, Limit: 120, Remaining: 0, RetryAfter: 5 * time.Second, ResetAfter: 600 * time.Second}},
	{name: "121st is limited", n: 1,
		want: Decision{Allowed: false, Limit: 120, Remaining: 0, RetryAfter: 5 * time.Second, ResetAfter: 600 * time.Second}},
	{name: "still limited 2s later", wait: 2 * time.Second, n: 1,
		want: Decision{Allowed: false, Limit: 120, Remaining: 0, RetryAfter: 3 * time.Second, ResetAfter: 598 * time.Second}},
	{name: "one more after 5s", wait: 3 * time.Second, n: 1,
		want: Decision{Allowed: true, Limit: 120, Remaining: 0, RetryAfter: 5 * time.Second, ResetAfter: 600 * time.Second}},
	{name: "and then limited again", n: 1,
		want: Decision{Allowed: false, Limit: 120, Remaining: 0, RetryAfter: 5 * time.Second, ResetAfter: 600 * time.Second}},
	{name: "a minute drains 12", wait: time.Minute, n: 1,
		want: Decision{Allowed: true, Limit: 120, Remaining: 11, ResetAfter: 545 * time.Second}},
	{name: "full window later: back to the full limit", wait: 10 * time.Minute, n: 1,
		want: Decision{Allowed: true, Limit: 120, Remaining: 119, ResetAfter: 5 * time.Second}},
}

// runSteps plays steps against l; advance moves l's notion of time.
func runSteps(t *testing.T, l interface {
	Allow(context.Context, string) (Decision, error)
}, key string, advance func(time.Duration), steps []step, check func(t *testing.T, got, want Decision)) {
	t.Helper()
	for _, st := range steps {
		advance(st.wait)
		var got Decision
		for i := range st.n {
			d, err := l.Allow(t.Context(), key)
			if err != nil {
				t.Fatalf("%s: request %d: %v", st.name, i+1, err)
			}
			if st.allOK && !d.Allowed {
				t.Fatalf("%s: request %d of %d limited: %+v", st.name, i+1, st.n, d)
			}
			got = d
		}
		t.Run(st.name, func(t *testing.T) { check(t, got, st.want) })
	}
}

func exact(t *testing.T, got, want Decision) {
	t.Helper()
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestMemoryContract(t *testing.T) {
	c := newClock()
	m := NewMemory(contract, c.Now)
	runSteps(t, m, "198.51.100.7", c.Advance, contractSteps, exact)
}

func TestMemoryRemainingCountsDown(t *testing.T) {
	c := newClock()
	m := NewMemory(Policy{Limit: 5, Window: time.Minute}, c.Now)
	for i, want := range []int{4, 3, 2, 1, 0} {
		d, err := m.Allow(t.Context(), "v")
		if err != nil || !d.Allowed || d.Remaining != want {
			t.Fatalf("request %d: got %+v, %v; want allowed with %d remaining", i+1, d, err, want)
		}
	}
	if d, _ := m.Allow(t.Context(), "v"); d.Allowed {
		t.Fatalf("6th request allowed: %+v", d)
	}
}

func TestMemoryVisitorsAreIndependent(t *testing.T) {
	c := newClock()
	m := NewMemory(Policy{Limit: 2, Window: time.Minute}, c.Now)
	for range 3 {
		m.Allow(t.Context(), "a")
	}
	if d, _ := m.Allow(t.Context(), "b"); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("second visitor: got %+v, want allowed with 1 remaining", d)
	}
}

// TestMemoryFractionalClock checks the float64 path with microseconds and an interval that is
// not a whole number of seconds: the numbers must stay consistent with the formula.
func TestMemoryFractionalClock(t *testing.T) {
	c := newClock()
	c.Advance(123456 * time.Microsecond)
	m := NewMemory(Policy{Limit: 7, Window: time.Second}, c.Now)
	allowed := 0
	for range 10 {
		if d, _ := m.Allow(t.Context(), "v"); d.Allowed {
			allowed++
		}
	}
	if allowed != 7 {
		t.Fatalf("allowed %d in a burst, want 7", allowed)
	}
	d, _ := m.Allow(t.Context(), "v")
	// One interval is 1/7 s; the script's arithmetic may be off by float rounding only.
	if want := time.Second / 7; d.RetryAfter < want-time.Microsecond || d.RetryAfter > want+time.Microsecond {
		t.Fatalf("RetryAfter %s, want about %s", d.RetryAfter, want)
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, p := range []Policy{{0, time.Minute}, {-1, time.Minute}, {1, 0}, {1, -time.Second}, {1, MinWindow - 1}} {
		if err := p.Validate(); !errors.Is(err, ErrInvalidPolicy) {
			t.Errorf("%+v: Validate() = %v, want ErrInvalidPolicy", p, err)
		}
		if _, err := NewMemory(p, nil).Allow(t.Context(), "v"); !errors.Is(err, ErrInvalidPolicy) {
			t.Errorf("%+v: Allow error %v, want ErrInvalidPolicy", p, err)
		}
	}
	if err := contract.Validate(); err != nil {
		t.Errorf("contract policy: %v", err)
	}
}

// TestMemoryStaysBounded sends 1,000,000 distinct visitors, one request each, 1ms apart: at any
// moment only the last 5s of them (5,000) still count, and the map must not hold many more.
func TestMemoryStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 visitors")
	}
	c := newClock()
	m := NewMemory(contract, c.Now)
	const live = 5000
	bound := 2*live + shardCount*minSweep
	for i := range 1_000_000 {
		if d, err := m.Allow(t.Context(), strconv.Itoa(i)); err != nil || !d.Allowed {
			t.Fatalf("visitor %d: %+v, %v", i, d, err)
		}
		c.Advance(time.Millisecond)
		if i%10_000 == 0 {
			if n := m.Len(); n > bound {
				t.Fatalf("after %d visitors the limiter holds %d, want at most %d", i+1, n, bound)
			}
		}
	}
	// A visitor swept as idle is back at the full limit, as if never seen.
	if d, _ := m.Allow(t.Context(), "0"); d.Remaining != 119 {
		t.Fatalf("returning visitor: %+v, want 119 remaining", d)
	}
}

func TestMemoryConcurrentVisitorGetsExactlyLimit(t *testing.T) {
	c := newClock()
	m := NewMemory(contract, c.Now)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if d, _ := m.Allow(t.Context(), "shared"); d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 120 {
		t.Fatalf("allowed %d of 400 concurrent requests, want 120", got)
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	m := NewMemory(contract, nil)
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprintf("2001:db8:%x::/64", i)
	}
	var next atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := next.Add(1 << 20)
		for pb.Next() {
			i++
			if _, err := m.Allow(context.Background(), keys[i&(1<<16-1)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
