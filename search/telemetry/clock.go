// Package telemetry carries what one request learns on its way down the chain of search layers
// (search/chain), for the caller that reports it (the gateway's metrics, log line and
// Cache-Status): the time it waited on the engine (EngineClock) and where its answer came from
// (Origin). The layers note both in the request's context; the model (search) knows neither.
// It also holds the latency buckets the request and engine-call histograms share (LatencyBuckets).
package telemetry

import (
	"context"
	"sync/atomic"
	"time"
)

// EngineClock sums the time one request waited on calls that reached the engine, so that the
// rest of its time is the gateway's own. The calls add to it: a metering wrapper below the cache
// (search/meter) the time of each call it makes for the request, the cache (search/cache) the
// time each caller waited on a call it shares with others. An answer from memory adds nothing.
type EngineClock struct{ total atomic.Int64 }

// Add adds d; on a nil clock (a context without one) it does nothing.
func (c *EngineClock) Add(d time.Duration) {
	if c != nil {
		c.total.Add(int64(d))
	}
}

// Total is the time added so far.
func (c *EngineClock) Total() time.Duration { return time.Duration(c.total.Load()) }

type clockKey struct{}

// WithEngineClock returns a context whose engine calls add their time to the returned clock.
func WithEngineClock(ctx context.Context) (context.Context, *EngineClock) {
	c := &EngineClock{}
	return context.WithValue(ctx, clockKey{}, c), c
}

// WithoutEngineClock returns ctx without its clock, for a call made on behalf of several
// callers, each of which adds the time it waited itself.
func WithoutEngineClock(ctx context.Context) context.Context {
	if ctx.Value(clockKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, clockKey{}, (*EngineClock)(nil))
}

// EngineClockOf is ctx's clock, or nil when it has none.
func EngineClockOf(ctx context.Context) *EngineClock {
	c, _ := ctx.Value(clockKey{}).(*EngineClock)
	return c
}
