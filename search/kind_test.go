package search_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/breaker"
	"mediagw/search/engine"
)

func TestKind(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want search.ErrorKind
	}{
		{"no error", nil, search.KindNone},
		{"missing item", fmt.Errorf("item x: %w", search.ErrNotFound), search.KindNotFound},
		{"bad cursor", fmt.Errorf("search: %w", search.ErrCursorInvalid), search.KindCursorInvalid},
		{"expired cursor", fmt.Errorf("search: %w", search.ErrCursorExpired), search.KindCursorExpired},
		{"query refused", fmt.Errorf("search: %w", search.ErrRefused), search.KindRefused},
		{"caller gone", fmt.Errorf("search: %w", context.Canceled), search.KindCanceled},
		{"deadline", fmt.Errorf("search: %w", context.DeadlineExceeded), search.KindTimeout},
		{"deadline and cancel", errors.Join(context.Canceled, context.DeadlineExceeded), search.KindTimeout},
		{"cancel beats unavailable", errors.Join(context.Canceled, search.ErrUnavailable), search.KindCanceled},
		{"unreachable", fmt.Errorf("dial: %w", search.ErrUnavailable), search.KindUnavailable},
		{"no index", fmt.Errorf("search: %w", &search.NoIndexError{Name: "items"}), search.KindNoIndex},
		{"no index, wrapping", fmt.Errorf("search: %w", &search.NoIndexError{Name: "items", Err: errors.New("404")}), search.KindNoIndex},
		{"breaker open", fmt.Errorf("search: %w", &breaker.OpenError{Retry: time.Second}), search.KindUnavailable},
		{"admission refused", fmt.Errorf("search: %w", &admit.OverloadedError{Limit: 2}), search.KindOverloaded},
		{"engine 5xx", fmt.Errorf("search: %w", &engine.EngineError{Op: "search", Status: 500}), search.KindEngineFault},
		{"engine 4xx", fmt.Errorf("search: %w", &engine.EngineError{Op: "search", Status: 400}), search.KindInternal},
		{"engine timeout", fmt.Errorf("%w: %w", &engine.EngineError{Op: "search", Status: 504}, context.DeadlineExceeded), search.KindTimeout},
		{"anything else", errors.New("index corrupt"), search.KindInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := search.Kind(tt.err)
			if got != tt.want {
				t.Errorf("Kind(%v) = %v, want %v", tt.err, got, tt.want)
			}
			failed := tt.want >= search.KindCanceled
			if got.Failed() != failed {
				t.Errorf("%v.Failed() = %v, want %v", got, got.Failed(), failed)
			}
			engineFailed := map[search.ErrorKind]bool{search.KindTimeout: true, search.KindUnavailable: true,
				search.KindOverloaded: true, search.KindEngineFault: true}[tt.want]
			if got.EngineFailed() != engineFailed {
				t.Errorf("%v.EngineFailed() = %v, want %v", got, got.EngineFailed(), engineFailed)
			}
		})
	}
}

func TestKindIn(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	tests := []struct {
		ctx  context.Context
		err  error
		want search.ErrorKind
	}{
		{context.Background(), fmt.Errorf("dial: %w", search.ErrUnavailable), search.KindUnavailable},
		// Past the deadline, a failure is the timeout that cut it short.
		{expired, fmt.Errorf("dial: %w", search.ErrUnavailable), search.KindTimeout},
		{expired, context.Canceled, search.KindTimeout},
		{expired, errors.New("index corrupt"), search.KindTimeout},
		// An answer stays an answer.
		{expired, search.ErrNotFound, search.KindNotFound},
		{expired, search.ErrCursorExpired, search.KindCursorExpired},
		{expired, nil, search.KindNone},
	}
	for _, tt := range tests {
		if got := search.KindIn(tt.ctx, tt.err); got != tt.want {
			t.Errorf("KindIn(%v, %v) = %v, want %v", tt.ctx.Err(), tt.err, got, tt.want)
		}
	}
}
