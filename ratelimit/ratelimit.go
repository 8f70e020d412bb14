// Package ratelimit decides whether a visitor may make another request: a GCRA limit kept in
// Redis (shared by every replica) or in process, with the same numbers either way.
package ratelimit

import "time"

// Policy is the contract's limit: Limit requests per Window per visitor.
type Policy struct {
	Limit  int
	Window time.Duration
}

// Decision is the outcome of one request against a visitor's limit.
type Decision struct {
	Allowed bool
	// Limit is the policy's request count, for the headers.
	Limit int
	// Remaining is how many more requests the visitor may make right now.
	Remaining int
	// RetryAfter is how long until the next request is allowed; zero while Remaining > 0.
	RetryAfter time.Duration
	// ResetAfter is how long until the visitor is back to the full Limit.
	ResetAfter time.Duration
}
