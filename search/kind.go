package search

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrorKind is what a backend's error means to its callers: the one classification the
// gateway's answer (problem type and status), its log level, the engine call metrics, the cache's
// stale answers and the circuit breaker all read.
type ErrorKind uint8

// Error is a failure classified where it is born (a backend's boundary with its engine, the
// layer that refuses a call: admission, the breaker) and carried up unchanged: its kind, and when
// a client may ask again. The layers and the gateway read it (Kind, errors.As) and never classify
// again.
type Error struct {
	Kind ErrorKind
	// RetryAfter is how long a client should wait before asking again, when the one that refused
	// knows; 0 when it does not.
	RetryAfter time.Duration
	// Err says what failed, for the log.
	Err error
}

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// The kinds of error, the question's first, then the caller's, then the engine's.
const (
	// KindNone is no error.
	KindNone ErrorKind = iota
	// KindNotFound is ErrNotFound: the item asked for does not exist.
	KindNotFound
	// KindCursorInvalid is ErrCursorInvalid: the cursor does not fit the query.
	KindCursorInvalid
	// KindCursorExpired is ErrCursorExpired: the cursor's index version is no longer served.
	KindCursorExpired
	// KindRefused is ErrRefused: the engine refused the query itself. It is no failure of the
	// engine's (EngineFailed): a circuit breaker that opened on it would let one question take
	// the engine from everyone.
	KindRefused
	// KindCanceled is context.Canceled: the caller went away before the answer.
	KindCanceled
	// KindNoIndex is NoIndex's error: the engine answers, but no index is behind the name it
	// serves (nothing loaded yet, or removed): a load, not a wait, fixes it. It is no failure of
	// the engine's (EngineFailed): a circuit breaker that opened on it would hide it.
	KindNoIndex
	// KindTimeout is context.DeadlineExceeded: the engine did not answer in time.
	KindTimeout
	// KindUnavailable is ErrUnavailable: the engine cannot be reached, or its circuit breaker is
	// open.
	KindUnavailable
	// KindOverloaded is ErrOverloaded: the call was refused before reaching the engine (search/admit).
	KindOverloaded
	// KindEngineFault is a failure on the engine's side (a 5xx of OpenSearch), as its backend
	// classified it.
	KindEngineFault
	// KindInternal is any other error: a bug, an engine answer no other kind explains.
	KindInternal
)

var kindNames = [...]string{
	KindNone: "none", KindNotFound: "not_found", KindCursorInvalid: "cursor_invalid", KindCursorExpired: "cursor_expired",
	KindRefused: "refused", KindCanceled: "canceled", KindNoIndex: "no_index", KindTimeout: "timeout", KindUnavailable: "unavailable", KindOverloaded: "overloaded",
	KindEngineFault: "engine_fault", KindInternal: "internal",
}

func (k ErrorKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "internal"
}

// Kind is the kind err was classified as where it was born (the outermost *Error it wraps). An
// answer to the question (not found, a bad cursor, a query the engine refused) is that answer; a
// failure that wraps the end of its context (which no boundary classifies: the standard library
// makes it) is a timeout, or the caller gone; any other error is internal.
func Kind(err error) ErrorKind {
	if err == nil {
		return KindNone
	}
	var e *Error
	carried := errors.As(err, &e)
	switch {
	case carried && !e.Kind.Failed():
		return e.Kind
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case carried:
		return e.Kind
	}
	return KindInternal
}

// KindIn is Kind of err, the error of a call made under ctx: once ctx's deadline has passed, a
// failure is a timeout whatever it says, as a wrapper cut short may report it otherwise.
func KindIn(ctx context.Context, err error) ErrorKind {
	k := Kind(err)
	if k.Failed() && k != KindTimeout && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return KindTimeout
	}
	return k
}

// Failed reports whether the call failed to get an answer: the answers to the question (not
// found, a bad cursor, a query the engine refused) and no error are not failures.
func (k ErrorKind) Failed() bool { return k >= KindCanceled }

// EngineFailed reports whether the kind is the engine's failure: it could not be reached, was
// overloaded (an answer from memory beats a refusal), did not answer in time, or failed on its
// side. The question's faults and a caller that went away are not: stale answers must not hide
// them, and a circuit breaker must not count them.
func (k ErrorKind) EngineFailed() bool { return k >= KindTimeout && k <= KindEngineFault }

// NoIndex is the error of a backend whose engine answers but holds no index under name (an alias,
// the embedded index's directory), classified KindNoIndex; err is what the engine said, or nil.
func NoIndex(name string, err error) error {
	return &Error{Kind: KindNoIndex, Err: &NoIndexError{Name: name, Err: err}}
}

// NoIndexError is what NoIndex carries: the name with no index behind it (nothing was loaded there
// yet, or it was removed). It is an ErrUnavailable too, for those that only tell failures of the
// engine apart.
type NoIndexError struct {
	Name string
	Err  error
}

func (e *NoIndexError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("no index %s", e.Name)
	}
	return fmt.Sprintf("no index %s: %v", e.Name, e.Err)
}

func (e *NoIndexError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }
