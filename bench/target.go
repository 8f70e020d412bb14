package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"mediagw/search/elastic"
)

// Target is a service the mix is replayed against.
type Target interface {
	Name() string
	// Do sends r and reads the whole answer. seq is the request's position in the run, which
	// picks its visitor. The status is 0 when no HTTP answer came.
	Do(ctx context.Context, r *Request, seq uint64) (status int, bytes int64, err error)
}

// NewClient is an HTTP client with keep-alive connections for conns concurrent requests per
// host, so a run measures requests and not TCP handshakes.
func NewClient(conns int, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        2 * conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			IdleConnTimeout:     90 * time.Second,
		},
	}
}

// Gateway sends the mix's query strings to the API at a base URL.
type Gateway struct {
	name, base string
	client     *http.Client
	visitors   int
	// extra is added to the query of every search (WithExtras), or, of several, the one each
	// search draws (WithReuse).
	extra []string
	// quoted, when set, holds each search's query with its q in quotes (WithPhrase), made once.
	quoted *sync.Map
}

// NewGateway targets the API answering at base (scheme, host and base path). With visitors > 0
// each request comes from one of that many addresses in X-Forwarded-For, so the gateway must
// trust the harness as a proxy (MEDIA_TRUSTED_PROXIES); with 0 every request is the one visitor
// the connection's address makes, and the real rate limit applies.
func NewGateway(name, base string, client *http.Client, visitors int) *Gateway {
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return &Gateway{name: name, base: base, client: client, visitors: visitors}
}

// Name names the target in reports.
func (g *Gateway) Name() string { return g.name }

// Do sends one API request.
func (g *Gateway) Do(ctx context.Context, r *Request, seq uint64) (int, int64, error) {
	u := g.base + "?" + r.Query
	if r.Kind == KindItems {
		if g.quoted != nil {
			u = g.base + "?" + g.phrased(r)
		}
		u += g.extraOf(r)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, err
	}
	if g.visitors > 0 {
		req.Header.Set("X-Forwarded-For", VisitorAddr(seq%uint64(g.visitors)).String())
	}
	return send(g.client, req)
}

// VisitorAddr is the address of visitor n: one of 10.0.0.0/8.
func VisitorAddr(n uint64) netip.Addr {
	n = n%(1<<24-2) + 1
	return netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)})
}

func send(c *http.Client, req *http.Request) (int, int64, error) {
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, n, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, n, nil
}

// OpenSearch sends the mix's direct requests to an OpenSearch node, or to a proxy in front of one.
type OpenSearch struct {
	name, base string
	client     *http.Client
	// visitors, when above 0, sends each request from one of that many addresses in
	// X-Forwarded-For, as Gateway does: for a proxy that rate-limits (Passthrough).
	visitors int
}

// NewOpenSearch targets the engine at base (e.g. http://127.0.0.1:9200).
func NewOpenSearch(name, base string, client *http.Client) *OpenSearch {
	return &OpenSearch{name: name, base: strings.TrimSuffix(base, "/"), client: client}
}

// NewProxied targets a proxy at base that forwards the direct requests to the engine
// (Passthrough), with visitors as NewGateway takes them.
func NewProxied(name, base string, client *http.Client, visitors int) *OpenSearch {
	o := NewOpenSearch(name, base, client)
	o.visitors = visitors
	return o
}

// Name names the target in reports.
func (o *OpenSearch) Name() string { return o.name }

// Do sends the direct form of r; categories and authors run their list's whole exchange, as the
// backend does, and count as one request.
func (o *OpenSearch) Do(ctx context.Context, r *Request, seq uint64) (int, int64, error) {
	if r.Direct.Method == "" && r.Direct.List == nil {
		return 0, 0, fmt.Errorf("%w: %s", errNoDirect, r.Query)
	}
	from := ""
	if o.visitors > 0 {
		from = VisitorAddr(seq % uint64(o.visitors)).String()
	}
	if r.Direct.List == nil {
		status, raw, err := o.post(ctx, r.Direct, r.Direct.Body, from, false)
		return status, int64(len(raw)), err
	}
	c := elastic.NewCounter(*r.Direct.List)
	var total int64
	for page := 0; ; page++ {
		body, err := c.Request()
		if err != nil {
			return 0, total, err
		}
		status, raw, err := o.post(ctx, r.Direct, body, from, page > 0)
		total += int64(len(raw))
		if err != nil || status != http.StatusOK {
			return status, total, err
		}
		if done, err := c.Answer(raw); err != nil || done {
			return status, total, err
		}
	}
}

// ContinuedHeader marks the later requests of a list's exchange, which a Passthrough does not
// count against the rate limit: the gateway counts the whole list as one request.
const ContinuedHeader = "X-Bench-Continued"

// post sends one request of d with body, from the visitor from ("": none given); continued marks
// a list's later request.
func (o *OpenSearch) post(ctx context.Context, d Direct, body []byte, from string, continued bool) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, d.Method, o.base+d.Path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if from != "" {
		req.Header.Set("X-Forwarded-For", from)
	}
	if continued {
		req.Header.Set(ContinuedHeader, "1")
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, raw, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, raw, nil
}
