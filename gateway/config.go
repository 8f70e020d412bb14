package gateway

import (
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"mediagw/ratelimit"
	"mediagw/search"
)

// Config is everything the HTTP layer needs to know; the config package fills it from the
// environment and flags, starting from DefaultConfig.
type Config struct {
	// PublicURL is the absolute URL clients reach the service under (scheme, host and an optional
	// path prefix that a proxy in front strips), e.g. "https://media.example.org". Every link and
	// problem type the API writes starts with it, whatever Host header a request came with.
	PublicURL string
	// BasePath is the path the API answers on, e.g. "/" or "/media/". It starts and ends with "/";
	// New adds a missing trailing slash.
	BasePath string
	// TrustedProxies are the peers whose X-Forwarded-For and X-Real-IP headers are believed.
	TrustedProxies []netip.Prefix
	// Attribution goes into every successful body.
	Attribution string
	// MaxAge is the Cache-Control max-age of each resource's successful responses.
	MaxAge MaxAge
	// RatePolicy is the limit the limiter enforces, announced in RateLimit-Policy, for a visitor
	// in no network of Policies.
	RatePolicy ratelimit.Policy
	// Policies, when not nil, are the networks with limits of their own: the limiter is told to
	// decide their visitors' requests under them (ratelimit.WithPolicy).
	Policies PolicySource
	// RequestTimeout bounds each call to the search engine; past it the client gets 504.
	RequestTimeout time.Duration
	// LimiterTimeout bounds each call to the limiter; past it the request is let through.
	LimiterTimeout time.Duration
	// GzipMinSize is the smallest body, in bytes, worth compressing.
	GzipMinSize int
	// OpenAPI, when not empty, is served as /openapi.json under the base path.
	OpenAPI []byte
	// Demo, when not nil, is the search page served at {base}demo/ (package demo).
	Demo fs.FS
	// DemoAPIs are the origins besides its own the search page may call (?api=): the page reads
	// them from {base}demo/apis.json, and its Content-Security-Policy allows no other.
	DemoAPIs []string
	// Metrics, when not nil, receives the request metrics (see metrics.go), whose own time
	// subtracts what the backend's metering (search/meter) adds to each request's
	// telemetry.EngineClock; nil records none.
	Metrics prometheus.Registerer
	// Queries, when not nil, is told each search with a text the API answers (querylog.go); nil
	// records none.
	Queries QueryLog
}

// MaxAge is how long clients may reuse each resource's responses (shared caches may not: respond.go).
type MaxAge struct {
	Items, Item, Categories, Authors, QR time.Duration
	// OpenAPI is the OpenAPI document's, ProblemPages the problem types' pages': both change only
	// with a new release.
	OpenAPI, ProblemPages time.Duration
}

// DefaultConfig returns the contract's defaults; PublicURL still has to be set.
func DefaultConfig() Config {
	return Config{
		BasePath: "/",
		MaxAge: MaxAge{
			Items:        time.Minute,
			Item:         5 * time.Minute,
			Categories:   5 * time.Minute,
			Authors:      5 * time.Minute,
			QR:           24 * time.Hour,
			OpenAPI:      5 * time.Minute,
			ProblemPages: 5 * time.Minute,
		},
		RatePolicy:     ratelimit.DefaultPolicy,
		RequestTimeout: search.DefaultTimeout,
		LimiterTimeout: 500 * time.Millisecond,
		GzipMinSize:    1024,
	}
}

// Validate reports every problem with c in one single-line error, each naming the setting.
func (c Config) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("public URL %q: must be an absolute http or https URL", c.PublicURL)
	} else if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		bad("public URL %q: must not have a query, fragment or user info", c.PublicURL)
	}
	bp := normalizeBasePath(c.BasePath)
	if !strings.HasPrefix(bp, "/") || strings.ContainsAny(bp, "?#:*% \t") || strings.Contains(bp, "//") {
		bad("base path %q: must be a clean absolute path such as / or /media/", c.BasePath)
	}
	for i, p := range c.TrustedProxies {
		if !p.IsValid() {
			bad("trusted proxy #%d: not a valid prefix", i+1)
		}
	}
	ages := []struct {
		name string
		d    time.Duration
	}{{"items", c.MaxAge.Items}, {"item", c.MaxAge.Item}, {"categories", c.MaxAge.Categories}, {"authors", c.MaxAge.Authors}, {"qr", c.MaxAge.QR},
		{"openapi", c.MaxAge.OpenAPI}, {"problem pages", c.MaxAge.ProblemPages}}
	for _, a := range ages {
		if a.d < 0 {
			bad("max-age of %s: %v is negative", a.name, a.d)
		}
	}
	if err := c.RatePolicy.Validate(); err != nil {
		bad("%v", err)
	}
	if c.RequestTimeout <= 0 {
		bad("request timeout: %v, must be positive", c.RequestTimeout)
	}
	if c.LimiterTimeout <= 0 {
		bad("limiter timeout: %v, must be positive", c.LimiterTimeout)
	}
	if c.GzipMinSize < 0 {
		bad("gzip min size: %d, must not be negative", c.GzipMinSize)
	}
	if len(problems) > 0 {
		return fmt.Errorf("gateway config: %s", strings.Join(problems, "; "))
	}
	return nil
}

// normalizeBasePath makes "" mean "/" and adds the trailing slash, so "/media" and "/media/" agree.
func normalizeBasePath(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}
