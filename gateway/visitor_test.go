package gateway

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"mediagw/search/admit"
)

func TestVisitorKey(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	tests := []struct {
		name    string
		remote  string
		xff     []string
		realIP  string
		trusted []netip.Prefix
		want    string
	}{
		{"direct IPv4", "203.0.113.7:5123", nil, "", trusted, "203.0.113.7"},
		{"direct IPv6 is its /64", "[2001:db8:1:2:3:4:5:6]:443", nil, "", trusted, "2001:db8:1:2::/64"},
		{"same /64 same visitor", "[2001:db8:1:2:ffff::1]:443", nil, "", trusted, "2001:db8:1:2::/64"},
		{"IPv4-mapped IPv6 is IPv4", "[::ffff:203.0.113.7]:80", nil, "", trusted, "203.0.113.7"},
		{"zone dropped", "[fe80::1%eth0]:80", nil, "", trusted, "fe80::/64"},
		{"headers ignored from untrusted peer", "203.0.113.7:1", []string{"198.51.100.1"}, "198.51.100.2", trusted, "203.0.113.7"},
		{"headers ignored without trusted proxies", "10.0.0.1:1", []string{"198.51.100.1"}, "", nil, "10.0.0.1"},
		{"trusted peer: XFF client", "10.0.0.1:1", []string{"198.51.100.1"}, "", trusted, "198.51.100.1"},
		{"right-most untrusted wins over spoofed left", "10.0.0.1:1", []string{"1.2.3.4, 198.51.100.1, 10.0.0.2"}, "", trusted, "198.51.100.1"},
		{"several XFF headers are one list", "10.0.0.1:1", []string{"1.2.3.4", "198.51.100.1", "10.0.0.2"}, "", trusted, "198.51.100.1"},
		{"XFF with ports and spaces", "10.0.0.1:1", []string{" 198.51.100.1:555 ,10.0.0.3"}, "", trusted, "198.51.100.1"},
		{"XFF IPv6 client", "[fd00::1]:1", []string{"2001:db8:a:b:c::1"}, "", trusted, "2001:db8:a:b::/64"},
		{"XFF mapped IPv4", "10.0.0.1:1", []string{"::ffff:198.51.100.9"}, "", trusted, "198.51.100.9"},
		{"garbage XFF: the proxy, not X-Real-IP", "10.0.0.1:1", []string{"garbage"}, "198.51.100.3", trusted, "10.0.0.1"},
		{"an unknown hop: the proxy", "10.0.0.1:1", []string{"1.2.3.4, unknown"}, "198.51.100.3", trusted, "10.0.0.1"},
		{"a trailing comma: the proxy", "10.0.0.1:1", []string{"198.51.100.1,"}, "198.51.100.3", trusted, "10.0.0.1"},
		{"an empty XFF: the proxy", "10.0.0.1:1", []string{""}, "198.51.100.3", trusted, "10.0.0.1"},
		{"an unreadable second header: the proxy", "10.0.0.1:1", []string{"198.51.100.1", "unknown"}, "198.51.100.3", trusted, "10.0.0.1"},
		{"past the hops read: the proxy, not X-Real-IP", "10.0.0.1:1", []string{"198.51.100.1" + strings.Repeat(", 10.0.0.9", maxForwardedHops)}, "198.51.100.3", trusted, "10.0.0.1"},
		{"unreadable left of the client: the client", "10.0.0.1:1", []string{"unknown, 198.51.100.1, 10.0.0.2"}, "198.51.100.3", trusted, "198.51.100.1"},
		{"all-trusted XFF falls to X-Real-IP", "10.0.0.1:1", []string{"10.1.1.1"}, "198.51.100.3", trusted, "198.51.100.3"},
		{"X-Real-IP alone", "10.0.0.1:1", nil, "198.51.100.4", trusted, "198.51.100.4"},
		{"nothing usable: the proxy", "10.0.0.1:1", []string{""}, "junk", trusted, "10.0.0.1"},
		{"not an address", "@", nil, "", trusted, "@"},
		{"padded left of the client is never read", "10.0.0.1:1", []string{strings.Repeat("1.2.3.4, ", 5000) + "198.51.100.1, 10.0.0.2"}, "", trusted, "198.51.100.1"},
		{"more trusted hops than read: the proxy", "10.0.0.1:1", []string{"198.51.100.1" + strings.Repeat(", 10.0.0.9", maxForwardedHops)}, "", trusted, "10.0.0.1"},
		{"the last hop read is the client", "10.0.0.1:1", []string{"198.51.100.1" + strings.Repeat(", 10.0.0.9", maxForwardedHops-1)}, "", trusted, "198.51.100.1"},
		{"an entry longer than an address stops the walk", "10.0.0.1:1", []string{"198.51.100.1:" + strings.Repeat("0", maxAddrLen) + ", 10.0.0.2"}, "", trusted, "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := visitorKey(tt.remote, tt.xff, tt.realIP, tt.trusted); got != tt.want {
				t.Errorf("visitorKey = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVisitorKeyRanges: the admission reads an IPv6 visitor's /56 and /48 from its key
// (admit.VisitorRanges); an IPv4 visitor has none.
func TestVisitorKeyRanges(t *testing.T) {
	for _, tc := range []struct {
		remote string
		want   []string
	}{
		{"[2001:db8:1:2ff:3:4:5:6]:443", []string{"2001:db8:1:200::/56", "2001:db8:1::/48"}},
		{"[::ffff:203.0.113.7]:80", nil},
		{"203.0.113.7:5123", nil},
		{"@", nil},
	} {
		var got []string
		for _, p := range admit.VisitorRanges(visitorKey(tc.remote, nil, "", nil)) {
			got = append(got, p.String())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: ranges %v, want %v", tc.remote, got, tc.want)
		}
	}
}

// FuzzVisitorKey holds visitorKey to what the rate limit relies on, for any peer and headers.
func FuzzVisitorKey(f *testing.F) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, s := range [][3]string{
		{"203.0.113.7:5123", "198.51.100.1", "198.51.100.2"},
		{"10.0.0.1:1", "1.2.3.4, 198.51.100.1, 10.0.0.2", ""},
		{"10.0.0.1:1", " 198.51.100.1:555 ,10.0.0.3", ""},
		{"[fd00::1]:1", "2001:db8:a:b:c::1", ""},
		{"10.0.0.1:1", "::ffff:198.51.100.9", ""},
		{"10.0.0.1:1", "nonsense, 10.1.1.1", "[2001:db8::1]:80"},
		{"[fe80::1%eth0]:80", "", "junk"},
		{"@", "198.51.100.1", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, remote, xff, realIP string) {
		key := visitorKey(remote, []string{xff}, realIP, trusted)
		peer, ok := parseAddr(remote)
		if !ok {
			if key != remote {
				t.Fatalf("peer %q is no address, yet the key is %q", remote, key)
			}
			return
		}
		if !isTrusted(peer, trusted) && key != addrKey(peer) {
			t.Fatalf("untrusted peer %q: key %q, want %q whatever its headers say", remote, key, addrKey(peer))
		}
		if k := visitorKey(remote, []string{xff}, realIP, nil); k != addrKey(peer) {
			t.Fatalf("no trusted proxies: key %q, want the peer's %q", k, addrKey(peer))
		}
		// Several X-Forwarded-For headers are one list.
		if first, rest, found := strings.Cut(xff, ","); found {
			if k := visitorKey(remote, []string{first, rest}, realIP, trusted); k != key {
				t.Fatalf("X-Forwarded-For %q in two headers: key %q, in one: %q", xff, k, key)
			}
		}
		// The key is an address the request carries, never a made-up one.
		from := []string{addrKey(peer)}
		if a, ok := parseAddr(strings.TrimSpace(realIP)); ok {
			from = append(from, addrKey(a))
		}
		for hop := range strings.SplitSeq(xff, ",") {
			if a, ok := parseAddr(strings.TrimSpace(hop)); ok {
				from = append(from, addrKey(a))
			}
		}
		if !slices.Contains(from, key) {
			t.Fatalf("key %q is none of the request's addresses %q", key, from)
		}
		// X-Real-IP counts only beside an X-Forwarded-For of trusted proxies' addresses, or none.
		if a, ok := parseAddr(strings.TrimSpace(realIP)); ok && key == addrKey(a) && key != addrKey(peer) && !slices.Contains(from[2:], key) {
			for hop := range strings.SplitSeq(xff, ",") {
				if h, ok := parseAddr(strings.TrimSpace(hop)); !ok || !isTrusted(h, trusted) {
					t.Fatalf("key %q from X-Real-IP beside X-Forwarded-For %q", key, xff)
				}
			}
		}
		// One visitor, one spelling: an IPv4 address or a masked IPv6 /64.
		if p, err := netip.ParsePrefix(key); err == nil {
			if p.Bits() != 64 || p != p.Masked() || !p.Addr().Is6() || p.Addr().Zone() != "" {
				t.Fatalf("key %q is not an IPv6 /64", key)
			}
		} else if a, err := netip.ParseAddr(key); err != nil || !a.Is4() {
			t.Fatalf("key %q is neither an IPv4 address nor an IPv6 /64", key)
		}
		// The admission puts an IPv6 visitor in its /56 and /48, and any other in none.
		ranges := admit.VisitorRanges(key)
		if p, err := netip.ParsePrefix(key); err == nil {
			if len(ranges) != 2 || ranges[0].Bits() != 56 || ranges[1].Bits() != 48 || !ranges[0].Contains(p.Addr()) || !ranges[1].Contains(p.Addr()) {
				t.Fatalf("key %q lies in %v, want its /56 and /48", key, ranges)
			}
		} else if ranges != nil {
			t.Fatalf("IPv4 key %q lies in %v, want none", key, ranges)
		}
	})
}

// FuzzParseAddr: an address read from a header is canonical, whatever its spelling.
func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "1.2.3.4:5", "::1", "[::1]:5", "[fe80::1%eth0]", "[fe80::1%eth0]:80",
		"::ffff:1.2.3.4", "[::ffff:1.2.3.4]:80", "", "[", "1.2.3.4:", "01.2.3.4", "unix:/run/x.sock"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := parseAddr(s)
		if !ok {
			return
		}
		if !a.IsValid() || a.Zone() != "" || a.Is4In6() {
			t.Fatalf("parseAddr(%q) = %v: not canonical", s, a)
		}
		if b, ok := parseAddr(a.String()); !ok || b != a {
			t.Fatalf("parseAddr(%q) = %v, which reads back as %v, %v", s, a, b, ok)
		}
	})
}
