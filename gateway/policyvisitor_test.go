package gateway

import (
	"net/http"
	"net/netip"
	"testing"

	"mediagw/ratelimit"
)

const visitorPolicies = `schools   1200 10m address 198.51.100.0/24, 2001:db8:100::/48
newsroom  3000 10m range   203.0.113.0/28, 2001:db8:200::/56
lab       30   1m  range   198.51.100.128/25
`

// TestVisitorUnderPolicies: an address in a network is counted under its most specific range's
// policy, as itself (an IPv6 /64) or as the whole range; any other as visitorKey names it.
func TestVisitorUnderPolicies(t *testing.T) {
	ps, err := ratelimit.ParsePolicies([]byte(visitorPolicies))
	if err != nil {
		t.Fatal(err)
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	g := &Gateway{cfg: Config{TrustedProxies: trusted}, policies: newPolicyTables(ps, ratelimit.DefaultPolicy, nil)}
	tests := []struct {
		name, remote, xff string
		key, policy       string
	}{
		{"in a network counted by address", "198.51.100.7:1", "", "schools|198.51.100.7", "schools"},
		{"its neighbour is its own visitor", "198.51.100.8:1", "", "schools|198.51.100.8", "schools"},
		{"IPv6 counted by address is its /64", "[2001:db8:100:5::1]:1", "", "schools|2001:db8:100:5::/64", "schools"},
		{"the same /64", "[2001:db8:100:5::2]:1", "", "schools|2001:db8:100:5::/64", "schools"},
		{"a range counted as one visitor", "203.0.113.1:1", "", "newsroom|203.0.113.0/28", "newsroom"},
		{"another address of the range", "203.0.113.14:1", "", "newsroom|203.0.113.0/28", "newsroom"},
		{"an IPv6 range counted as one visitor", "[2001:db8:200:ff::1]:1", "", "newsroom|2001:db8:200::/56", "newsroom"},
		{"the most specific range wins", "198.51.100.200:1", "", "lab|198.51.100.128/25", "lab"},
		{"through a trusted proxy", "10.0.0.1:1", "203.0.113.2", "newsroom|203.0.113.0/28", "newsroom"},
		{"a forged header from an untrusted peer", "192.0.2.1:1", "203.0.113.2", "192.0.2.1", "default"},
		{"in no network", "198.51.101.1:1", "", "198.51.101.1", "default"},
		{"IPv6 in no network", "[2001:db8:300::1]:1", "", "2001:db8:300::/64", "default"},
		{"not an address", "@", "", "@", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, "/", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.RemoteAddr = tt.remote
			if tt.xff != "" {
				req.Header.Set("X-Forwarded-For", tt.xff)
			}
			key, rp := g.visitor(req)
			if key != tt.key || rp.name != tt.policy {
				t.Errorf("visitor %q under %q, want %q under %q", key, rp.name, tt.key, tt.policy)
			}
		})
	}
}

// BenchmarkVisitor is the visitor of a request without policies, and with policies in and out of
// a network: what every request pays for them.
func BenchmarkVisitor(b *testing.B) {
	ps, err := ratelimit.ParsePolicies([]byte(visitorPolicies))
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name   string
		source PolicySource
		remote string
	}{
		{"no policies", nil, "198.51.100.7:1"},
		{"in a network", ps, "198.51.100.7:1"},
		{"in a range counted as one", ps, "203.0.113.1:1"},
		{"in no network", ps, "192.0.2.1:1"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			g := &Gateway{policies: newPolicyTables(bb.source, ratelimit.DefaultPolicy, nil)}
			req, _ := http.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = bb.remote
			b.ReportAllocs()
			for b.Loop() {
				g.visitor(req)
			}
		})
	}
}
