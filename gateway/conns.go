package gateway

import (
	"bytes"
	"crypto/rand"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// ConnLimits caps the public listener's open connections; 0 means no cap.
type ConnLimits struct {
	// Max is the cap on every open connection. At it, an idle keep-alive connection (or one that
	// has sent nothing for reclaimAfter) is closed to make room; when none is, the new one is.
	Max int
	// PerIP is the cap per client address (an IPv6 /64, as visitors are counted). A trusted
	// proxy's connections count only against Max: they carry many visitors.
	PerIP int
}

// reclaimAfter is how long a connection may have sent nothing before it can be closed to make
// room; a real client sends its request line within a round trip.
const reclaimAfter = time.Second

// An answer is written writeChunk bytes at a time, each given writeStall to leave (within the
// server's write deadline for the whole answer): a client that stops reading is given up then,
// what its answer pins freed, while one that reads, however slowly, gets it all. 16 KiB in 10 s
// is 1.6 KB/s, below any link a person browses on.
const (
	writeStall = 10 * time.Second
	writeChunk = 16 << 10
)

// sendBuffer is each accepted connection's kernel send buffer (SO_SNDBUF; Linux doubles it for
// its bookkeeping). Left to autotuning, it grows by megabytes for a client that stops reading,
// charged to the pod's memory; this keeps it small and still fills a client's link at the round
// trips of a distant one (docs/performance.md).
const sendBuffer = 256 << 10

// Conns is the public listener, wrapped: it closes the connections past its limits at once, tracks
// each connection's state (set Server.ConnState to its ConnState) to close idle ones under
// pressure, and turns the plain-text errors Go's server writes before any handler runs (a bad
// request line, headers too large) into problem+json answers with the CORS headers.
type Conns struct {
	net.Listener
	limits  ConnLimits
	trusted []netip.Prefix
	// problemURL is the prefix of a problem type's URI.
	problemURL string
	// reclaimAfter, writeStall and sendBuffer are the constants, but in tests.
	reclaimAfter time.Duration
	writeStall   time.Duration
	sendBuffer   int

	mu    sync.Mutex
	open  map[*conn]struct{}
	perIP map[string]int

	refused   *prometheus.CounterVec
	rewritten prometheus.Counter
	reclaimed prometheus.Counter
	openGauge prometheus.GaugeFunc
}

// Listener wraps ln with limits. Register the result with a Prometheus registry for its metrics.
func (g *Gateway) Listener(ln net.Listener, limits ConnLimits) *Conns {
	l := &Conns{
		Listener: ln, limits: limits, trusted: g.cfg.TrustedProxies, problemURL: g.baseURL + "problems/", reclaimAfter: reclaimAfter,
		writeStall: writeStall, sendBuffer: sendBuffer, open: make(map[*conn]struct{}), perIP: make(map[string]int),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mediagw_connections_refused_total",
			Help: "Connections closed as soon as accepted, by the limit they were past (max, per_ip)."}, []string{"limit"}),
		rewritten: prometheus.NewCounter(prometheus.CounterOpts{Name: "mediagw_protocol_errors_total",
			Help: "Requests Go's server refused before the API saw them (bad request line or header, headers too large), answered with a problem body."}),
		reclaimed: prometheus.NewCounter(prometheus.CounterOpts{Name: "mediagw_connections_reclaimed_total",
			Help: "Idle connections closed to make room for a new one at the connection cap."}),
	}
	l.openGauge = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mediagw_connections_open",
		Help: "Connections the public listener holds open."}, func() float64 { return float64(l.Open()) })
	return l
}

// Accept returns the next connection within the limits; those past them are closed here.
func (l *Conns) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if c := l.admit(nc); c != nil {
			if tc, ok := nc.(*net.TCPConn); ok {
				// On failure the kernel's default stays: the connection works all the same.
				_ = tc.SetWriteBuffer(l.sendBuffer)
			}
			return c, nil
		}
		nc.Close()
	}
}

// admit counts nc in, or returns nil when it is past a limit and no idle connection can make room.
func (l *Conns) admit(nc net.Conn) *conn {
	key := ""
	if a, ok := parseAddr(nc.RemoteAddr().String()); ok && !isTrusted(a, l.trusted) {
		key = addrKey(a)
	}
	c := &conn{Conn: nc, l: l, key: key}
	c.setState(http.StateNew)
	var victim *conn
	l.mu.Lock()
	if l.limits.PerIP > 0 && key != "" && l.perIP[key] >= l.limits.PerIP {
		l.mu.Unlock()
		l.refused.WithLabelValues("per_ip").Inc()
		return nil
	}
	if l.limits.Max > 0 && len(l.open) >= l.limits.Max {
		if victim = l.reclaimableLocked(); victim == nil {
			l.mu.Unlock()
			l.refused.WithLabelValues("max").Inc()
			return nil
		}
		l.releaseLocked(victim)
	}
	l.open[c] = struct{}{}
	if key != "" {
		l.perIP[key]++
	}
	l.mu.Unlock()
	if victim != nil {
		l.reclaimed.Inc()
		victim.Conn.Close()
	}
	return c
}

// reclaimableLocked is the connection idle the longest between requests, or, failing that, one
// that has sent nothing for reclaimAfter; nil when every connection is busy.
func (l *Conns) reclaimableLocked() *conn {
	var best *conn
	var bestSince int64
	cutoff := time.Now().Add(-l.reclaimAfter).UnixNano()
	for c := range l.open {
		st, since := c.state.Load(), c.since.Load()
		if st == int32(http.StateIdle) || (st == int32(http.StateNew) && since < cutoff) {
			if best == nil || since < bestSince {
				best, bestSince = c, since
			}
		}
	}
	return best
}

// releaseLocked counts c out; it runs once per connection, whoever closes it first.
func (l *Conns) releaseLocked(c *conn) {
	if c.released {
		return
	}
	c.released = true
	delete(l.open, c)
	if c.key != "" {
		if l.perIP[c.key]--; l.perIP[c.key] <= 0 {
			delete(l.perIP, c.key)
		}
	}
}

// ConnState is the Server.ConnState hook: it keeps each connection's state for reclaiming.
func (l *Conns) ConnState(nc net.Conn, s http.ConnState) {
	if c, ok := nc.(*conn); ok {
		c.setState(s)
	}
}

// Open is how many connections are open right now.
func (l *Conns) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open)
}

// Describe implements prometheus.Collector.
func (l *Conns) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range l.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (l *Conns) Collect(ch chan<- prometheus.Metric) {
	for _, c := range l.collectors() {
		c.Collect(ch)
	}
}

func (l *Conns) collectors() []prometheus.Collector {
	return []prometheus.Collector{l.refused, l.rewritten, l.reclaimed, l.openGauge}
}

// conn is one accepted connection.
type conn struct {
	net.Conn
	l   *Conns
	key string
	// state is the connection's http.ConnState, since when (unix nanoseconds).
	state atomic.Int32
	since atomic.Int64
	// released is guarded by l.mu.
	released bool
	// writeBy is the server's write deadline (unix nanoseconds; 0: none).
	writeBy atomic.Int64
}

func (c *conn) setState(s http.ConnState) {
	c.state.Store(int32(s))
	c.since.Store(time.Now().UnixNano())
}

// Close closes the connection and counts it out.
func (c *conn) Close() error {
	c.l.mu.Lock()
	c.l.releaseLocked(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// Write passes the server's writes on, except an error answer Go's server makes before any
// handler runs, which becomes a problem body.
func (c *conn) Write(b []byte) (int, error) {
	if out, ok := c.l.rewriteServerError(b); ok {
		c.l.rewritten.Inc()
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	n := 0
	for n < len(b) {
		by := time.Now().Add(c.l.writeStall)
		if end := c.writeBy.Load(); end != 0 && by.UnixNano() > end {
			by = time.Unix(0, end)
		}
		if err := c.Conn.SetWriteDeadline(by); err != nil {
			return n, err
		}
		m, err := c.Conn.Write(b[n:min(len(b), n+writeChunk)])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// SetWriteDeadline notes the deadline the server gives a whole answer; Write holds each chunk
// to a nearer one.
func (c *conn) SetWriteDeadline(t time.Time) error {
	c.noteWriteBy(t)
	return c.Conn.SetWriteDeadline(t)
}

// SetDeadline is SetWriteDeadline for reads and writes.
func (c *conn) SetDeadline(t time.Time) error {
	c.noteWriteBy(t)
	return c.Conn.SetDeadline(t)
}

func (c *conn) noteWriteBy(t time.Time) {
	if t.IsZero() {
		c.writeBy.Store(0)
		return
	}
	c.writeBy.Store(t.UnixNano())
}

// Go's server (net/http, conn.serve) answers a request it cannot read with one write of
// "HTTP/1.1 <status>" + goErrorHeaders + <text>. A handler's response always carries other
// headers (Date at least), so no response of the API's has this shape.
const (
	goErrorPrefix       = "HTTP/1.1 "
	goErrorHeaders      = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	goExpectationFailed = "HTTP/1.1 417 Expectation Failed\r\n"
	// goExpectationFailed10 answers an HTTP/1.0 request.
	goExpectationFailed10 = "HTTP/1.0 417 Expectation Failed\r\n"
)

// rewriteServerError turns Go's own error answer b into a problem response: 431 when the request
// line and headers were too large, 400 for every other request it could not read (a malformed
// line or header, an unsupported transfer coding or protocol version: a read-only API takes no
// body, and a client that cannot speak HTTP/1.1 will read no answer anyway).
func (l *Conns) rewriteServerError(b []byte) ([]byte, bool) {
	// Every write of every answer passes here: only one that starts with an error status line
	// can be Go's own, so the bodies and the successful answers are not searched.
	if len(b) <= len(goErrorPrefix) || !bytes.HasPrefix(b, []byte("HTTP/1.")) || b[len(goErrorPrefix)] != '4' && b[len(goErrorPrefix)] != '5' {
		return nil, false
	}
	var ae *apiError
	switch end := bytes.Index(b, []byte(goErrorHeaders)); {
	case bytes.HasPrefix(b, []byte(goExpectationFailed)) || bytes.HasPrefix(b, []byte(goExpectationFailed10)):
		// Go answers an Expect other than 100-continue itself, through a response of its own
		// (Connection: close, no body) that no handler of the API writes: 417 is no status of ours.
		ae = &apiError{Type: problemBadRequest, Detail: "the request could not be read: Expect may only be 100-continue"}
	case bytes.HasPrefix(b, []byte(goErrorPrefix)) && end >= len(goErrorPrefix)+3:
		line, text := string(b[len(goErrorPrefix):end]), string(b[end+len(goErrorHeaders):])
		if _, err := strconv.Atoi(line[:3]); err != nil {
			return nil, false
		}
		ae = &apiError{Type: problemBadRequest, Detail: "the request could not be read: " + goErrorReason(line[:3], text)}
		if line[:3] == "431" {
			ae = headersTooLarge()
		}
	default:
		return nil, false
	}
	id := rand.Text()
	body, err := problemBody(l.problemURL, ae, id)
	if err != nil {
		return nil, false
	}
	h := http.Header{}
	corsHeaders(h)
	// Every answer names its request, this one too (the request was never read, so the id is new).
	h.Set(echo.HeaderXRequestID, id)
	h.Set("Cache-Control", "no-store")
	h.Set("Connection", "close")
	h.Set("Content-Type", "application/problem+json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	var out bytes.Buffer
	out.WriteString(goErrorPrefix + strconv.Itoa(ae.Type.Status) + " " + http.StatusText(ae.Type.Status) + "\r\n")
	_ = h.Write(&out)
	out.WriteString("\r\n")
	out.Write(body)
	return out.Bytes(), true
}

// goErrorReason is what Go's answer says beyond its status: "missing required Host header" from
// "400 Bad Request: missing required Host header", "unsupported transfer encoding" from a 501's
// text. Go never echoes the request in these.
func goErrorReason(status, text string) string {
	if !strings.HasPrefix(text, status) {
		return strings.ToLower(text)
	}
	if _, reason, ok := strings.Cut(text, ": "); ok {
		return reason
	}
	return "malformed request line or header"
}

// refuseBodies answers a request that carries a body (or says it does, with Content-Length or
// Transfer-Encoding) with 400 without reading it, and closes the connection after the answer:
// what is left of the body would otherwise be read as the next request, or held open to be
// trickled in.
func refuseBodies(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r := c.Request()
		if r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
			return next(c)
		}
		c.Response().Header().Set(echo.HeaderConnection, "close")
		// After the answer net/http would read up to 256 KB of what is left of the body, for as
		// long as the read deadline lets a client trickle it: the deadline passed now, it reads
		// none. A writer without a connection (a test's recorder) cannot, and needs not.
		_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now())
		return bodyRefused(r)
	}
}
