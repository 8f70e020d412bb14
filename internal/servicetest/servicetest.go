// Package servicetest gives tests the real services they need (Redis, OpenSearch) by one rule: a
// service whose variable is unset skips the test with how to start it, except in CI, where it fails.
package servicetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Missing skips the test with msg, or fails it when CI is set: CI must never pass on a skip.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI requires it)")
	}
	t.Skip(msg)
}

// RedisURL is REDIS_URL.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("REDIS_URL")
	if u == "" {
		Missing(t, "Redis not configured: start it with `make services` and set REDIS_URL=redis://127.0.0.1:6379/0")
	}
	return u
}

// RedisServer checks that the redis-server binary is there, for tests that start and stop their
// own Redis.
func RedisServer(t testing.TB) {
	t.Helper()
	RedisURL(t)
	if _, err := exec.LookPath("redis-server"); err != nil {
		Missing(t, "redis-server not installed: "+err.Error())
	}
}

// WaitForRedis waits up to ten seconds for Redis to answer c's PING, and fails the test if it
// does not: a Redis that was named but is not up yet (just started) is not a skip.
func WaitForRedis(t testing.TB, c redis.UniversalClient) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Redis does not answer: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var (
	readyOnce sync.Once
	readyErr  error
)

// OpenSearchURL is OPENSEARCH_URL, once the engine there answers (waiting up to a minute, once per
// test binary); an engine that is named but does not answer fails the test.
func OpenSearchURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("OPENSEARCH_URL")
	if u == "" {
		Missing(t, "OpenSearch not configured: start it with `make services` and set OPENSEARCH_URL=http://127.0.0.1:9200")
	}
	readyOnce.Do(func() { readyErr = waitForEngine(u, time.Minute) })
	if readyErr != nil {
		t.Fatalf("OpenSearch at %s: %v", u, readyErr)
	}
	return u
}

func waitForEngine(u string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u+"/_cluster/health?wait_for_status=yellow&timeout=4s", nil)
		if err != nil {
			cancel()
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = errors.New(resp.Status)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// NewAlias is a fresh OpenSearch alias, "mediagw-test-<random>", for one test's own indices: tests
// running at once (other packages, other checkouts on the same engine) never share one.
func NewAlias() string {
	var r [6]byte
	rand.Read(r[:]) // never fails (crypto/rand)
	return "mediagw-test-" + hex.EncodeToString(r[:])
}

// Droppable is a backend over an alias of a test's own (search/engine.Backend).
type Droppable interface {
	// Drop deletes the alias's indices.
	Drop(ctx context.Context) error
	Close() error
}

// Release drops b's indices and closes it, within a minute.
func Release(b Droppable) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return errors.Join(b.Drop(ctx), b.Close())
}

// OpenSearch opens a backend over a fresh alias (NewAlias) on the test engine (OpenSearchURL) with
// open, the backend's constructor, and releases it when the test ends. It takes the constructor,
// rather than importing search/engine, so that package's own tests can use it too.
func OpenSearch[B Droppable](t testing.TB, open func(url, alias string) (B, error)) B {
	t.Helper()
	u := OpenSearchURL(t)
	b, err := open(u, NewAlias())
	if err != nil {
		t.Fatalf("open a test OpenSearch backend: %v", err)
	}
	t.Cleanup(func() {
		if err := Release(b); err != nil {
			t.Errorf("remove the test's indices: %v", err)
		}
	})
	return b
}
