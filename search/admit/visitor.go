package admit

import (
	"context"
	"net/netip"
)

type visitorKey struct{}

// WithVisitor returns a context whose calls are made for visitor: the key the gateway counts
// a client's requests by (its rate limit's: a whole range where the operator's policy counts the
// range as one visitor), so that a backend wrapper can share its work out among visitors
// (this package) without knowing HTTP.
func WithVisitor(ctx context.Context, visitor string) context.Context {
	return context.WithValue(ctx, visitorKey{}, visitor)
}

// VisitorOf is the visitor ctx's calls are made for; "" when no one's (a call of the process's own).
func VisitorOf(ctx context.Context) string {
	v, _ := ctx.Value(visitorKey{}).(string)
	return v
}

// VisitorRanges are the wider networks a visitor lies in, the narrowest first: an IPv6 visitor,
// whose key is its /64 ("2001:db8:1:2::/64", as the gateway writes it), lies in its /56 and its
// /48; any other visitor in none.
func VisitorRanges(visitor string) []netip.Prefix {
	p, err := netip.ParsePrefix(visitor)
	if err != nil || !p.Addr().Is6() || p.Bits() != 64 {
		return nil
	}
	return []netip.Prefix{netip.PrefixFrom(p.Addr(), 56).Masked(), netip.PrefixFrom(p.Addr(), 48).Masked()}
}
