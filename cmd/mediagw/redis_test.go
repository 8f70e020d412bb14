package main

import (
	"context"
	"crypto/rand"
	"io"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"mediagw/config"
	"mediagw/internal/servicetest"
)

// commandCount counts the commands sent through the client it hooks.
type commandCount struct{ n atomic.Int64 }

func (c *commandCount) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *commandCount) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *commandCount) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// TestLimiterAndQueryLogShareOneClient: the rate limiter and the query log send their commands
// through the one Redis client the process opens, so it holds one pool of connections to Redis.
func TestLimiterAndQueryLogShareOneClient(t *testing.T) {
	env := envOf(t.TempDir())
	env["REDIS_URL"] = servicetest.RedisURL(t)
	cfg, _, err := config.Load("mediagw", nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	client, closeRedis, err := openRedis(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer closeRedis()
	servicetest.WaitForRedis(t, client)
	var sent commandCount
	client.AddHook(&sent)
	limiter, err := openLimiter(cfg, client, zap.NewNop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	queries, closeQueries, err := openQueryLog(cfg, client, zap.NewNop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	defer closeQueries()

	visitor := "mediagw-test:" + t.Name() + ":" + rand.Text()
	if _, err := limiter.Allow(t.Context(), visitor); err != nil {
		t.Fatal(err)
	}
	byLimiter := sent.n.Load()
	if byLimiter == 0 {
		t.Error("the limiter sent nothing through the process' client")
	}
	// One visitor's text: the query log lists none searched by fewer than MinVisitors.
	queries.Record(visitor, "zzq shared client "+rand.Text(), false)
	if err := queries.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if sent.n.Load() == byLimiter {
		t.Error("the query log sent nothing through the process' client")
	}
}
