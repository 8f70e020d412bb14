package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"mediagw/ratelimit"
)

// Limiter decides one request by a visitor, as the gateway's rate limit does
// (ratelimit.Redis), within its own timeout.
type Limiter interface {
	Allow(ctx context.Context, visitor string) (ratelimit.Decision, error)
}

// Passthrough is the cheapest gateway there can be, the floor `make bench` measures the gateway
// against on the same machine: it forwards every request to the engine at upstream unchanged (one
// more HTTP hop, nothing parsed or encoded). With limit, it first asks whether the visitor may
// proceed, as every gateway of the contract must (its shared rate limit), once per API request (a
// list's later pages, ContinuedHeader, are not asked): a refusal is a 429, and a failed call lets
// the request through, as the gateway does.
func Passthrough(upstream *url.URL, transport http.RoundTripper, limit Limiter) http.Handler {
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(upstream) },
		Transport: transport,
	}
	if limit == nil {
		return proxy
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(ContinuedHeader) == "" {
			if d, err := limit.Allow(r.Context(), visitor(r)); err == nil && !d.Allowed {
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
		}
		proxy.ServeHTTP(w, r)
	})
}

// visitor is who sent r: the first address in X-Forwarded-For (the harness's visitors), else the
// peer's address.
func visitor(r *http.Request) string {
	if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
		first, _, _ := strings.Cut(xff, ",")
		return strings.TrimSpace(first)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
