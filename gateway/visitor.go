package gateway

import (
	"net"
	"net/netip"
	"strings"
)

// visitorKey names the visitor a request counts against: the direct peer's address or, when the
// peer is a trusted proxy, the right-most address in X-Forwarded-For that no trusted proxy added
// (else X-Real-IP). Right-most, because every hop appends and only the part our own proxies wrote
// can be believed. An IPv6 client is its /64, since one host usually holds a whole /64.
func visitorKey(remoteAddr string, xForwardedFor []string, xRealIP string, trusted []netip.Prefix) string {
	peer, ok := parseAddr(remoteAddr)
	if !ok {
		// Not an address (e.g. a unix socket): every such request is one visitor.
		return remoteAddr
	}
	client := peer
	if isTrusted(peer, trusted) {
		if a, found := rightmostUntrusted(xForwardedFor, trusted); found {
			client = a
		} else if a, ok := parseAddr(strings.TrimSpace(xRealIP)); ok {
			client = a
		}
	}
	return addrKey(client)
}

// rightmostUntrusted walks X-Forwarded-For from the right; an unreadable entry stops the walk,
// since whatever sits left of it was not written by a proxy we trust.
func rightmostUntrusted(headers []string, trusted []netip.Prefix) (netip.Addr, bool) {
	var hops []string
	for _, h := range headers {
		hops = append(hops, strings.Split(h, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseAddr(strings.TrimSpace(hops[i]))
		if !ok {
			return netip.Addr{}, false
		}
		if !isTrusted(a, trusted) {
			return a, true
		}
	}
	return netip.Addr{}, false
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseAddr reads "1.2.3.4", "1.2.3.4:5", "::1", "[::1]:5" and "[fe80::1%eth0]", without zone, and
// with an IPv4-mapped IPv6 address turned into its IPv4 one.
func parseAddr(s string) (netip.Addr, bool) {
	if s == "" {
		return netip.Addr{}, false
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.WithZone("").Unmap(), true
	}
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

func addrKey(a netip.Addr) string {
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}
