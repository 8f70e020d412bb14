package gateway

import (
	"net/netip"
	"testing"
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
		{"garbage XFF falls to X-Real-IP", "10.0.0.1:1", []string{"nonsense"}, "198.51.100.3", trusted, "198.51.100.3"},
		{"all-trusted XFF falls to X-Real-IP", "10.0.0.1:1", []string{"10.1.1.1"}, "198.51.100.3", trusted, "198.51.100.3"},
		{"X-Real-IP alone", "10.0.0.1:1", nil, "198.51.100.4", trusted, "198.51.100.4"},
		{"nothing usable: the proxy", "10.0.0.1:1", []string{""}, "junk", trusted, "10.0.0.1"},
		{"not an address", "@", nil, "", trusted, "@"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := visitorKey(tt.remote, tt.xff, tt.realIP, tt.trusted); got != tt.want {
				t.Errorf("visitorKey = %q, want %q", got, tt.want)
			}
		})
	}
}
