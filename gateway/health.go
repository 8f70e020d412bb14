package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v5"
)

type status struct {
	Status string `json:"status"`
	// Detail says what a ready replica serves short of what it should (Detailer).
	Detail string `json:"detail,omitempty"`
}

// Detailer is a backend that says what it serves short of what it should: a chain whose
// operators' rules cannot be read serves those read before (search/chain). The gateway asks for
// it once, in New.
type Detailer interface {
	ReadinessDetail() string
}

// healthz passes while the process serves HTTP.
func (g *Gateway) healthz(c *echo.Context) error {
	return g.sendStatus(c, "")
}

// readyz fails only when the search engine does not answer (as checked within readyFresh), or its
// circuit breaker is open, which only the engine's own failures open (search.ErrorKind.EngineFailed):
// a query the engine refuses is the question's fault and leaves every replica ready; or while the
// whole lists the backend keeps are not built yet (ListKeeper), so that no visitor waits on their
// count. A limiter problem never makes a replica unready, since the limiter falls back by itself,
// nor do rules it cannot read (it serves those read before), which its detail says.
func (g *Gateway) readyz(c *echo.Context) error {
	if g.draining.Load() {
		return unavailable("this replica is shutting down", nil)
	}
	ctx, cancel := g.backendCtx(c)
	defer cancel()
	if err := g.ready.check(ctx, g.backend.Ping); err != nil {
		ae := backendError(ctx, err)
		if ae.Type == problemInternal {
			// Whatever the engine's failure, for a probe it means "not ready".
			ae = unavailable("the search engine does not answer", err)
		}
		return ae
	}
	if g.lists != nil && g.lists.Lists() == nil {
		return unavailable("the whole lists of the index served are still being counted", nil)
	}
	var detail string
	if g.detailer != nil {
		detail = g.detailer.ReadinessDetail()
	}
	return g.sendStatus(c, detail)
}

// readyFresh is how long a readiness check answers /readyz: probes from every load balancer and
// kubelet, or anyone on the public port, cost the engine one call a second at most.
const readyFresh = time.Second

// readiness is the last readiness check: its outcome and when it ended. Requests that find it
// stale wait for one of them to check again, and share its outcome.
type readiness struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

// check returns the last check's outcome while fresh, else pings.
func (r *readiness) check(ctx context.Context, ping func(context.Context) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.at.IsZero() && time.Since(r.at) < readyFresh {
		return r.err
	}
	err := ping(ctx)
	if ctx.Err() != nil {
		// This request's own end (its client gone) says nothing of the engine to the others.
		return err
	}
	r.err, r.at = err, time.Now()
	return err
}

func (g *Gateway) sendStatus(c *echo.Context, detail string) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeJSON(buf, status{Status: "ok", Detail: detail}); err != nil {
		return internalError(err)
	}
	// Compressible like every JSON body, so it carries Vary: Accept-Encoding; it is too small to
	// be compressed at any sensible GzipMinSize.
	return g.send(c, reply{status: http.StatusOK, contentType: contentTypeJSON, body: buf.Bytes(), maxAge: noStore, compressible: true})
}
