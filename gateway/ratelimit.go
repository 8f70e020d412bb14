package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"
	"go.uber.org/zap"

	"mediagw/ratelimit"
)

// limit counts the request against its visitor and says where the visitor stands. A limiter
// failure lets the request through: a broken counter must not take the API down. A visitor this
// replica knows to have plenty left is decided while its handler runs (speculate.go).
func (g *Gateway) limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		method := c.Request().Method
		if method != http.MethodGet && method != http.MethodHead {
			return next(c)
		}
		st := state(c)
		st.counted = true
		rp := g.policyOf(st)
		c.Response().Header().Set("RateLimit-Policy", rp.header)
		if g.speculator != nil && g.held.Load() < maxHeldTotal && g.speculator.Reserve(rp.context(c.Request().Context()), st.visitor) {
			return g.speculate(c, next)
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), g.cfg.LimiterTimeout)
		d, err := g.allow(ctx, st.visitor, rp, false)
		cancel()
		if err != nil {
			g.log.Warn("rate limiter failed; request let through", zap.String("request_id", st.id), zap.Error(err))
			return next(c)
		}
		setStanding(c.Response().Header(), rp, d)
		if !d.Allowed {
			return rateLimited(rp.policy, d.RetryAfter)
		}
		return next(c)
	}
}

// allow counts one request of visitor under its policy, times the call and counts the decision;
// reserved says the request was speculated, its reservation ended here. A panic becomes an error,
// as a speculated request's decision runs outside the handler's recovery.
func (g *Gateway) allow(ctx context.Context, visitor string, rp *ratePolicy, reserved bool) (d ratelimit.Decision, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rate limiter panicked: %v", p)
		}
		if g.metrics != nil {
			g.metrics.limiterDuration.Observe(time.Since(start).Seconds())
		}
		if err == nil {
			rp.count(d)
		}
		if reserved {
			g.speculator.Release(visitor)
		}
	}()
	return g.limiter.Allow(rp.context(ctx), visitor)
}

// policyOf is the policy the request counts under; one observe did not see counts under the default.
func (g *Gateway) policyOf(st *requestState) *ratePolicy {
	if st.policy == nil {
		st.policy = &g.policies.current().def
	}
	return st.policy
}

// standing gives a response the limit did not count its visitor's standing, without counting it,
// under the same timeout as a counted request. An inspection that fails leaves the response as it
// is, with RateLimit-Policy only, as a counted request whose limiter failed.
func (g *Gateway) standing(c *echo.Context) {
	st := state(c)
	if st.counted {
		return
	}
	// Once only: a hook that fails must not run again for the error response that follows.
	st.counted = true
	rp := g.policyOf(st)
	c.Response().Header().Set("RateLimit-Policy", rp.header)
	d, err := g.inspect(c, st.visitor, rp)
	if err != nil {
		g.log.Warn("rate limiter failed; response sent without the visitor's standing", zap.String("request_id", st.id), zap.Error(err))
		return
	}
	setStanding(c.Response().Header(), rp, d)
}

// inspect asks the inspector under the limiter's timeout. It runs while the status line is being
// written, outside the handler's recovery, so a panic becomes an error here.
func (g *Gateway) inspect(c *echo.Context, visitor string, rp *ratePolicy) (d ratelimit.Decision, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rate limiter panicked: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(c.Request().Context(), g.cfg.LimiterTimeout)
	defer cancel()
	return g.inspector.Inspect(rp.context(ctx), visitor)
}

// setStanding writes where the visitor stands under its policy rp: RateLimit and the older
// X-RateLimit-* headers.
func setStanding(h http.Header, rp *ratePolicy, d ratelimit.Decision) {
	h.Set("RateLimit", rp.standingName+";r="+strconv.Itoa(d.Remaining)+";t="+strconv.FormatInt(ceilSeconds(d.RetryAfter), 10))
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilSeconds(d.ResetAfter), 10))
}

// ceilSeconds rounds d up to whole seconds, as Retry-After and the RateLimit fields count them.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
