//go:build attack

package attacktest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mediagw/internal/servicetest"
	"mediagw/search/elastic"
)

// The deadlines the suite runs the binary with, as its defaults (config/config.go).
const (
	headerTimeout = 5 * time.Second
	readTimeout   = 10 * time.Second
	perIPCap      = 128
	// podMemory is the memory limit of the pod in deploy/.
	podMemory = 256 << 20
)

// binaries are mediagw and mediactl, built once for the whole suite.
var binaries struct {
	once sync.Once
	dir  string
	err  error
}

// repoRoot is the module's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// build builds the binaries into a directory of the test binary's own.
func build(t *testing.T) string {
	t.Helper()
	binaries.once.Do(func() {
		binaries.dir, binaries.err = os.MkdirTemp("", "mediagw-attack-bin-")
		if binaries.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binaries.dir+"/", "./cmd/mediagw", "./cmd/mediactl")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			binaries.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaries.err != nil {
		t.Fatal(binaries.err)
	}
	return binaries.dir
}

// catalogue is the real catalogue, ../shared/data/catalogue.ndjson beside the checkout or
// $CATALOGUE; without it a generated one of as many items stands in, except in CI.
func catalogue(t *testing.T) (path, name string) {
	t.Helper()
	path = os.Getenv("CATALOGUE")
	if path == "" {
		path = filepath.Join(repoRoot(t), "..", "shared", "data", "catalogue.ndjson")
	}
	if _, err := os.Stat(path); err == nil {
		return path, "real catalogue"
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI needs the real catalogue at %s (or CATALOGUE=path)", path)
	}
	t.Logf("no catalogue at %s: using a generated one of 8,222 items (set CATALOGUE for the real one)", path)
	gen := filepath.Join(t.TempDir(), "generated.ndjson")
	run(t, nil, filepath.Join(build(t), "mediactl"), "gen", "-n", "8222", "-o", gen)
	return gen, "generated catalogue"
}

// engineEnv is the settings of the engine under test (servicetest.TestEngine) under an alias of
// the suite's own, whose indices are removed when t ends.
func engineEnv(t *testing.T, e servicetest.Engine) []string {
	t.Helper()
	u := e.URL(t)
	alias := servicetest.NewAlias()
	b, err := elastic.New(elastic.Config{URLs: []string{u}, Product: elastic.Product(e.Product), Alias: alias})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := servicetest.Release(b); err != nil {
			t.Errorf("remove the suite's indices: %v", err)
		}
	})
	return []string{"MEDIA_BACKEND=" + e.Name, e.Var + "=" + u, e.IndexVar() + "=" + alias}
}

// run runs a command to its end with env added to a clean environment, failing t when it fails.
func run(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(cleanEnv(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// cleanEnv is the environment without the settings of mediagw, Redis and the engines, which each
// run sets itself.
func cleanEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "MEDIA_") || strings.HasPrefix(kv, "REDIS_") || strings.HasPrefix(kv, "OPENSEARCH_") || strings.HasPrefix(kv, "ELASTICSEARCH_") || strings.HasPrefix(kv, "GOMEMLIMIT=") || strings.HasPrefix(kv, "GOGC=")
	})
}

// engineLoaded is the settings of a gateway on e, over an alias of the test's own holding the
// catalogue cat, removed when the test ends.
func engineLoaded(t *testing.T, e servicetest.Engine, cat string) []string {
	t.Helper()
	env := engineEnv(t, e)
	run(t, env, filepath.Join(build(t), "mediactl"), "load", cat)
	return env
}

// server is one running mediagw.
type server struct {
	t       *testing.T
	cmd     *exec.Cmd
	addr    string // host:port of the public listener
	admin   string // host:port of the admin listener
	logPath string
	exited  chan error
}

// start runs mediagw with env (its backend's settings) and waits until it serves.
func start(t *testing.T, env []string) *server {
	t.Helper()
	s := &server{t: t, logPath: filepath.Join(t.TempDir(), "mediagw.log"), exited: make(chan error, 1)}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	s.cmd = exec.Command(filepath.Join(build(t), "mediagw"))
	s.cmd.Env = append(cleanEnv(), append([]string{
		"MEDIA_ADDR=127.0.0.1:0", "MEDIA_ADMIN_ADDR=127.0.0.1:0",
		// The suite is about connections and work, not the rate limit: every visitor is let through.
		"MEDIA_RATE_LIMIT=100000000", "MEDIA_SHUTDOWN_DELAY=0s", "MEDIA_SHUTDOWN_GRACE=5s",
		// The Go memory limit the pod's manifest gives it (deploy/k8s: its limit in MiB, written as
		// millions of bytes), under which mediagw lets the heap grow further between collections.
		fmt.Sprintf("GOMEMLIMIT=%d", podMemory>>20*1000000),
	}, env...)...)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(s.stop)
	deadline := time.Now().Add(2 * time.Minute)
	for s.addr == "" {
		select {
		case err := <-s.exited:
			s.exited <- err
			t.Fatalf("mediagw exited before serving: %v\n%s", err, s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("mediagw did not serve within 2 minutes:\n%s", s.logTail())
		}
		s.readAddrs()
	}
	return s
}

// readAddrs takes the listeners' addresses from the "serving" log line, once written.
func (s *server) readAddrs() {
	f, err := os.Open(s.logPath)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct{ Msg, Addr, AdminAddr string }
		var raw map[string]any
		if json.Unmarshal(sc.Bytes(), &raw) != nil || raw["msg"] != "serving" {
			continue
		}
		line.Addr, _ = raw["addr"].(string)
		line.AdminAddr, _ = raw["admin_addr"].(string)
		s.addr, s.admin = line.Addr, line.AdminAddr
		// The memory figures hold for the collector the pod's limit sets (cmd/mediagw).
		if pct, _ := raw["gc_percent"].(float64); pct != 200 {
			s.t.Errorf("mediagw serves with gc_percent %v under GOMEMLIMIT, want 200", raw["gc_percent"])
		}
	}
}

func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// logSize is how many bytes the server has logged so far.
func (s *server) logSize() int64 {
	fi, err := os.Stat(s.logPath)
	if err != nil {
		s.t.Fatal(err)
	}
	return fi.Size()
}

// hostileLog is how many bytes the server logged from offset on, leaving out the lines of
// successful requests (the suite's probes of normal traffic).
func (s *server) hostileLog(offset int64) int64 {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		s.t.Fatal(err)
	}
	var n int64
	for line := range bytes.SplitSeq(b[offset:], []byte("\n")) {
		if len(line) > 0 && !bytes.Contains(line, []byte(`"status":200,`)) {
			n += int64(len(line)) + 1
		}
	}
	return n
}

// stop ends the server with SIGTERM, as Kubernetes does, and expects it to exit cleanly.
func (s *server) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		if err != nil {
			s.t.Errorf("mediagw exited with %v after SIGTERM:\n%s", err, s.logTail())
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		s.t.Errorf("mediagw still ran 30 s after SIGTERM")
	}
}

// peakRSS is the server's peak resident memory so far (VmHWM).
func (s *server) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		s.t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		s.t.Fatalf("no VmHWM in /proc/PID/status")
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// metric is the value of a metric on the admin listener, named with its labels if it has any.
func (s *server) metric(name string) float64 {
	v, ok := s.readMetric(name)
	if !ok {
		s.t.Fatalf("no metric %s", name)
	}
	return v
}

// from dials the server from the loopback address 127.0.0.n: the server sees each n as its own
// client, so the suite can hold more connections than one address may.
func (s *server) from(n int) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(n))}, Timeout: 10 * time.Second}
}

// client is a keep-alive HTTP client from 127.0.0.n.
func (s *server) client(n int) *http.Client {
	d := s.from(n)
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}}
}

// forwarding is client(n) as the suite's proxy at 127.0.0.n, which says every request it sends
// came from client.
func (s *server) forwarding(n int, client string) *http.Client {
	c := s.client(n)
	c.Transport = forwarded{c.Transport, client}
	return c
}

// forwarded adds an X-Forwarded-For of client to each request.
type forwarded struct {
	http.RoundTripper
	client string
}

func (f forwarded) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-Forwarded-For", f.client)
	return f.RoundTripper.RoundTrip(req)
}

// url is the public URL of target.
func (s *server) url(target string) string { return "http://" + s.addr + target }

// exchange sends request on a new connection from 127.0.0.n and reads one response to method;
// closed says whether the server then closed the connection (within 3 s).
func (s *server) exchange(n int, method, request string) (resp *http.Response, body []byte, closed bool, err error) {
	c, err := s.from(n).Dial("tcp", s.addr)
	if err != nil {
		return nil, nil, false, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	go io.WriteString(c, request) //nolint:errcheck // the server may close before reading it all
	br := bufio.NewReader(c)
	resp, err = http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return nil, nil, false, err
	}
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, false, err
	}
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, err = io.Copy(io.Discard, br)
	var ne net.Error
	closed = !(errors.As(err, &ne) && ne.Timeout())
	return resp, body, closed, nil
}

// probe asks target every interval through one keep-alive client until ctx ends.
func (s *server) probe(ctx context.Context, n int, target string, interval time.Duration) *samples {
	out := &samples{done: make(chan struct{})}
	c := s.client(n)
	go func() {
		defer close(out.done)
		defer c.CloseIdleConnections()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			resp, err := c.Get(s.url(target))
			status := 0
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				status = resp.StatusCode
			}
			out.add(time.Since(start), status)
		}
	}()
	return out
}

// samples are the latencies and statuses of a series of requests.
type samples struct {
	mu       sync.Mutex
	d        []time.Duration
	statuses map[int]int
	done     chan struct{}
}

func (s *samples) add(d time.Duration, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	if s.statuses == nil {
		s.statuses = map[int]int{}
	}
	s.statuses[status]++
}

// wait waits for a probe's last request.
func (s *samples) wait() *samples {
	if s.done != nil {
		<-s.done
	}
	return s
}

// pct is the p-th percentile (0-100).
func (s *samples) pct(p float64) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.d) == 0 {
		return 0
	}
	d := slices.Clone(s.d)
	slices.Sort(d)
	i := int(float64(len(d)-1) * p / 100)
	return d[i]
}

func (s *samples) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.d)
}

// only says whether every status is one of want.
func (s *samples) only(want ...int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.statuses {
		if !slices.Contains(want, st) {
			return false
		}
	}
	return true
}

func (s *samples) String() string {
	return fmt.Sprintf("%d requests, p50 %s, p99 %s, max %s, statuses %v", s.count(), ms(s.pct(50)), ms(s.pct(99)), ms(s.pct(100)), s.statuses)
}

// ms writes d in milliseconds, to one decimal below 10 ms.
func ms(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// raiseFileLimit lifts the soft limit of open files to the hard one: the suite holds thousands of
// connections, and mediagw, started from here, inherits the limit.
func raiseFileLimit(t *testing.T, need uint64) {
	t.Helper()
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			t.Fatal(err)
		}
	}
	if l.Cur < need {
		t.Fatalf("open files limited to %d, the suite needs %d: raise it (ulimit -n %d)", l.Cur, need, need)
	}
}

// report collects the figures of a run, written to $ATTACK_REPORT when set.
type report struct {
	mu   sync.Mutex
	rows [][3]string
}

func (r *report) add(probe, outcome, figures string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = append(r.rows, [3]string{probe, outcome, figures})
}

func (r *report) markdown(title string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "### %s\n\n| probe | outcome | figures |\n|---|---|---|\n", title)
	for _, row := range r.rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0], row[1], row[2])
	}
	return b.String()
}

// write logs the report's table under title and appends it to $ATTACK_REPORT when set.
func (r *report) write(t *testing.T, title string) {
	t.Helper()
	md := r.markdown(title)
	t.Log("\n" + md)
	path := os.Getenv("ATTACK_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, md); err != nil {
		t.Fatal(err)
	}
}

// smallReceiver sets a 4 KiB receive buffer before connecting, so that the kernel does not grow
// it and the server's writes soon wait for a read.
func smallReceiver(d *net.Dialer) *net.Dialer {
	d.Control = func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
		})
		if err != nil {
			return err
		}
		return serr
	}
	return d
}

// liveHeap forces collections through the profiler's heap endpoint (MEDIA_PPROF=on), then reads
// go_memstats_heap_alloc_bytes: the live heap, whatever the collector's pacing left standing.
// Two, since sync.Pool keeps what it held until the second.
func (s *server) liveHeap() float64 {
	for range 2 {
		resp, err := http.Get("http://" + s.admin + "/debug/pprof/heap?gc=1")
		if err != nil {
			s.t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			s.t.Fatalf("the heap profile answered %s: is MEDIA_PPROF on?", resp.Status)
		}
	}
	return s.metric("go_memstats_heap_alloc_bytes")
}

// readMetric is metric without failing the test, for goroutines of its own.
func (s *server) readMetric(name string) (float64, bool) {
	resp, err := http.Get("http://" + s.admin + "/metrics")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
