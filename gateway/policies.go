package gateway

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"

	"mediagw/ratelimit"
)

// PolicySource gives the operator's rate-limit policies in force (ratelimit.PolicyFile, which
// reloads them, or a fixed *ratelimit.Policies); nil holds none.
type PolicySource interface {
	Current() *ratelimit.Policies
}

// ratePolicy is one policy as requests meet it: its numbers, its headers and its counters.
type ratePolicy struct {
	name   string
	policy ratelimit.Policy
	// under is what the limiter is told to decide by (ratelimit.WithPolicy); nil for the default,
	// which is the limiter's own.
	under   *ratelimit.Policy
	countBy ratelimit.CountBy
	// header is RateLimit-Policy's value, standingName RateLimit's name part.
	header, standingName string
	// allowed and limited count its decisions; nil without metrics.
	allowed, limited prometheus.Counter
}

func newRatePolicy(name string, p ratelimit.Policy, m *metrics) ratePolicy {
	rp := ratePolicy{name: name, policy: p,
		header:       fmt.Sprintf(`%q;q=%d;w=%d`, name, p.Limit, ceilSeconds(p.Window)),
		standingName: fmt.Sprintf("%q", name),
	}
	if m != nil {
		rp.allowed = m.policyDecisions.WithLabelValues(name, "allowed")
		rp.limited = m.policyDecisions.WithLabelValues(name, "limited")
	}
	return rp
}

// context tells the limiter to decide under the policy, unless it is the limiter's own (the default).
func (rp *ratePolicy) context(ctx context.Context) context.Context {
	if rp.under == nil {
		return ctx
	}
	return ratelimit.WithPolicy(ctx, rp.under)
}

// count counts one decision under the policy.
func (rp *ratePolicy) count(d ratelimit.Decision) {
	if rp.allowed == nil {
		return
	}
	if d.Allowed {
		rp.allowed.Inc()
	} else {
		rp.limited.Inc()
	}
}

// policyTable is one version of the policies as the gateway applies them: the default and, in
// the order of src's networks, each network's.
type policyTable struct {
	src  *ratelimit.Policies
	def  ratePolicy
	nets []ratePolicy
}

// policyTables follows the source: a request sees the table of the policies in force, made once
// per version.
type policyTables struct {
	source PolicySource
	def    ratelimit.Policy
	m      *metrics
	cur    atomic.Pointer[policyTable]
}

func newPolicyTables(source PolicySource, def ratelimit.Policy, m *metrics) *policyTables {
	pt := &policyTables{source: source, def: def, m: m}
	pt.cur.Store(pt.build(nil))
	return pt
}

func (pt *policyTables) build(src *ratelimit.Policies) *policyTable {
	t := &policyTable{src: src, def: newRatePolicy(ratelimit.DefaultPolicyName, pt.def, pt.m)}
	for _, n := range src.Networks() {
		rp := newRatePolicy(n.Name, n.Policy, pt.m)
		rp.under = &n.Policy
		rp.countBy = n.CountBy
		t.nets = append(t.nets, rp)
	}
	return t
}

// current is the table of the policies in force; a new version of them builds its table once.
func (pt *policyTables) current() *policyTable {
	t := pt.cur.Load()
	if pt.source == nil {
		return t
	}
	src := pt.source.Current()
	if src == t.src {
		return t
	}
	fresh := pt.build(src)
	if pt.cur.CompareAndSwap(t, fresh) {
		return fresh
	}
	// Another request built it first.
	return pt.cur.Load()
}

// visitor names the request's visitor and the policy it counts under: an address in a network of
// the policies is counted under that network's policy, as itself (an IPv6 /64) or, counted by
// range, as the whole range; the key starts with the policy's name, so each policy counts apart.
// Any other visitor is visitorKey's, under the default policy.
func (g *Gateway) visitor(req *http.Request) (string, *ratePolicy) {
	t := g.policies.current()
	xff, xRealIP := req.Header.Values(echo.HeaderXForwardedFor), req.Header.Get(echo.HeaderXRealIP)
	if len(t.nets) == 0 {
		return visitorKey(req.RemoteAddr, xff, xRealIP, g.cfg.TrustedProxies), &t.def
	}
	a, ok := clientAddr(req.RemoteAddr, xff, xRealIP, g.cfg.TrustedProxies)
	if !ok {
		return req.RemoteAddr, &t.def
	}
	i, r, found := t.src.Lookup(a)
	if !found {
		return addrKey(a), &t.def
	}
	rp := &t.nets[i]
	if rp.countBy == ratelimit.CountRange {
		return rp.name + "|" + r.String(), rp
	}
	return rp.name + "|" + addrKey(a), rp
}
