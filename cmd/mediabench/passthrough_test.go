package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"mediagw/bench"
	"mediagw/internal/servicetest"
)

// TestPassthroughCommand: `mediabench passthrough -limit` forwards requests to the engine it is
// configured with, counts each visitor in the real Redis under its own keys (a visitor past
// MEDIA_RATE_LIMIT gets 429, another visitor does not), and stops cleanly when told to.
func TestPassthroughCommand(t *testing.T) {
	redisURL := servicetest.RedisURL(t)
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"path":"`+r.URL.Path+`"}`)
	}))
	defer engine.Close()
	envs := map[string]string{"OPENSEARCH_URL": engine.URL, "REDIS_URL": redisURL, "MEDIA_RATE_LIMIT": "2"}

	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"passthrough", "-limit", "-listen", addr}, func(k string) string { return envs[k] }, io.Discard, io.Discard)
	}()
	waitForListen(t, addr, done)

	// A visitor of this run only, so that earlier runs' counts in Redis do not matter.
	n := uint64(time.Now().UnixNano())
	visitor, other := bench.VisitorAddr(n).String(), bench.VisitorAddr(n+1).String()
	for i, tt := range []struct {
		from string
		want int
	}{{visitor, 200}, {visitor, 200}, {visitor, 429}, {other, 200}} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/media/_search", nil)
		req.Header.Set("X-Forwarded-For", tt.from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("request %d from %s: status %d, want %d", i+1, tt.from, resp.StatusCode, tt.want)
		}
		if tt.want == 200 && string(body) != `{"path":"/media/_search"}` {
			t.Errorf("request %d: answer %q, want the engine's", i+1, body)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("passthrough stopped with %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("passthrough did not stop within 10s of its context's end")
	}
}

// freeAddr is a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitForListen waits until the passthrough accepts connections at addr.
func waitForListen(t *testing.T, addr string, done <-chan error) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("passthrough ended early: %v", err)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("passthrough did not listen on %s within 10s", addr)
}
