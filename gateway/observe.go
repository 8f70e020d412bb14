package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"mediagw/search/admit"
	"mediagw/search/telemetry"
)

// observe is the outermost middleware: it gives the request an id and its CORS headers, turns a
// returned error or a panic into a problem response, and writes the one log line and the metrics.
func (g *Gateway) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		start := time.Now()
		if g.metrics != nil {
			g.metrics.inFlight.Inc()
			// Deferred, so a request whose handler aborts (http.ErrAbortHandler) leaves the gauge too.
			defer g.metrics.inFlight.Dec()
		}
		req := c.Request()
		id := req.Header.Get(echo.HeaderXRequestID)
		if !validRequestID(id) {
			id = rand.Text()
		}
		st := &requestState{id: id}
		st.visitor, st.policy = g.visitor(req)
		c.Set(stateKey, st)
		// The backend's admission shares its slots out by visitor (search/admit).
		ctx := admit.WithVisitor(req.Context(), st.visitor)
		if g.metrics != nil {
			ctx, st.engine = telemetry.WithEngineClock(ctx)
		}
		c.SetRequest(req.WithContext(ctx))
		h := c.Response().Header()
		h.Set(echo.HeaderXRequestID, id)
		corsHeaders(h)
		if g.inspector != nil {
			// Just before the status line, whoever writes it: by then limit has counted the
			// request or not, and an uncounted one (405, preflight, health, an error) still says
			// where its visitor stands.
			if resp, _ := echo.UnwrapResponse(c.Response()); resp != nil {
				resp.Before(func() { g.standing(c) })
			}
		}

		if err := g.recovered(c, next); err != nil {
			g.handleError(c, err)
		}
		latency := time.Since(start)
		status := responseStatus(c)
		g.logRequest(c, status, latency)
		if g.metrics != nil {
			g.metrics.observeRequest(st.resource, status, latency, st.engine.Total())
		}
		return nil
	}
}

// responseStatus is the status the response went out with, or 499 when the client went away first.
func responseStatus(c *echo.Context) int {
	_, status := echo.ResolveResponseStatus(c.Response(), nil)
	if ae := state(c).cause; ae != nil && ae.Type == problemClientClosed {
		return statusClientClosed
	}
	return status
}

// recovered runs next, turning a panic into a 500 so one bad request cannot take the process down.
func (g *Gateway) recovered(c *echo.Context, next echo.HandlerFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			err = internalError(fmt.Errorf("panic: %v", r))
		}
	}()
	return next(c)
}

func (g *Gateway) logRequest(c *echo.Context, status int, latency time.Duration) {
	st := state(c)
	level := zapcore.InfoLevel
	if st.cause != nil {
		level = st.cause.logLevel()
	}
	ce := g.log.Check(level, "request")
	if ce == nil {
		return
	}
	keep, skipped := g.sampler.keep(st.resource, status)
	if !keep {
		return
	}
	req := c.Request()
	var bytes int64
	if resp, _ := echo.UnwrapResponse(c.Response()); resp != nil {
		bytes = resp.Size
	}
	mac := hmac.New(sha256.New, g.visitorSecret)
	mac.Write([]byte(st.visitor))
	// Every value from the request is capped; Go accepts any token as a method.
	fields := appendCapped([]zap.Field{zap.Int("status", status)}, "method", req.Method)
	fields = appendCapped(fields, "path", req.URL.Path)
	fields = append(fields,
		zap.String("resource", st.resource),
		zap.String("request_id", st.id),
		zap.Int64("bytes", bytes),
		zap.Duration("latency", latency),
		zap.String("visitor", hex.EncodeToString(mac.Sum(nil)[:8])),
	)
	if skipped > 0 {
		fields = append(fields, zap.Int("sampled_out", skipped))
	}
	if st.origin != nil {
		fields = append(fields, zap.String("cache", c.Response().Header().Get("Cache-Status")))
	}
	if st.cause != nil && st.cause.Cause != nil {
		// A cause's text may quote the request (an engine's error echoes the query).
		fields = appendCapped(fields, "error", st.cause.Cause.Error())
	}
	ce.Write(fields...)
}
