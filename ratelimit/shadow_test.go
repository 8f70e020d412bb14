package ratelimit

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// TestShadowSparesTheSharedLimiter: standings and refusals past the limit are answered without
// a call to the shared limiter; once the visitor may go again, it is asked again.
func TestShadowSparesTheSharedLimiter(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	p := Policy{Limit: 5, Window: 10 * time.Second}
	shared := &countingLimiter{Limiter: NewMemory(p, clock)}
	s := NewShadow(NewFallback(shared, NewMemory(p, clock), nil))
	ctx := context.Background()

	if d, _ := s.Inspect(ctx, "v"); !d.Allowed || d.Remaining != p.Limit {
		t.Errorf("unknown visitor: %+v, want the full limit", d)
	}
	for i := range p.Limit {
		if d, _ := s.Allow(ctx, "v"); !d.Allowed || d.Remaining != p.Limit-1-i {
			t.Fatalf("request %d: %+v", i+1, d)
		}
		if d, _ := s.Inspect(ctx, "v"); d.Remaining != p.Limit-1-i {
			t.Errorf("standing after request %d: %+v", i+1, d)
		}
	}
	for range 1000 {
		if d, _ := s.Allow(ctx, "v"); d.Allowed || d.RetryAfter <= 0 {
			t.Fatalf("past the limit: %+v, want a refusal with a wait", d)
		}
	}
	if n := shared.calls.Load(); n != int64(p.Limit) {
		t.Errorf("the shared limiter decided %d requests, want the %d allowed ones only", n, p.Limit)
	}
	if n := shared.inspects.Load(); n != 0 {
		t.Errorf("the shared limiter was inspected %d times, want 0", n)
	}
	now = now.Add(p.Window / time.Duration(p.Limit))
	if d, _ := s.Allow(ctx, "v"); !d.Allowed {
		t.Errorf("one emission interval later: %+v, want allowed", d)
	}
	if n := shared.calls.Load(); n != int64(p.Limit)+1 {
		t.Errorf("the shared limiter decided %d requests, want %d", n, p.Limit+1)
	}
}

// TestShadowNeverRefusesWhatTheSharedLimiterAllows: replicas, each with its Shadow, over one
// shared limiter, random visitors and time steps: every local refusal is one the shared limiter
// makes too, and with one replica, the shadow decides exactly as the shared limiter would.
func TestShadowNeverRefusesWhatTheSharedLimiterAllows(t *testing.T) {
	for _, replicas := range []int{1, 3} {
		now := time.Unix(1_800_000_000, 0)
		clock := func() time.Time { return now }
		p := Policy{Limit: 4, Window: 2 * time.Second}
		shared := NewMemory(p, clock)
		shadows := make([]*Shadow, replicas)
		for i := range shadows {
			shadows[i] = NewShadow(NewFallback(shared, NewMemory(p, clock), nil))
		}
		rng := rand.New(rand.NewPCG(1, uint64(replicas)))
		ctx := context.Background()
		for i := range 20_000 {
			now = now.Add(time.Duration(rng.IntN(200)) * time.Millisecond)
			key := []string{"a", "b", "c"}[rng.IntN(3)]
			s := shadows[rng.IntN(replicas)]
			want, _ := shared.Inspect(ctx, key)
			got, _ := s.Allow(ctx, key)
			if !got.Allowed && want.Allowed {
				t.Fatalf("%d replicas, step %d: refused locally what the shared limiter allows (%+v)", replicas, i, want)
			}
			if replicas == 1 && got.Allowed != want.Allowed {
				t.Fatalf("one replica, step %d: allowed %v, the shared limiter %v", i, got.Allowed, want.Allowed)
			}
		}
	}
}
