package gateway

import (
	"net/http"

	"github.com/labstack/echo/v5"
)

type status struct {
	Status string `json:"status"`
}

// healthz passes while the process serves HTTP.
func (g *Gateway) healthz(c *echo.Context) error {
	return g.sendStatus(c)
}

// readyz fails only when the search engine does not answer; a limiter problem never makes a
// replica unready, since the limiter falls back by itself.
func (g *Gateway) readyz(c *echo.Context) error {
	if g.draining.Load() {
		return unavailable("this replica is shutting down", nil)
	}
	ctx, cancel := g.backendCtx(c)
	defer cancel()
	if err := g.backend.Ping(ctx); err != nil {
		ae := backendError(ctx, err)
		if ae.Type == problemInternal {
			// Whatever the engine's failure, for a probe it means "not ready".
			ae = unavailable("the search engine does not answer", err)
		}
		return ae
	}
	return g.sendStatus(c)
}

func (g *Gateway) sendStatus(c *echo.Context) error {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeJSON(buf, status{Status: "ok"}); err != nil {
		return internalError(err)
	}
	// Compressible like every JSON body, so it carries Vary: Accept-Encoding; it is too small to
	// be compressed at any sensible GzipMinSize.
	return g.send(c, reply{status: http.StatusOK, contentType: contentTypeJSON, body: buf.Bytes(), maxAge: noStore, compressible: true})
}
