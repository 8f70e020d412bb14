package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"
)

// Admit says whether a visitor may make one more request, as the gateway's rate limit does.
type Admit func(ctx context.Context, visitor string) (bool, error)

// admitTimeout bounds one Admit call, as the gateway's limiter timeout does (its default).
const admitTimeout = 500 * time.Millisecond

// Passthrough is the cheapest gateway there can be, the floor `make bench` measures the gateway
// against on the same machine: it forwards every request to the engine at upstream unchanged (one
// more HTTP hop, nothing parsed or encoded). With admit, it first asks whether the visitor may
// proceed, as every gateway of the contract must (its shared rate limit), once per API request (a
// list's later pages, ContinuedHeader, are not asked): a refusal is a 429, and a failed call lets
// the request through, as the gateway does.
func Passthrough(upstream *url.URL, transport http.RoundTripper, admit Admit) http.Handler {
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
		},
		Transport: transport,
	}
	if admit == nil {
		return proxy
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(ContinuedHeader) != "" {
			proxy.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), admitTimeout)
		ok, err := admit(ctx, visitor(r))
		cancel()
		if err == nil && !ok {
			w.WriteHeader(http.StatusTooManyRequests)
			return
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
