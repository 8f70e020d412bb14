package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/internal/servicetest"
	blevebackend "mediagw/search/bleve"
	"mediagw/search/searchtest"
)

// TestMain runs main itself when a test starts this test binary as the server, so that signals
// reach a real process.
func TestMain(m *testing.M) {
	if os.Getenv("MEDIAGW_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSecondSignalStopsAtOnce: the first SIGTERM starts a drain that waits for the shutdown delay;
// a second one ends the process without waiting. (SIGTERM both times: a process started in the
// background by a non-interactive shell, as CI does, inherits SIGINT ignored.)
func TestSecondSignalStopsAtOnce(t *testing.T) {
	env := testEnv(t)
	env["MEDIA_SHUTDOWN_DELAY"] = "1m"
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MEDIAGW_TEST_MAIN=1")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	waitLog := func(msg string) {
		t.Helper()
		for deadline := time.Now().Add(waitLimit); !strings.Contains(stderr.String(), msg); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in the log:\n%s", msg, stderr)
			}
		}
	}
	waitLog(`"msg":"serving"`)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLog(`"msg":"draining"`)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err // for Cleanup
	case <-time.After(20 * time.Second):
		t.Fatalf("still running 20s after the second signal, within a 1m shutdown delay\n%s", stderr)
	}
}

// waitLimit bounds every wait for the server, so a hang fails the test instead of timing it out.
const waitLimit = time.Minute

// indexDir builds an embedded index of the shared fixture in a fresh directory.
func indexDir(t *testing.T) string {
	t.Helper()
	f, err := catalogue.Open(searchtest.FixturePath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	if _, err := blevebackend.NewLoader(dir, 1).Load(ctx, catalogue.Items(catalogue.NewReader(f), nil)); err != nil {
		t.Fatalf("build index: %v", err)
	}
	return dir
}

// syncBuffer is the server's stderr: written by its goroutines, read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// server is one run of mediagw.
type server struct {
	public, admin string // base URLs of the listeners
	stderr        *syncBuffer
	stop          context.CancelFunc
	done          chan error
}

// testEnv is the environment every run starts from: both listeners on free loopback ports, the
// embedded index of the shared fixture, no shutdown delay, and a limit no test reaches.
func testEnv(t *testing.T) map[string]string { return envOf(indexDir(t)) }

// envOf is testEnv with the embedded index in dir.
func envOf(dir string) map[string]string {
	return map[string]string{
		"MEDIA_BACKEND":        "embedded",
		"MEDIA_INDEX_DIR":      dir,
		"MEDIA_ADDR":           "127.0.0.1:0",
		"MEDIA_ADMIN_ADDR":     "127.0.0.1:0",
		"MEDIA_RATE_LIMIT":     "1000000",
		"MEDIA_SHUTDOWN_DELAY": "0s",
		"MEDIA_SHUTDOWN_GRACE": "20s",
	}
}

// start runs mediagw with env and waits until it listens.
func start(t *testing.T, env map[string]string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{stderr: &syncBuffer{}, stop: cancel, done: make(chan error, 1)}
	addrs := make(chan [2]net.Addr, 1)
	go func() {
		s.done <- run(ctx, nil, func(k string) string { return env[k] }, s.stderr,
			func(public, admin net.Addr) { addrs <- [2]net.Addr{public, admin} })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(waitLimit):
			t.Errorf("mediagw did not stop")
		}
	})
	select {
	case a := <-addrs:
		s.public, s.admin = "http://"+a[0].String(), "http://"+a[1].String()
	case err := <-s.done:
		s.done <- err
		t.Fatalf("run ended before listening: %v\n%s", err, s.stderr)
	case <-time.After(waitLimit):
		t.Fatalf("mediagw did not start\n%s", s.stderr)
	}
	return s
}

// shutdown does what SIGTERM does and returns run's result.
func (s *server) shutdown(t *testing.T) error {
	t.Helper()
	s.stop()
	select {
	case err := <-s.done:
		s.done <- err // for Cleanup
		return err
	case <-time.After(waitLimit):
		t.Fatalf("run did not return after the signal\n%s", s.stderr)
		return nil
	}
}

// fetch sends GET url with the request id and checks the response is a complete 200.
func fetch(c *http.Client, url, id string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Request-Id", id)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// ReadAll fails on a body cut short of its Content-Length or its gzip end.
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: body after %d bytes: %w", url, len(body), err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d: %s", url, resp.StatusCode, body)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && !json.Valid(body) {
		return fmt.Errorf("%s: incomplete JSON: %q", url, body)
	}
	return nil
}

// loggedRequests returns the request id and status of every request the server logged.
func loggedRequests(t *testing.T, stderr string) map[string]int {
	t.Helper()
	out := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(stderr))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
			Status    int    `json:"status"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		if line.Msg == "request" {
			out[line.RequestID] = line.Status
		}
	}
	return out
}

// TestGracefulShutdown sends steady streams of requests on keep-alive connections, then the
// signal. /readyz must fail while the API still answers; run must return nil, which it does only
// when the requests in flight finished within the grace period. Most streams behave like a load
// balancer's: they stop sending once readiness fails, and none of their requests may fail. The
// stragglers keep sending until the listener is gone, so requests are in flight when it closes:
// every one of theirs that the server took in (and logged) must still get its whole response.
func TestGracefulShutdown(t *testing.T) {
	env := testEnv(t)
	// The delay is the time the test's clients, standing in for the load balancer, have to notice.
	env["MEDIA_SHUTDOWN_DELAY"] = "1s"
	// A slot for each worker: on a busy machine the embedded index's default slots (two per CPU), waited for
	// 10 ms, refuse some of 8 workers' first calls with 503, which this test is not about.
	env["MEDIA_MAX_INFLIGHT"] = "8"
	s := start(t, env)

	targets := []string{
		"/?resource=items&q=harbour", "/?resource=items&per_page=50&sort=az", "/?resource=categories",
		"/?resource=authors", "/?resource=item&id=ph-full", "/qr/ph-full.png",
	}
	const workers, stragglers = 8, 2
	var (
		draining   atomic.Bool
		mu         sync.Mutex
		answered   = map[string]bool{} // request id -> a complete 200 arrived
		failed     = map[string]error{}
		afterDrain int // complete 200s to requests sent after /readyz was seen failing
		wg         sync.WaitGroup
		started    sync.WaitGroup
	)
	started.Add(workers)
	for w := range workers {
		straggler := w < stragglers
		prefix := "lb"
		if straggler {
			prefix = "straggler"
		}
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{}, Timeout: waitLimit}
			defer c.CloseIdleConnections()
			for i := 0; ; i++ {
				late := draining.Load()
				if late && !straggler {
					return
				}
				id := fmt.Sprintf("%s%d-%d", prefix, w, i)
				err := fetch(c, s.public+targets[(w+i)%len(targets)], id)
				mu.Lock()
				if err != nil {
					failed[id] = err
				} else {
					answered[id] = true
					if late {
						afterDrain++
					}
				}
				mu.Unlock()
				if i == 0 {
					started.Done()
				}
				// Once the listener is gone requests fail: the stream ends.
				if err != nil {
					return
				}
			}
		})
	}
	started.Wait()

	readyz := &http.Client{Transport: &http.Transport{}, Timeout: waitLimit}
	if err := fetch(readyz, s.public+"/readyz", "ready-before"); err != nil {
		t.Fatalf("readyz before the signal: %v", err)
	}
	s.stop()
	for {
		resp, err := readyz.Get(s.public + "/readyz")
		if err != nil {
			t.Fatalf("the listener closed before /readyz failed: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("readyz: %d", resp.StatusCode)
		}
	}
	draining.Store(true)
	readyz.CloseIdleConnections()

	if err := s.shutdown(t); err != nil {
		t.Errorf("run: %v, want nil", err)
	}
	wg.Wait()

	logged := loggedRequests(t, s.stderr.String())
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d requests answered, %d of them sent after /readyz failed; %d failed after the listener closed",
		len(answered), afterDrain, len(failed))
	if afterDrain == 0 {
		t.Errorf("no request sent after /readyz failed was answered; want traffic served through the delay")
	}
	for id, status := range logged {
		if (strings.HasPrefix(id, "lb") || strings.HasPrefix(id, "straggler")) && !answered[id] {
			t.Errorf("request %s: the server answered %d but the client got: %v", id, status, failed[id])
		}
	}
	for id, err := range failed {
		if strings.HasPrefix(id, "lb") {
			t.Errorf("request %s, sent before /readyz failed, failed: %v", id, err)
		}
	}
	if !strings.Contains(s.stderr.String(), `"msg":"stopped"`) {
		t.Errorf("no stopped line in the log")
	}
}

// waitReady waits until the server's /readyz passes: it holds the whole lists, counted once.
func waitReady(t *testing.T, c *http.Client, s *server) {
	t.Helper()
	for end := time.Now().Add(waitLimit); fetch(c, s.public+"/readyz", "ready") != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("/readyz never passes")
		}
	}
}

func TestAdminMetrics(t *testing.T) {
	s := start(t, testEnv(t))
	c := &http.Client{Transport: &http.Transport{}, Timeout: waitLimit}
	defer c.CloseIdleConnections()
	waitReady(t, c, s)
	// A filtered list is counted by the engine, through the cache; the whole list is not.
	if err := fetch(c, s.public+"/?resource=categories&type=photo", "metrics-1"); err != nil {
		t.Fatal(err)
	}
	if err := fetch(c, s.public+"/openapi.json", "openapi-1"); err != nil {
		t.Errorf("openapi.json: %v", err)
	}
	// A request is counted once its handler has returned, which may be a moment after its client
	// read the last byte: the scrape is repeated until the last request shows.
	var body []byte
	for end := time.Now().Add(waitLimit); ; time.Sleep(10 * time.Millisecond) {
		resp, err := c.Get(s.admin + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("metrics: %d %v", resp.StatusCode, err)
		}
		if bytes.Contains(body, []byte(`mediagw_http_requests_in_flight 0`)) || time.Now().After(end) {
			break
		}
	}
	for _, want := range []string{
		`mediagw_http_requests_total{resource="categories",status="200"} 1`,
		`mediagw_http_request_duration_seconds_count{resource="categories"} 1`,
		// The whole list's count at the start, and the filtered one's.
		`mediagw_backend_duration_seconds_count{op="categories"} 2`,
		`mediagw_cache_requests_total{op="categories",result="miss"} 1`,
		`mediagw_backend_errors_total{kind="unavailable",op="search"} 0`,
		`mediagw_http_not_modified_total{resource="items"} 0`,
		`mediagw_http_requests_in_flight 0`,
		`mediagw_ratelimit_decisions_total{result="allowed"} 1`,
		`go_goroutines `,
		// A test binary records no VCS revision; built ones do (buildinfo.TestBinariesShowTheirBuild).
		`mediagw_build_info{goversion="` + runtime.Version() + `",revision="unknown",version=`,
	} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The admin endpoints are on the admin listener only; pprof only when asked for (admin_test.go).
	for _, tt := range []struct {
		url  string
		want int
	}{
		{s.admin + "/debug/pprof/", http.StatusNotFound},
		{s.public + "/debug/pprof/", http.StatusNotFound},
		{s.public + "/metrics", http.StatusNotFound},
	} {
		resp, err := c.Get(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("GET %s: %d, want %d", tt.url, resp.StatusCode, tt.want)
		}
	}
	if err := s.shutdown(t); err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestBadConfiguration: a replica that cannot serve as configured says why in one line and exits.
// TestCacheOff: with MEDIA_CACHE=off every request reaches the engine and no cache series exist.
func TestCacheOff(t *testing.T) {
	env := testEnv(t)
	env["MEDIA_CACHE"] = "off"
	s := start(t, env)
	c := &http.Client{Transport: &http.Transport{}, Timeout: waitLimit}
	defer c.CloseIdleConnections()
	waitReady(t, c, s)
	for i := range 2 {
		if err := fetch(c, s.public+"/?resource=categories&type=photo", fmt.Sprintf("off-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := c.Get(s.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(body, []byte("mediagw_cache_")) {
		t.Errorf("/metrics has cache series with the cache off")
	}
	// Besides the whole list's count at the start, which the embedded index keeps, cache or not.
	if !bytes.Contains(body, []byte(`mediagw_backend_duration_seconds_count{op="categories"} 3`)) {
		t.Errorf("/metrics does not show both categories requests reaching the backend")
	}
}

func TestBadConfiguration(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	env := testEnv(t)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"zero rate limit", map[string]string{"MEDIA_RATE_LIMIT": "0"}, nil, "MEDIA_RATE_LIMIT"},
		{"zero rate limit flag", nil, []string{"-rate-limit=0"}, "MEDIA_RATE_LIMIT"},
		{"bad grace", map[string]string{"MEDIA_SHUTDOWN_GRACE": "soon"}, nil, "MEDIA_SHUTDOWN_GRACE"},
		{"unknown backend", map[string]string{"MEDIA_BACKEND": "elastic"}, nil, "MEDIA_BACKEND"},
		{"no index", map[string]string{"MEDIA_INDEX_DIR": t.TempDir()}, nil, "mediactl load"},
		{"address in use", map[string]string{"MEDIA_ADDR": busy.Addr().String()}, nil, busy.Addr().String()},
		{"stray argument", nil, []string{"serve"}, "unexpected arguments"},
		{"bad rate limit policies", map[string]string{"MEDIA_RATE_LIMIT_POLICIES": "testdata/policies-bad"}, nil, `testdata/policies-bad: ratelimit: invalid policies file: line 3: window "10"`},
		{"missing rate limit policies", map[string]string{"MEDIA_RATE_LIMIT_POLICIES": "testdata/none"}, nil, "testdata/none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			for k, v := range tt.env {
				e[k] = v
			}
			var stderr syncBuffer
			ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
			defer cancel()
			err := run(ctx, tt.args, func(k string) string { return e[k] }, &stderr, func(net.Addr, net.Addr) {
				t.Errorf("started listening")
			})
			if err == nil {
				t.Fatalf("run: nil error, want one naming %s", tt.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s", msg, tt.want)
			}
		})
	}
}

// TestRefusesWrongEngine: a gateway told one engine and pointed at the other refuses to start,
// naming what it expected and what it found, with its version.
func TestRefusesWrongEngine(t *testing.T) {
	for _, found := range servicetest.Engines {
		t.Run(found.Name, func(t *testing.T) {
			u := found.URL(t)
			told := servicetest.Engines[0]
			if told == found {
				told = servicetest.Engines[1]
			}
			e := testEnv(t)
			e["MEDIA_BACKEND"], e[told.Var] = told.Name, u
			ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
			defer cancel()
			err := run(ctx, nil, func(k string) string { return e[k] }, io.Discard, func(net.Addr, net.Addr) {
				t.Errorf("started listening")
			})
			want := "MEDIA_BACKEND=" + told.Name + ": expected " + told.Product + " "
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), ", but "+u+" is "+found.Product+" ") {
				t.Errorf("run: %v, want %q... but %s is %s <version>", err, want, u, found.Product)
			}
		})
	}
}

func TestHealthcheck(t *testing.T) {
	env := testEnv(t)
	s := start(t, env)
	check := func() error {
		return healthcheck(context.Background(), nil, func(k string) string {
			if k == "MEDIA_ADDR" {
				return strings.TrimPrefix(s.public, "http://")
			}
			return env[k]
		}, io.Discard, nil)
	}
	if err := check(); err != nil {
		t.Fatalf("healthcheck of a ready server: %v", err)
	}
	if err := s.shutdown(t); err != nil {
		t.Fatal(err)
	}
	if err := check(); err == nil {
		t.Error("healthcheck of a stopped server succeeded")
	}
}

// TestRateLimitPolicies: mediagw applies the policies file it is given, and an edit of it within
// 5 seconds, and says so on /metrics.
func TestRateLimitPolicies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policies")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path+".tmp", []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
	}
	write("loopback 3 1m address 127.0.0.0/8\n")
	env := testEnv(t)
	env["MEDIA_RATE_LIMIT_POLICIES"] = path
	s := start(t, env)
	c := &http.Client{Transport: &http.Transport{}, Timeout: waitLimit}
	defer c.CloseIdleConnections()
	policy := func() string {
		t.Helper()
		resp, err := c.Get(s.public + "/?resource=categories")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("RateLimit-Policy")
	}
	if got := policy(); got != `"loopback";q=3;w=60` {
		t.Fatalf("RateLimit-Policy %q, want the file's loopback policy", got)
	}
	write("loopback 5 1m address 127.0.0.0/8\n")
	deadline := time.Now().Add(5 * time.Second)
	for policy() != `"loopback";q=5;w=60` {
		if time.Now().After(deadline) {
			t.Fatal("the edited quota is not applied 5s after the edit")
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := c.Get(s.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mediagw_ratelimit_policies 1\n", `mediagw_ratelimit_policies_reloads_total{result="loaded"} 1`, `mediagw_ratelimit_policy_decisions_total{policy="loopback",result="allowed"}`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
