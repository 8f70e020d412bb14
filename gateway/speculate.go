package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync/atomic"

	"github.com/labstack/echo/v5"
	"go.uber.org/zap"

	"mediagw/ratelimit"
)

// Speculative admission: a visitor the replica's visitor memory puts well within its allowance
// (ratelimit.Speculator) gets its handler run while the shared limiter decides, instead of after
// it, so the Redis round trip hides behind the engine call. The handler's answer is held until the decision: allowed, it goes
// out with the decision's headers, exactly as it would have; refused, none of it does and the
// visitor gets the 429 it would have got. Every request is still counted once, by the same call.

const (
	// maxHeldPerRequest and maxHeldTotal bound the answer bytes held for decisions not yet in, per
	// request (a page of results fits, an authors list does not) and in all: what clients that
	// never read can pin is this, whatever the answers' sizes. With maxHeldTotal held, requests
	// are decided before their handler runs.
	maxHeldPerRequest = 64 << 10
	maxHeldTotal      = 16 << 20
)

// verdict is the limiter's answer to a speculated request.
type verdict struct {
	d   ratelimit.Decision
	err error
}

// errRefused is what a speculated handler's write returns when the answer it overflows into is
// refused: the handler stops, and the visitor gets the 429.
var errRefused = errors.New("request refused by the rate limit")

// speculate runs the handler while the limiter decides, the handler writing to a held response,
// and answers as limit would have once the decision is in: the handler's answer with the
// decision's headers, the 429 instead when refused (its engine work cancelled), the handler's
// answer alone when the limiter fails or overstays its timeout. An answer larger than the held
// bytes may grow waits for the decision at its first write past them, then goes straight out.
func (g *Gateway) speculate(c *echo.Context, next echo.HandlerFunc) error {
	st := state(c)
	req, w := c.Request(), c.Response()
	lctx, lcancel := context.WithTimeout(req.Context(), g.cfg.LimiterTimeout)
	defer lcancel()
	hctx, hcancel := context.WithCancel(req.Context())
	defer hcancel()
	rp := g.policyOf(st)
	s := &speculation{g: g, st: st, rp: rp, w: w, lctx: lctx, decided: make(chan verdict, 1)}
	visitor := st.visitor
	go func() {
		d, err := g.allow(lctx, visitor, rp, true)
		if err == nil && !d.Allowed {
			hcancel()
		}
		s.decided <- verdict{d, err}
	}()

	before := *st
	held := &heldResponse{header: w.Header().Clone(), body: getBuffer(), budget: &g.held, overflow: s.overflow}
	s.held = held
	defer func() {
		held.release()
		putBuffer(held.body)
	}()
	c.SetRequest(req.WithContext(hctx))
	c.SetResponse(held)
	panicked, err := runRecovered(c, next)
	c.SetRequest(req)
	c.SetResponse(w)

	if v := s.decision(); v.err == nil && !v.d.Allowed {
		// Nothing the handler noted (where its answer came from) belongs to the 429.
		*st = before
		setStanding(w.Header(), rp, v.d)
		return rateLimited(rp.policy, v.d.RetryAfter)
	}
	if panicked != nil {
		panic(panicked)
	}
	if held.through != nil {
		return err
	}
	if werr := s.send(); err == nil {
		err = werr
	}
	return err
}

// speculation is one speculated request: the decision on its way, and where its answer goes.
type speculation struct {
	g       *Gateway
	st      *requestState
	rp      *ratePolicy
	w       http.ResponseWriter
	lctx    context.Context
	decided chan verdict
	held    *heldResponse
	v       verdict
	waited  bool
}

// decision waits for the limiter's answer, once, and counts it.
func (s *speculation) decision() verdict {
	if s.waited {
		return s.v
	}
	s.waited = true
	select {
	case s.v = <-s.decided:
	case <-s.lctx.Done():
		select {
		case s.v = <-s.decided:
		default:
			s.v.err = fmt.Errorf("rate limiter gave no decision: %w", context.Cause(s.lctx))
		}
	}
	switch {
	case s.v.err != nil:
		s.g.speculated("failed")
		s.g.log.Warn("rate limiter failed; request let through", zap.String("request_id", s.st.id), zap.Error(s.v.err))
	case !s.v.d.Allowed:
		s.g.speculated("limited")
	default:
		s.g.speculated("allowed")
	}
	return s.v
}

// overflow is called at the held answer's first write past its bytes: it waits for the decision
// and, allowed, sends what is held and returns the real writer for the rest.
func (s *speculation) overflow() (http.ResponseWriter, error) {
	if v := s.decision(); v.err == nil && !v.d.Allowed {
		return nil, errRefused
	}
	if err := s.send(); err != nil {
		return nil, err
	}
	return s.w, nil
}

// send writes the held headers (with the decision's) to the real writer and, when the handler
// wrote any, the held status and body; it gives back the held bytes' share of the budget once
// they are out. A handler that returned an error wrote nothing: its error response gets the headers.
func (s *speculation) send() error {
	h := s.held
	if s.v.err == nil {
		setStanding(h.header, s.rp, s.v.d)
	}
	out := s.w.Header()
	clear(out)
	maps.Copy(out, h.header)
	if h.status == 0 {
		return nil
	}
	s.w.WriteHeader(h.status)
	defer h.release()
	if h.body.Len() == 0 {
		return nil
	}
	_, err := s.w.Write(h.body.Bytes())
	h.body.Reset()
	return err
}

// runRecovered runs next and returns its panic instead of raising it, so that the decision
// still chooses between the panic and the 429.
func runRecovered(c *echo.Context, next echo.HandlerFunc) (panicked any, err error) {
	defer func() { panicked = recover() }()
	return nil, next(c)
}

func (g *Gateway) speculated(result string) {
	if g.metrics != nil {
		g.metrics.speculated.WithLabelValues(result).Inc()
	}
}

// heldResponse is what a speculated handler writes to: status, headers (starting as a copy of
// the real response's) and body are kept until the decision. It offers no way through to the
// real writer (no Unwrap, no Flush), so nothing reaches the client before the decision. It holds
// at most maxHeldPerRequest bytes, and all held responses together maxHeldTotal: a write past
// either waits for the decision (overflow) and goes, with all after it, to the real writer.
type heldResponse struct {
	header http.Header
	status int
	body   *bytes.Buffer
	// budget counts the bytes every held response of the gateway holds; reserved is this one's.
	budget   *atomic.Int64
	reserved int64
	overflow func() (http.ResponseWriter, error)
	// through is the real writer once the answer overflowed.
	through http.ResponseWriter
}

func (h *heldResponse) Header() http.Header { return h.header }

func (h *heldResponse) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldResponse) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	if h.through == nil && !h.hold(len(b)) {
		w, err := h.overflow()
		if err != nil {
			return 0, err
		}
		h.through = w
	}
	if h.through != nil {
		return h.through.Write(b)
	}
	return h.body.Write(b)
}

// hold reserves n more bytes within both caps, or says there is no room.
func (h *heldResponse) hold(n int) bool {
	if h.reserved+int64(n) > maxHeldPerRequest {
		return false
	}
	if h.budget.Add(int64(n)) > maxHeldTotal {
		h.budget.Add(-int64(n))
		return false
	}
	h.reserved += int64(n)
	return true
}

// release gives the held bytes' share of the budget back.
func (h *heldResponse) release() {
	h.budget.Add(-h.reserved)
	h.reserved = 0
}
