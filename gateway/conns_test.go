package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"mediagw/search"
)

// connServer serves a gateway over a real listener wrapped by Conns, as cmd/mediagw does.
func connServer(t testing.TB, limits ConnLimits, opts ...func(*Conns)) (addr string, l *Conns) {
	t.Helper()
	g, ln := connGateway(t)
	l = g.Listener(ln, limits)
	for _, o := range opts {
		o(l)
	}
	srv := &http.Server{Handler: g, ReadHeaderTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second,
		MaxHeaderBytes: 8 << 10, ConnState: l.ConnState, DisableGeneralOptionsHandler: true}
	go srv.Serve(l) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), l
}

// connGateway is a gateway on an empty backend and a loopback listener for it.
func connGateway(t testing.TB) (*Gateway, net.Listener) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.PublicURL = "https://media.example.org"
	g, err := New(cfg, emptyBackend{}, fixedLimiter{true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return g, ln
}

// emptyBackend holds no item; the calls it leaves out are not made.
type emptyBackend struct{ search.Backend }

func (emptyBackend) Search(context.Context, *search.Request) (search.Result, error) {
	return search.Result{}, nil
}
func (emptyBackend) Item(context.Context, string) (search.Item, error) {
	return search.Item{}, search.ErrNotFound
}
func (emptyBackend) Categories(context.Context, search.Query) ([]search.Category, error) {
	return nil, nil
}
func (emptyBackend) Authors(context.Context, search.Query) ([]search.Author, error) { return nil, nil }
func (emptyBackend) Ping(context.Context) error                                     { return nil }

// raw sends request on a new connection and reads one response, or the error of reading it.
func raw(t *testing.T, addr, request string) (*http.Response, []byte, net.Conn, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, request); err != nil {
		return nil, nil, c, err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, c, err
	}
	body, err := io.ReadAll(resp.Body)
	return resp, body, c, err
}

// closedSoon says whether the server closes c within a generous bound.
func closedSoon(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestRefusedRequestsAreProblems: a request the API will not read (a body, Content-Length with
// Transfer-Encoding, headers past MaxHeaderBytes, a malformed line) gets a problem body with the
// CORS headers, whoever refuses it, and its connection is closed.
func TestRefusedRequestsAreProblems(t *testing.T) {
	addr, _ := connServer(t, ConnLimits{})
	tests := []struct {
		name    string
		request string
		status  int
		slug    string
	}{
		{"body on GET", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 400, "bad-request"},
		{"body on POST", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nab", 400, "bad-request"},
		{"Content-Length with Transfer-Encoding", "GET /?resource=categories HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "bad-request"},
		{"chunked body", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", 400, "bad-request"},
		{"unknown transfer coding", "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "bad-request"},
		{"headers too large", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 20<<10) + "\r\n\r\n", 431, "headers-too-large"},
		{"path too large", "GET /" + strings.Repeat("a", 20<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, "headers-too-large"},
		{"malformed request line", "GET\r\n\r\n", 400, "bad-request"},
		{"no Host", "GET / HTTP/1.1\r\n\r\n", 400, "bad-request"},
		{"malformed header", "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400, "bad-request"},
		{"unknown expectation", "GET / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n", 400, "bad-request"},
		{"unsupported version", "GET / HTTP/2.5\r\nHost: x\r\n\r\n", 400, "bad-request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body, c, err := raw(t, addr, tt.request)
			if err != nil {
				t.Fatalf("no response: %v", err)
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/problem+json" ||
				resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%d %v, want %d application/problem+json with CORS and no-store", resp.StatusCode, resp.Header, tt.status)
			}
			var p problem
			if err := json.Unmarshal(body, &p); err != nil || p.Status != tt.status || p.Type != "https://media.example.org/problems/"+tt.slug || p.RequestID == "" {
				t.Errorf("body %s (%v), want a %s problem with a request id", body, err, tt.slug)
			}
			if id := resp.Header.Get("X-Request-Id"); id != p.RequestID {
				t.Errorf("X-Request-Id %q, want the body's request id %q (openapi.json requires the header on every answer)", id, p.RequestID)
			}
			if !resp.Close {
				t.Error("the answer does not say Connection: close")
			}
			if !closedSoon(c) {
				t.Error("the connection stayed open")
			}
		})
	}
}

// TestNoBodyIsRead: a body trickled in after the headers holds nothing: the answer comes at once,
// and the connection is closed without waiting for the rest (the server's read timeout is 3 s).
func TestNoBodyIsRead(t *testing.T) {
	addr, _ := connServer(t, ConnLimits{})
	start := time.Now()
	resp, _, c, err := raw(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\na")
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("%v %v, want 400", resp, err)
	}
	go func() {
		for range 10 {
			time.Sleep(200 * time.Millisecond)
			if _, err := io.WriteString(c, "a"); err != nil {
				return
			}
		}
	}()
	if !closedSoon(c) {
		t.Fatal("the connection stayed open")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("closed after %s: the body was read", d)
	}
}

// TestConnLimits: past a cap a new connection is closed at once, unless an idle one can go instead.
func TestConnLimits(t *testing.T) {
	t.Run("per address", func(t *testing.T) {
		addr, l := connServer(t, ConnLimits{PerIP: 2})
		held := []net.Conn{dial(t, addr), dial(t, addr)}
		waitOpen(t, l, 2)
		if c := dial(t, addr); !closedSoon(c) {
			t.Error("a third connection from one address stayed open")
		}
		held[0].Close()
		waitOpen(t, l, 1)
		if resp, _, _, err := raw(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("after one closed: %v %v, want 200", resp, err)
		}
	})
	t.Run("total, nothing idle", func(t *testing.T) {
		// Never silent long enough to be reclaimed, however slow the machine.
		addr, l := connServer(t, ConnLimits{Max: 2}, func(l *Conns) { l.reclaimAfter = time.Hour })
		// Half a request line each: busy, not idle.
		for range 2 {
			c := dial(t, addr)
			io.WriteString(c, "GET /hea")
		}
		waitOpen(t, l, 2)
		if c := dial(t, addr); !closedSoon(c) {
			t.Error("a connection past the cap stayed open")
		}
	})
	t.Run("total, a silent one makes room", func(t *testing.T) {
		addr, l := connServer(t, ConnLimits{Max: 1}, func(l *Conns) { l.reclaimAfter = 50 * time.Millisecond })
		silent := dial(t, addr)
		waitOpen(t, l, 1)
		time.Sleep(100 * time.Millisecond)
		if resp, _, _, err := raw(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("new connection at the cap: %v %v, want 200", resp, err)
		}
		if !closedSoon(silent) {
			t.Error("the silent connection stayed open")
		}
	})
	t.Run("total, an idle one makes room", func(t *testing.T) {
		addr, l := connServer(t, ConnLimits{Max: 2}, func(l *Conns) { l.reclaimAfter = time.Hour })
		busy := dial(t, addr)
		io.WriteString(busy, "GET /hea")
		idleResp, _, idle, err := raw(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		if err != nil || idleResp.Close {
			t.Fatalf("keep-alive request: %v %v", idleResp, err)
		}
		waitOpen(t, l, 2)
		// The server marks a connection idle after it has sent the answer the client may already
		// have read: a connection dialled before then finds none to reclaim.
		waitIdle(t, l, 1)
		if resp, _, _, err := raw(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("new connection at the cap: %v %v, want 200", resp, err)
		}
		if !closedSoon(idle) {
			t.Error("the idle connection stayed open")
		}
		if _, err := io.WriteString(busy, "lthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if resp, err := http.ReadResponse(bufio.NewReader(busy), nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("the busy connection: %v %v, want its 200", resp, err)
		}
	})
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitOpen waits until the listener holds n connections: Accept runs in the server's goroutine.
func waitOpen(t *testing.T, l *Conns, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); l.Open() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want %d", l.Open(), n)
		}
	}
}

// waitIdle waits until n of l's connections are idle between requests.
func waitIdle(t *testing.T, l *Conns, n int) {
	t.Helper()
	idle := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		k := 0
		for c := range l.open {
			if c.state.Load() == int32(http.StateIdle) {
				k++
			}
		}
		return k
	}
	for deadline := time.Now().Add(5 * time.Second); idle() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections idle, want %d", idle(), n)
		}
	}
}

// TestGoErrorReason: what Go's server says of a request it could not read, never the request.
func TestGoErrorReason(t *testing.T) {
	for _, tt := range []struct{ status, text, want string }{
		{"400", "400 Bad Request", "malformed request line or header"},
		{"400", "400 Bad Request: missing required Host header", "missing required Host header"},
		{"501", "Unsupported transfer encoding", "unsupported transfer encoding"},
	} {
		if got := goErrorReason(tt.status, tt.text); got != tt.want {
			t.Errorf("goErrorReason(%q, %q) = %q, want %q", tt.status, tt.text, got, tt.want)
		}
	}
}

// FuzzRawRequest sends any bytes as a request to a real server: whatever answers (Go's server or
// the API), an answer is never a 5xx, always carries the CORS headers, and a refusal is a problem.
func FuzzRawRequest(f *testing.F) {
	for _, s := range []string{
		"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
		"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
		"GET / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n",
		"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
		"GET /?resource=items&q=%zz HTTP/1.1\r\nHost: x\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET http://x/qr/a%252Db.png HTTP/1.1\r\nHost: x\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET\r\n\r\n",
		"\r\n\r\n",
	} {
		f.Add(s)
	}
	addr, _ := connServer(f, ConnLimits{})
	f.Fuzz(func(t *testing.T, request string) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, request)
		c.(*net.TCPConn).CloseWrite()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return // no answer, or not one for a GET: nothing to hold to account
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 500 {
			t.Fatalf("%q: %d %s", request, resp.StatusCode, body)
		}
		if resp.StatusCode < 200 {
			return // 100 Continue: the answer follows
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("%q: %d without CORS: %v", request, resp.StatusCode, resp.Header)
		}
		if resp.StatusCode >= 400 && resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%q: %d %q, not a problem: %s", request, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	})
}

// TestOptionsStar: OPTIONS * reaches the API (net/http's own answer has no CORS headers).
func TestOptionsStar(t *testing.T) {
	addr, _ := connServer(t, ConnLimits{})
	resp, body, _, err := raw(t, addr, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
	if err != nil || resp.StatusCode != http.StatusNotFound || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("%v %v: %s, want a 404 problem with CORS", resp, err, body)
	}
}

// TestStalledWriteGivenUp: an answer to a client that stops reading fails once a chunk has made
// no progress for writeStall, long before the server's write deadline; a client that reads slowly
// but steadily gets all of it, however long that takes past writeStall.
func TestStalledWriteGivenUp(t *testing.T) {
	const stall = 200 * time.Millisecond
	for _, tc := range []struct {
		name string
		size int
		// readEvery is how often the client reads 16 KiB; 0 for never.
		readEvery time.Duration
		wantErr   bool
	}{
		{"never reads", 8 << 20, 0, true},
		{"reads slowly", 512 << 10, stall / 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, ln := connGateway(t)
			l := g.Listener(ln, ConnLimits{})
			// A small send buffer, so that the kernel holds little of an answer and the writes
			// wait for the client.
			l.writeStall, l.sendBuffer = stall, 8<<10
			type outcome struct {
				took time.Duration
				err  error
			}
			done := make(chan outcome, 1)
			srv := &http.Server{ConnState: l.ConnState, WriteTimeout: time.Minute,
				Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					start := time.Now()
					_, err := w.Write(make([]byte, tc.size))
					done <- outcome{time.Since(start), err}
				})}
			go srv.Serve(l) //nolint:errcheck // ends with Close
			t.Cleanup(func() { srv.Close() })

			// The receive buffer set before connecting, so the kernel does not grow it.
			d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
				return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 8<<10) })
			}}
			c, err := d.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			if tc.readEvery > 0 {
				go func() {
					buf := make([]byte, 16<<10)
					for {
						if _, err := c.Read(buf); err != nil {
							return
						}
						time.Sleep(tc.readEvery)
					}
				}()
			}
			select {
			case o := <-done:
				if (o.err != nil) != tc.wantErr {
					t.Fatalf("the write ended after %s with %v, want an error: %v", o.took, o.err, tc.wantErr)
				}
				if !tc.wantErr && o.took < 3*stall {
					t.Fatalf("the slow client took the answer in %s: it never stalled the writes", o.took)
				}
				if tc.wantErr && o.took > 10*stall {
					t.Errorf("the stalled write was given up after %s, want about %s", o.took, stall)
				}
				t.Logf("%s: the write ended after %s (%v)", tc.name, o.took, o.err)
			case <-time.After(45 * time.Second):
				t.Fatal("the write did not end within 45 s")
			}
		})
	}
}
