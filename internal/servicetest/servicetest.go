// Package servicetest gives tests the real services they need (Redis, and OpenSearch or
// Elasticsearch) by one rule: a service whose variable is unset skips the test with how to start it,
// except in CI, where it fails.
package servicetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
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

// Engine is a search engine line the tests can run on.
type Engine struct {
	// Name is its MEDIA_BACKEND and MEDIA_TEST_ENGINE name: "opensearch" or "elasticsearch".
	Name string
	// Product is its search/elastic.Product: "OpenSearch" or "Elasticsearch".
	Product string
	// Var is the variable holding its URL; Start says how to start it.
	Var, Start string
}

// Engines are the lines, the default first.
var Engines = []Engine{
	{Name: "opensearch", Product: "OpenSearch", Var: "OPENSEARCH_URL",
		Start: "start it with `make services` and set OPENSEARCH_URL=http://127.0.0.1:9200"},
	{Name: "elasticsearch", Product: "Elasticsearch", Var: "ELASTICSEARCH_URL",
		Start: "start it with `MEDIA_ENGINE=elasticsearch:9.2.0 make services` and set ELASTICSEARCH_URL=http://127.0.0.1:9202"},
}

// IndexVar is the variable naming its alias (OPENSEARCH_INDEX, ELASTICSEARCH_INDEX).
func (e Engine) IndexVar() string { return strings.TrimSuffix(e.Var, "_URL") + "_INDEX" }

// EngineNamed is the line of that name, or false.
func EngineNamed(name string) (Engine, bool) {
	for _, e := range Engines {
		if e.Name == name {
			return e, true
		}
	}
	return Engine{}, false
}

// TestEngine is the engine under test: MEDIA_TEST_ENGINE, OpenSearch when unset. A name it does
// not know fails the test.
func TestEngine(t testing.TB) Engine {
	t.Helper()
	name := os.Getenv("MEDIA_TEST_ENGINE")
	if name == "" {
		return Engines[0]
	}
	e, ok := EngineNamed(name)
	if !ok {
		t.Fatalf("MEDIA_TEST_ENGINE=%s: use opensearch or elasticsearch", name)
	}
	return e
}

var (
	readyMu sync.Mutex
	ready   = map[string]error{}
)

// EngineURL is the URL of the engine under test (TestEngine), once the engine there answers
// (waiting up to a minute, once per URL and test binary); an engine that is named but does not
// answer fails the test.
func EngineURL(t testing.TB) string {
	t.Helper()
	return TestEngine(t).URL(t)
}

// URL is the URL of e, once the engine there answers (see EngineURL).
func (e Engine) URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(e.Var)
	if u == "" {
		Missing(t, e.Product+" not configured: "+e.Start)
	}
	readyMu.Lock()
	err, done := ready[u]
	if !done {
		err = waitForEngine(u, time.Minute)
		ready[u] = err
	}
	readyMu.Unlock()
	if err != nil {
		t.Fatalf("%s at %s: %v", e.Product, u, err)
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

// NewAlias is a fresh engine alias, "mediagw-test-<random>", for one test's own indices: tests
// running at once (other packages, other checkouts on the same engine) never share one.
func NewAlias() string {
	var r [6]byte
	rand.Read(r[:]) // never fails (crypto/rand)
	return "mediagw-test-" + hex.EncodeToString(r[:])
}

// Droppable is a backend over an alias of a test's own (search/elastic.Backend).
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

// OpenEngine opens a backend over a fresh alias (NewAlias) on the engine under test (TestEngine)
// with open, the backend's constructor, and releases it when the test ends. It takes the
// constructor, rather than importing search/elastic, so that package's own tests can use it too.
func OpenEngine[B Droppable](t testing.TB, open func(e Engine, url, alias string) (B, error)) B {
	t.Helper()
	e := TestEngine(t)
	b, err := open(e, e.URL(t), NewAlias())
	if err != nil {
		t.Fatalf("open a test %s backend: %v", e.Product, err)
	}
	t.Cleanup(func() {
		if err := Release(b); err != nil {
			t.Errorf("remove the test's indices: %v", err)
		}
	})
	return b
}
