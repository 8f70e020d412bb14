package telemetry

import (
	"context"
	"testing"
	"time"
)

type otherKey struct{}

// TestEngineClock: the calls under a context WithEngineClock made add to its clock, the calls
// under one WithoutEngineClock made add to none, whatever else the context carries, and a
// context without a clock takes the time without failing.
func TestEngineClock(t *testing.T) {
	base := context.WithValue(context.Background(), otherKey{}, "kept")
	timed, clock := WithEngineClock(base)
	tests := []struct {
		name    string
		ctx     context.Context
		clock   *EngineClock
		counted time.Duration
	}{
		{"no clock", base, nil, 0},
		{"with a clock", timed, clock, 3 * time.Millisecond},
		{"without it again", WithoutEngineClock(timed), nil, 0},
		{"without one to remove", WithoutEngineClock(base), nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := clock.Total()
			got := EngineClockOf(tt.ctx)
			if got != tt.clock {
				t.Fatalf("EngineClockOf = %p, want %p", got, tt.clock)
			}
			got.Add(time.Millisecond)
			got.Add(2 * time.Millisecond)
			if d := clock.Total() - before; d != tt.counted {
				t.Errorf("the request's clock counted %v, want %v", d, tt.counted)
			}
			if v := tt.ctx.Value(otherKey{}); v != "kept" {
				t.Errorf("the context's other values: %v, want kept", v)
			}
		})
	}
}
