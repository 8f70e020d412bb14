// Package servicetest gives tests the real services they need (Redis, OpenSearch) by one rule: a
// service whose variable is unset skips the test with how to start it, except in CI, where it fails.
package servicetest

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
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
