package gateway

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v5"
	"go.uber.org/zap"

	"mediagw/ratelimit"
)

// Speculative admission: a visitor this replica recently heard has plenty of allowance left gets
// its handler run while the shared limiter decides, instead of after it, so the Redis round trip
// hides behind the engine call. The handler's answer is held until the decision: allowed, it goes
// out with the decision's headers, exactly as it would have; refused, none of it does and the
// visitor gets the 429 it would have got. Every request is still counted once, by the same call.

const (
	// speculateMarginPercent is the share of the limit a visitor must have had left, at the last
	// decision this replica heard, for its next request to be speculated. Other replicas count the
	// visitor too: only one that spends more than this share elsewhere between two of its requests
	// here can have a speculated request refused after its engine call (the answer is thrown away,
	// the limit holds, engine work is lost). And a visitor nearing the limit, where refusals begin,
	// waits for its decision before anything runs, as do unknown visitors.
	speculateMarginPercent = 10
	// maxAllowances bounds the visitors remembered, about 100 bytes each: under 2 MiB in all,
	// whatever a flood of distinct visitors does. A visitor left out is decided before its handler
	// runs, as without speculation.
	maxAllowances = 1 << 14
	// allowanceShards spreads visitors over independently locked maps; a power of two.
	allowanceShards = 16
)

// Remote is implemented by a Limiter that says whether its decisions leave the process (Redis).
// Only those are worth running beside the handler: one made in process takes less time than the
// overlap costs.
type Remote interface {
	Remote() bool
}

// allowances remembers, per visitor, what the last decision this replica heard left it: the
// evidence speculation needs. Entries older than the policy's window are forgotten; a full shard
// makes room by dropping an arbitrary visitor.
type allowances struct {
	margin int
	ttl    time.Duration
	now    func() time.Time
	seed   maphash.Seed
	shards [allowanceShards]allowanceShard
}

type allowanceShard struct {
	mu sync.Mutex
	m  map[string]allowance
	_  [64]byte // keeps neighbouring shards' locks off one cache line
}

// allowance is what one visitor had left, heard at a time (unix nanoseconds), and how many of its
// requests are speculated now and not yet decided.
type allowance struct {
	remaining, inFlight int
	heard               int64
}

func newAllowances(p ratelimit.Policy, now func() time.Time) *allowances {
	a := &allowances{margin: max(1, p.Limit*speculateMarginPercent/100), ttl: p.Window, now: now, seed: maphash.MakeSeed()}
	for i := range a.shards {
		a.shards[i].m = make(map[string]allowance)
	}
	return a
}

func (a *allowances) shard(visitor string) *allowanceShard {
	return &a.shards[maphash.String(a.seed, visitor)&(allowanceShards-1)]
}

// reserve says whether the visitor's request may be speculated, and counts it in flight if so.
// The requests in flight are taken off what the visitor had left, so that however many arrive at
// once, this replica never speculates more of them than the last decision left above the margin.
func (a *allowances) reserve(visitor string) bool {
	s := a.shard(visitor)
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[visitor]
	if !ok {
		return false
	}
	if a.now().UnixNano()-e.heard > int64(a.ttl) {
		delete(s.m, visitor)
		return false
	}
	if e.remaining-e.inFlight < a.margin {
		return false
	}
	e.inFlight++
	s.m[visitor] = e
	return true
}

// heard notes the limiter's answer about one of the visitor's requests; reserved says reserve
// counted that request in flight. A failed call is no evidence; a visitor left below the margin
// is forgotten, unless some of its requests are still in flight.
func (a *allowances) heard(visitor string, d ratelimit.Decision, err error, reserved bool) {
	s := a.shard(visitor)
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[visitor]
	if ok && reserved && e.inFlight > 0 {
		e.inFlight--
	}
	if err != nil {
		if ok {
			s.m[visitor] = e
		}
		return
	}
	e.remaining = d.Remaining
	if !d.Allowed {
		e.remaining = 0
	}
	if e.remaining < a.margin && e.inFlight == 0 {
		delete(s.m, visitor)
		return
	}
	e.heard = a.now().UnixNano()
	if !ok && len(s.m) >= maxAllowances/allowanceShards {
		for k := range s.m {
			delete(s.m, k)
			break
		}
	}
	s.m[visitor] = e
}

// verdict is the limiter's answer to a speculated request.
type verdict struct {
	d   ratelimit.Decision
	err error
}

// speculate runs the handler while the limiter decides, the handler writing to a held response,
// and answers as limit would have once the decision is in: the handler's answer with the
// decision's headers, the 429 instead when refused (its engine work cancelled), the handler's
// answer alone when the limiter fails or overstays its timeout.
func (g *Gateway) speculate(c *echo.Context, next echo.HandlerFunc) error {
	st := state(c)
	req, w := c.Request(), c.Response()
	lctx, lcancel := context.WithTimeout(req.Context(), g.cfg.LimiterTimeout)
	defer lcancel()
	hctx, hcancel := context.WithCancel(req.Context())
	defer hcancel()
	decided := make(chan verdict, 1)
	visitor := st.visitor
	go func() {
		d, err := g.allow(lctx, visitor, true)
		if err == nil && !d.Allowed {
			hcancel()
		}
		decided <- verdict{d, err}
	}()

	before := *st
	held := &heldResponse{header: w.Header().Clone(), body: getBuffer()}
	defer putBuffer(held.body)
	c.SetRequest(req.WithContext(hctx))
	c.SetResponse(held)
	panicked, err := runRecovered(c, next)
	c.SetRequest(req)
	c.SetResponse(w)

	var v verdict
	select {
	case v = <-decided:
	case <-lctx.Done():
		select {
		case v = <-decided:
		default:
			v.err = fmt.Errorf("rate limiter gave no decision: %w", context.Cause(lctx))
		}
	}
	switch {
	case v.err != nil:
		g.speculated("failed")
		g.log.Warn("rate limiter failed; request let through", zap.String("request_id", st.id), zap.Error(v.err))
	case !v.d.Allowed:
		g.speculated("limited")
		// Nothing the handler noted (where its answer came from) belongs to the 429.
		*st = before
		g.setStanding(c, v.d)
		return rateLimited(g.cfg.RatePolicy, v.d.RetryAfter)
	default:
		g.speculated("allowed")
	}
	if panicked != nil {
		panic(panicked)
	}
	h := w.Header()
	clear(h)
	maps.Copy(h, held.header)
	if v.err == nil {
		g.setStanding(c, v.d)
	}
	if held.status == 0 {
		return err
	}
	w.WriteHeader(held.status)
	if held.body.Len() > 0 {
		if _, werr := w.Write(held.body.Bytes()); err == nil {
			err = werr
		}
	}
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
// real writer (no Unwrap, no Flush), so nothing reaches the client before the decision.
type heldResponse struct {
	header http.Header
	status int
	body   *bytes.Buffer
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
	return h.body.Write(b)
}
