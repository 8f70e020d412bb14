package search

import "context"

type visitorKey struct{}

// WithVisitor returns a context whose calls are made for visitor: the key the gateway counts
// a client's requests by (its rate limit's: a whole range where the operator's policy counts the
// range as one visitor), so that a backend wrapper can share its work out among visitors
// (search/admit) without knowing HTTP.
func WithVisitor(ctx context.Context, visitor string) context.Context {
	return context.WithValue(ctx, visitorKey{}, visitor)
}

// VisitorOf is the visitor ctx's calls are made for; "" when no one's (a call of the process's own).
func VisitorOf(ctx context.Context) string {
	v, _ := ctx.Value(visitorKey{}).(string)
	return v
}
