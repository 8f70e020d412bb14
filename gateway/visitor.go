package gateway

import (
	"net"
	"net/netip"
	"strings"
)

// visitorKey names the visitor a request counts against: the direct peer's address or, when the
// peer is a trusted proxy, the right-most address in X-Forwarded-For that no trusted proxy added
// (else X-Real-IP). Right-most, because every hop appends and only the part our own proxies wrote
// can be believed. An X-Forwarded-For the walk cannot read to its client (an entry that is no
// address, an empty one, too many hops) leaves the peer: a header our proxies wrote is readable,
// so X-Real-IP beside a broken one is no better evidence. An IPv6 client is its /64, since one
// host usually holds a whole /64.
func visitorKey(remoteAddr string, xForwardedFor []string, xRealIP string, trusted []netip.Prefix) string {
	client, ok := clientAddr(remoteAddr, xForwardedFor, xRealIP, trusted)
	if !ok {
		// Not an address (e.g. a unix socket): every such request is one visitor.
		return remoteAddr
	}
	return addrKey(client)
}

// clientAddr is the address visitorKey names the visitor by; ok is false when the peer is no address.
func clientAddr(remoteAddr string, xForwardedFor []string, xRealIP string, trusted []netip.Prefix) (netip.Addr, bool) {
	peer, ok := parseAddr(remoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	client := peer
	if isTrusted(peer, trusted) {
		switch a, walk := rightmostUntrusted(xForwardedFor, trusted); walk {
		case forwardedClient:
			client = a
		case forwardedNone:
			if a, ok := parseAddr(strings.TrimSpace(xRealIP)); ok {
				client = a
			}
		}
	}
	return client, true
}

// maxForwardedHops is how many X-Forwarded-For entries are read, from the right: more than any
// chain of our own proxies, so a client cannot make the gateway parse a header it padded.
const maxForwardedHops = 16

// maxAddrLen is longer than any address with port and zone ("[v6%zone]:port") a proxy writes.
const maxAddrLen = 64

// forwardedWalk is what walking X-Forwarded-For found.
type forwardedWalk int

const (
	// forwardedNone: no header, or every entry a trusted proxy's.
	forwardedNone forwardedWalk = iota
	forwardedClient
	// forwardedUnreadable: an entry that is no address, or more than maxForwardedHops.
	forwardedUnreadable
)

// rightmostUntrusted walks X-Forwarded-For from the right, entry by entry without splitting the
// whole header; an unreadable entry, or one past maxForwardedHops, stops the walk, since whatever
// sits left of it was not written by a proxy we trust.
func rightmostUntrusted(headers []string, trusted []netip.Prefix) (netip.Addr, forwardedWalk) {
	hops := 0
	for i := len(headers) - 1; i >= 0; i-- {
		rest := headers[i]
		for {
			hops++
			if hops > maxForwardedHops {
				return netip.Addr{}, forwardedUnreadable
			}
			cut := strings.LastIndexByte(rest, ',')
			entry := strings.TrimSpace(rest[cut+1:])
			a, ok := parseAddr(entry)
			if !ok || len(entry) > maxAddrLen {
				return netip.Addr{}, forwardedUnreadable
			}
			if !isTrusted(a, trusted) {
				return a, forwardedClient
			}
			if cut < 0 {
				break
			}
			rest = rest[:cut]
		}
	}
	return netip.Addr{}, forwardedNone
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

// addrKey is a's visitor key: the address, or an IPv6 one's /64 written as a prefix, which
// admit.VisitorRanges reads to put the visitor in its /56 and /48.
func addrKey(a netip.Addr) string {
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}
