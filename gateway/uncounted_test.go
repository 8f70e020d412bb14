package gateway_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync/atomic"
	"testing"

	"go.uber.org/zap"

	"mediagw/gateway"
	"mediagw/ratelimit"
)

// countingRedis counts the calls that reach Redis.
type countingRedis struct {
	*ratelimit.Redis
	allows, inspects atomic.Int64
}

func (c *countingRedis) Allow(ctx context.Context, key string) (ratelimit.Decision, error) {
	c.allows.Add(1)
	return c.Redis.Allow(ctx, key)
}

func (c *countingRedis) Inspect(ctx context.Context, key string) (ratelimit.Decision, error) {
	c.inspects.Add(1)
	return c.Redis.Inspect(ctx, key)
}

// TestUncountedResponsesMakeNoRedisCall: with the limiter cmd/mediagw builds for Redis (a Shadow
// in front of the fallback), uncounted responses still say where the visitor stands, from memory,
// and neither they nor the refusals past the limit ask Redis anything.
func TestUncountedResponsesMakeNoRedisCall(t *testing.T) {
	c := redisClient(t, redisURL(t))
	prefix := fmt.Sprintf("mediagw-test:%s:%s:", t.Name(), rand.Text()[:10])
	r, err := ratelimit.NewRedis(c, standingPolicy, ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(limiterTimeout))
	if err != nil {
		t.Fatal(err)
	}
	redis := &countingRedis{Redis: r}
	fb := ratelimit.NewFallback(redis, ratelimit.NewMemory(standingPolicy, nil), zap.NewNop())
	h := newHarness(t, withConfig(func(c *gateway.Config) {
		c.RatePolicy = standingPolicy
		c.OpenAPI = openAPIDoc
		c.LimiterTimeout = limiterTimeout
	}), withLimiter(ratelimit.NewShadow(fb)))
	runStanding(t, h, false, func(visitor string) bool {
		n, err := c.Exists(t.Context(), "rate:"+prefix+visitor).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	if n := redis.inspects.Load(); n != 0 {
		t.Errorf("Redis inspected %d times, want 0", n)
	}
	// runStanding counts the limit's requests, then one past it: only the first ones reach Redis.
	for range 100 {
		expectProblem(t, h.get(countedTarget), 429, "rate-limited")
	}
	if n := redis.allows.Load(); n != int64(standingPolicy.Limit) {
		t.Errorf("Redis decided %d requests, want the %d allowed ones only", n, standingPolicy.Limit)
	}
}
