//go:build attack

package attacktest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mediagw/internal/servicetest"
)

// Generous bounds: the suite runs on shared 2-CPU machines, so timings are reported as figures
// and only asserted where a failure means something is broken, not slow.
const (
	normalBound = time.Second
	refuseBound = time.Second
	// closeSlack is how long past its deadline a connection may take to be seen closed.
	closeSlack = 3 * time.Second
	// maxLogPerRequest is what one hostile request may cost in log.
	maxLogPerRequest = 2 << 10
)

func TestAttack(t *testing.T) {
	raiseFileLimit(t, 8192)
	cat, catName := catalogue(t)
	t.Run("embedded", func(t *testing.T) {
		dir := t.TempDir()
		env := []string{"MEDIA_BACKEND=embedded", "MEDIA_INDEX_DIR=" + dir}
		run(t, env, filepath.Join(build(t), "mediactl"), "load", cat)
		s := start(t, env)
		attack(t, s, "embedded index, "+catName)
		// The index is the first server's until it stops.
		s.stop()
		t.Run("idle connections under pressure", func(t *testing.T) {
			underPressure(t, start(t, append(env, fmt.Sprintf("MEDIA_MAX_CONNS=%d", pressureCap))))
		})
		t.Run("ten costly visitors", func(t *testing.T) {
			manyCostly(t, start(t, append(env, manyCostlyEnv...)), "embedded index, "+catName+", ten costly visitors")
		})
	})
	e := servicetest.TestEngine(t)
	t.Run(e.Name, func(t *testing.T) {
		attack(t, engineServer(t, e, cat), e.Product+", "+catName)
	})
}

// engineServer runs mediagw on e, with cat loaded under an alias of the test's own, whose
// indices are removed after it.
func engineServer(t *testing.T, e servicetest.Engine, cat string) *server {
	return start(t, engineLoaded(t, e, cat))
}

// attack runs every probe against s and reports the figures.
func attack(t *testing.T, s *server, title string) {
	r := &report{}
	id := firstID(t, s)
	t.Run("slow and idle connections", func(t *testing.T) { slowConnections(t, s, r) })
	t.Run("connections per address", func(t *testing.T) { perAddress(t, s, r) })
	t.Run("huge requests", func(t *testing.T) { hugeRequests(t, s, r) })
	t.Run("bodies and CL+TE", func(t *testing.T) { bodies(t, s, r) })
	t.Run("double-encoded paths", func(t *testing.T) { doubleEncoded(t, s, r, id) })
	t.Run("costliest searches", func(t *testing.T) { heavySearches(t, s, r, id) })
	t.Run("two costly visitors", func(t *testing.T) { costlyVisitors(t, s, r) })
	t.Run("nothing left open", func(t *testing.T) { nothingLeftOpen(t, s, r) })
	r.write(t, title)
}

// firstID is the id of the first item the server lists.
func firstID(t *testing.T, s *server) string {
	t.Helper()
	c := s.client(2)
	defer c.CloseIdleConnections()
	resp, err := c.Get(s.url("/?resource=items&per_page=1&sort=az"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct{ Data []struct{ ID string } }
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || len(page.Data) == 0 {
		t.Fatalf("first item: %v %+v", err, page)
	}
	return page.Data[0].ID
}

// slowConn is what the suite saw of one hostile connection.
type slowConn struct {
	kind   string
	closed time.Duration // from connecting to the server's close; 0 if never seen
	status string        // the status line the server sent, if any
}

// slowConnections holds 1,000 idle connections (nothing sent), 1,000 sending their headers a line
// a second and 1,000 sending a 100,000-byte body a byte every 2 s, from 30 addresses, while normal
// requests and /healthz are timed.
func slowConnections(t *testing.T, s *server, r *report) {
	const each = 1000
	kinds := []struct {
		name  string
		first string
		drip  string
		every time.Duration
		bound time.Duration
	}{
		{"idle", "", "", 0, headerTimeout},
		{"slow headers", "GET /?resource=categories HTTP/1.1\r\nHost: a\r\n", "X-Slow: 1\r\n", time.Second, headerTimeout},
		{"slow body", "POST /?resource=categories HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n", "a", 2 * time.Second, readTimeout},
	}
	ctx, cancel := context.WithCancel(t.Context())
	normal := s.probe(ctx, 200, "/?resource=items&q=london&per_page=5", 20*time.Millisecond)
	health := s.probe(ctx, 201, "/healthz", 20*time.Millisecond)
	logBefore := s.logSize()

	var wg sync.WaitGroup
	results := make(chan slowConn, 3*each)
	addr := 10
	for ki, k := range kinds {
		for i := range each {
			wg.Add(1)
			go func(from int) {
				defer wg.Done()
				results <- holdSlow(s, from, k.name, k.first, k.drip, k.every, k.bound+2*closeSlack)
			}(addr + (ki*each+i)%30)
		}
	}
	wg.Wait()
	close(results)
	time.Sleep(500 * time.Millisecond) // some requests after the connections have gone
	cancel()
	normal.wait()
	health.wait()

	worst := map[string]time.Duration{}
	open := map[string]int{}
	statuses := map[string]map[string]int{}
	for c := range results {
		if c.closed == 0 {
			open[c.kind]++
			continue
		}
		worst[c.kind] = max(worst[c.kind], c.closed)
		if statuses[c.kind] == nil {
			statuses[c.kind] = map[string]int{}
		}
		statuses[c.kind][c.status]++
	}
	for _, k := range kinds {
		if open[k.name] > 0 {
			t.Errorf("%s: %d of %d connections still open past %s", k.name, open[k.name], each, k.bound+2*closeSlack)
		}
		if worst[k.name] > k.bound+closeSlack {
			t.Errorf("%s: a connection closed after %s, want within %s of the %s deadline", k.name, worst[k.name], closeSlack, k.bound)
		}
	}
	if n := statuses["slow body"]["HTTP/1.1 400 Bad Request"]; n != each {
		t.Errorf("slow bodies answered %v, want 400 for every one", statuses["slow body"])
	}
	checkProbe(t, "normal searches", normal, normalBound)
	checkProbe(t, "/healthz", health, normalBound)
	logged := s.hostileLog(logBefore)
	if per := logged / (3 * each); per > maxLogPerRequest {
		t.Errorf("%d bytes of log for %d connections: %d each", logged, 3*each, per)
	}
	for _, k := range kinds {
		r.add(fmt.Sprintf("%s connections: %s", number(each), k.name),
			fmt.Sprintf("all closed within %s (deadline %s)", ms(worst[k.name]), k.bound), counts(statuses[k.name]))
	}
	r.add("normal searches during those 3,000", codes(normal.statuses), latencies(normal))
	r.add("/healthz during those 3,000", codes(health.statuses), latencies(health))
	r.add("log for those 3,000 (the probes' own lines left out)", "", fmt.Sprintf("%s bytes in all", number(int(logged))))
}

// holdSlow opens one connection from 127.0.0.from, sends first, then drip every interval until
// the server closes the connection or giveUp passes.
func holdSlow(s *server, from int, kind, first, drip string, every, giveUp time.Duration) slowConn {
	out := slowConn{kind: kind}
	start := time.Now()
	c, err := s.from(from).Dial("tcp", s.addr)
	if err != nil {
		out.status = "dial: " + err.Error()
		out.closed = time.Since(start)
		return out
	}
	defer c.Close()
	c.SetDeadline(start.Add(giveUp))
	stop := make(chan struct{})
	go func() {
		if first != "" {
			if _, err := io.WriteString(c, first); err != nil {
				return
			}
		}
		if drip == "" {
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := io.WriteString(c, drip); err != nil {
					return
				}
			}
		}
	}()
	defer close(stop)
	got, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return out // still open at giveUp
	}
	out.closed = time.Since(start)
	out.status, _, _ = strings.Cut(string(got), "\r\n")
	if out.status == "" {
		out.status = "closed without an answer"
	}
	return out
}

// perAddress opens 200 connections from one address: past 128 they are closed at once.
func perAddress(t *testing.T, s *server, r *report) {
	const n = 200
	var wg sync.WaitGroup
	early := make(chan time.Duration, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := holdSlow(s, 250, "idle", "", "", 0, 2*time.Second)
			if c.closed > 0 {
				early <- c.closed
			}
		}()
	}
	wg.Wait()
	close(early)
	var worst time.Duration
	count := 0
	for d := range early {
		count++
		worst = max(worst, d)
	}
	if count != n-perIPCap {
		t.Errorf("%d of %d connections from one address closed within 2 s, want the %d past the cap of %d", count, n, n-perIPCap, perIPCap)
	}
	r.add(fmt.Sprintf("%d connections from one address", n), fmt.Sprintf("%d closed at once (cap %d)", count, perIPCap), "slowest close "+ms(worst))
}

// every method the suite sends, the API's own and others.
var methods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"}

// hugeRequests sends 100 KB paths and query strings with every method, one huge header, many
// headers, then a flood of 2,000 requests with 30 KB paths the API does answer (404): every
// answer is a problem body or a success, never a 5xx, and the log stays small.
func hugeRequests(t *testing.T, s *server, r *report) {
	logBefore := s.logSize()
	sent := 0
	expect := func(what, method, request string, want ...int) {
		t.Helper()
		sent++
		resp, body, closed, err := s.exchange(60, method, request)
		if err != nil {
			t.Errorf("%s %s: %v", method, what, err)
			return
		}
		if !slices.Contains(want, resp.StatusCode) {
			t.Errorf("%s %s: %d, want one of %v", method, what, resp.StatusCode, want)
		}
		if resp.StatusCode >= 400 && (resp.Header.Get("Content-Type") != "application/problem+json" || resp.Header.Get("Access-Control-Allow-Origin") != "*") {
			t.Errorf("%s %s: %d %q without CORS or not a problem: %.200s", method, what, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if resp.StatusCode == http.StatusRequestHeaderFieldsTooLarge && !closed {
			t.Errorf("%s %s: 431 on a connection left open", method, what)
		}
	}
	long := strings.Repeat("a", 100_000)
	for _, m := range methods {
		expect("100 KB path", m, m+" /"+long+" HTTP/1.1\r\nHost: a\r\n\r\n", 431)
		expect("100 KB query", m, m+" /?resource=items&q="+long+" HTTP/1.1\r\nHost: a\r\n\r\n", 431)
	}
	expect("100 KB header", "GET", "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: "+long+"\r\n\r\n", 431)
	var many strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&many, "X-H%d: v\r\n", i)
	}
	expect("1,000 headers", "GET", "GET /healthz HTTP/1.1\r\nHost: a\r\n"+many.String()+"\r\n", 200)
	for i := range 4000 {
		fmt.Fprintf(&many, "X-More%d: v\r\n", i)
	}
	expect("5,000 headers", "GET", "GET /healthz HTTP/1.1\r\nHost: a\r\n"+many.String()+"\r\n", 431)
	expect("726 KB X-Forwarded-For", "GET", "GET /healthz HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: "+strings.Repeat("1.2.3.4, ", 80_000)+"\r\n\r\n", 431)
	expect("malformed request line", "GET", "GET\r\n\r\n", 400)
	oneOff := s.hostileLog(logBefore)

	// A flood the handler answers: 30 KB paths (within the header limit), 8 at a time.
	floodBefore := s.logSize()
	path := "/" + strings.Repeat("b", 30_000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	start := time.Now()
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(70 + w)
			defer c.CloseIdleConnections()
			for i := range 250 {
				req, _ := http.NewRequest(methods[(w+i)%len(methods)], s.url(path+"?"+strings.Repeat("q", 1000)), nil)
				resp, err := c.Do(req)
				st := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					st = resp.StatusCode
				}
				mu.Lock()
				statuses[st]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	flood := s.hostileLog(floodBefore)
	for st := range statuses {
		if st == 0 || st >= 500 {
			t.Errorf("the flood got %v, want no failure and no 5xx", statuses)
			break
		}
	}
	if per := oneOff / int64(sent); per > maxLogPerRequest {
		t.Errorf("%d bytes of log for %d huge requests: %d each", oneOff, sent, per)
	}
	if per := flood / 2000; per > maxLogPerRequest {
		t.Errorf("%d bytes of log for 2,000 requests with 30 KB paths: %d each", flood, per)
	}
	r.add("100 KB path or query string, each of 9 methods; 100 KB header; 5,000 headers; 726 KB X-Forwarded-For",
		"431 problem+json with CORS, connection closed", fmt.Sprintf("%d requests, %s bytes of log in all", sent, number(int(oneOff))))
	r.add("2,000 requests with 30 KB paths, 9 methods, 8 at a time", codes(statuses),
		fmt.Sprintf("%s bytes of log (%d per request) in %s", number(int(flood)), flood/2000, ms(took)))
}

// bodies sends bodies slowly and at once, and Content-Length with Transfer-Encoding.
func bodies(t *testing.T, s *server, r *report) {
	cases := []struct{ what, request string }{
		{"POST with a body", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"},
		{"GET with a body", "GET /?resource=categories HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"},
		{"CL+TE", "GET /?resource=categories HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"},
		{"TE+CL", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n"},
		{"chunked", "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	}
	for _, c := range cases {
		resp, body, closed, err := s.exchange(61, "GET", c.request)
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "/problems/bad-request") || !closed {
			t.Errorf("%s: %d, closed %v: %.200s; want 400 bad-request and the connection closed", c.what, resp.StatusCode, closed, body)
		}
	}
	r.add("a body (at once or 1 byte per 2 s), Content-Length with Transfer-Encoding, chunked", "400 bad-request unread, connection closed", "")
}

// doubleEncoded sends paths encoded twice: decoded once, they name nothing.
func doubleEncoded(t *testing.T, s *server, r *report, id string) {
	twice := strings.ReplaceAll(url.PathEscape(url.PathEscape(id)), "-", "%252D")
	cases := []struct {
		target string
		want   int
	}{
		{"/qr/" + url.PathEscape(id) + ".png", http.StatusOK},
		{"/qr/" + twice + ".png", http.StatusNotFound},
		{"/%252e%252e/%252e%252e/etc/passwd", http.StatusNotFound},
		{"/qr/%252e%252e%252f%252e%252e%252fetc%252fpasswd.png", http.StatusNotFound},
		{"/?resource=item&id=" + strings.ReplaceAll(url.QueryEscape(id), "-", "%252D"), http.StatusNotFound},
	}
	c := s.client(62)
	defer c.CloseIdleConnections()
	for _, tc := range cases {
		req, _ := http.NewRequest(http.MethodGet, s.url("/"), nil)
		req.URL.Opaque = "//" + s.addr + tc.target // sent exactly as written
		resp, err := c.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tc.target, err)
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.target, resp.StatusCode, tc.want)
		}
	}
	r.add("double-encoded paths (`/qr/` with `%252D`, `%252e%252e`)", "404: decoded once", "")
}

// heavySearches sends 150 searches of 200 characters of random six-letter words at once (the
// costliest kind: each word's typo allowance reaches many indexed words), from 15 addresses, while
// /healthz and an item are timed: the excess, if any, must get 503 with Retry-After fast.
func heavySearches(t *testing.T, s *server, r *report, id string) {
	const n = 150
	rng := rand.New(rand.NewPCG(7, 24))
	queries := make([]string, n)
	for i := range queries {
		var b strings.Builder
		for {
			w := randomWord(rng, 6)
			if b.Len()+1+len(w) > 200 {
				break
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
		queries[i] = b.String()
	}
	logFrom := s.logSize()
	ctx, cancel := context.WithCancel(t.Context())
	health := s.probe(ctx, 202, "/healthz", 20*time.Millisecond)
	item := s.probe(ctx, 203, "/?resource=item&id="+url.QueryEscape(id), 100*time.Millisecond)
	time.Sleep(200 * time.Millisecond)

	ok, refused, other := &samples{}, &samples{}, &samples{}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	badRefusals := 0
	var mu sync.Mutex
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.client(100 + i%15)
			defer c.CloseIdleConnections()
			<-gate
			start := time.Now()
			resp, err := c.Get(s.url("/?resource=items&q=" + url.QueryEscape(q)))
			if err != nil {
				other.add(time.Since(start), 0)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d := time.Since(start)
			switch resp.StatusCode {
			case http.StatusOK:
				ok.add(d, 200)
			case http.StatusServiceUnavailable:
				refused.add(d, 503)
				if resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/problem+json" {
					mu.Lock()
					badRefusals++
					mu.Unlock()
				}
			default:
				other.add(d, resp.StatusCode)
			}
		}()
	}
	close(gate)
	wg.Wait()
	time.Sleep(300 * time.Millisecond)
	cancel()
	health.wait()
	item.wait()
	peak := s.peakRSS()

	// A burst the backend answers within normalBound has no excess (the embedded index ends a
	// search of a word that matches nothing early); past it, the excess must be refused.
	if refused.count() == 0 && ok.pct(99) > normalBound {
		t.Errorf("no search of %d refused, answers %s: the excess must get 503 (admission control, branch admit)", n, latencies(ok))
	}
	if badRefusals > 0 {
		t.Errorf("%d 503s without Retry-After or a problem body", badRefusals)
	}
	if refused.count() > 0 && refused.pct(99) > refuseBound {
		t.Errorf("503s: %s, want p99 under %s; their causes, as logged: %s", refused, refuseBound, refusals(t, s, logFrom))
	}
	// An admitted search may outlast the engine's deadline on a saturated engine (504); anything
	// else is a failure.
	if !other.only(http.StatusGatewayTimeout) {
		t.Errorf("searches answered otherwise: %s", other)
	}
	checkProbe(t, "/healthz", health, normalBound)
	if !item.only(200) {
		t.Errorf("the item during the searches: %s", item)
	}
	if peak > podMemory {
		t.Errorf("peak RSS %s MiB, over the pod's limit of %d MiB", number(int(peak>>20)), podMemory>>20)
	}
	r.add(fmt.Sprintf("%d concurrent searches of 200 characters of random six-letter words", n),
		fmt.Sprintf("%d answered 200 (%s), %d refused 503 + Retry-After, %d other (%s)", ok.count(), latencies(ok), refused.count(), other.count(), codes(other.statuses)),
		"503s: "+latencies(refused))
	r.add("/healthz during those searches", codes(health.statuses), latencies(health))
	r.add("an item during those searches", codes(item.statuses), latencies(item))
	r.add("peak RSS (VmHWM) after every probe so far", fmt.Sprintf("%.1f MiB (pod limit %d MiB)", float64(peak)/(1<<20), podMemory>>20), "")
}

func randomWord(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

// nothingLeftOpen: once the suite's clients are gone, the server holds no connection and its
// goroutines are back near where they started.
func nothingLeftOpen(t *testing.T, s *server, r *report) {
	deadline := time.Now().Add(headerTimeout + 2*closeSlack)
	var open float64
	for {
		open = s.metric("mediagw_connections_open")
		if open == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if open != 0 {
		t.Errorf("%v connections still open after the suite's clients closed theirs", open)
	}
	goroutines := s.metric("go_goroutines")
	if goroutines > 100 {
		t.Errorf("%v goroutines left", goroutines)
	}
	r.add("after every probe", fmt.Sprintf("%v connections open, %v goroutines", open, goroutines), "")
}

// pressureCap is MEDIA_MAX_CONNS for underPressure.
const pressureCap = 300

// underPressure fills the connection cap with idle keep-alive connections, then makes 100 new
// ones: each is served, an idle one closed to make room, and the cap is never passed.
func underPressure(t *testing.T, s *server) {
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	// keepAlive makes one request on a new connection from 127.0.0.from and keeps the connection.
	keepAlive := func(from int) bool {
		c, err := s.from(from).Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		c.SetDeadline(time.Now().Add(30 * time.Second))
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	for i := range pressureCap {
		if !keepAlive(150 + i%5) {
			t.Fatalf("keep-alive connection %d was not served", i)
		}
	}
	if open := s.metric("mediagw_connections_open"); open != pressureCap {
		t.Fatalf("%v connections open, want the %d idle ones", open, pressureCap)
	}
	const fresh = 100
	served := 0
	for i := range fresh {
		if keepAlive(160 + i%5) {
			served++
		}
		if open := s.metric("mediagw_connections_open"); open > pressureCap {
			t.Fatalf("%v connections open, past the cap of %d", open, pressureCap)
		}
	}
	reclaimed := s.metric("mediagw_connections_reclaimed_total")
	if served != fresh || reclaimed != fresh {
		t.Errorf("%d of %d new connections served, %v idle ones closed to make room; want all, and as many", served, fresh, reclaimed)
	}
	r := &report{}
	r.add(fmt.Sprintf("%d idle keep-alive connections at `MEDIA_MAX_CONNS=%d`, then %d new ones kept open", pressureCap, pressureCap, fresh),
		fmt.Sprintf("%d of %d new ones served; %v idle ones closed to make room", served, fresh, reclaimed), "the cap never passed")
	r.write(t, "embedded index, under pressure")
}

func checkProbe(t *testing.T, what string, p *samples, bound time.Duration) {
	t.Helper()
	if p.count() == 0 || !p.only(200) {
		t.Errorf("%s: %s, want every one 200", what, p)
	}
	if p.pct(99) > bound {
		t.Errorf("%s: %s, want p99 under %s", what, p, bound)
	}
}

func latencies(p *samples) string {
	if p.count() == 0 {
		return "none"
	}
	return fmt.Sprintf("p50 %s, p99 %s, max %s (%d)", ms(p.pct(50)), ms(p.pct(99)), ms(p.pct(100)), p.count())
}

// codes writes statuses and their counts: "200 × 525, 404 × 3".
func codes(statuses map[int]int) string {
	m := make(map[string]int, len(statuses))
	for st, n := range statuses {
		m[fmt.Sprint(st)] = n
	}
	return counts(m)
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s × %s", k, number(m[k]))
	}
	return strings.Join(parts, ", ")
}

// number writes n with thousands separators, as the docs do.
func number(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
