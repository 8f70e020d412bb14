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
	"mediagw/search/elastic"
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
		{"no index", fmt.Errorf("search: %w", search.NoIndex("items", nil)), search.KindNoIndex},
		{"no index, wrapping", fmt.Errorf("search: %w", search.NoIndex("items", errors.New("404"))), search.KindNoIndex},
		{"an unclassified no index", fmt.Errorf("search: %w", &search.NoIndexError{Name: "items"}), search.KindUnavailable},
		{"breaker open", fmt.Errorf("search: %w", &breaker.OpenError{Retry: time.Second}), search.KindUnavailable},
		{"admission refused", fmt.Errorf("search: %w", &admit.OverloadedError{Limit: 2}), search.KindOverloaded},
		{"carried", fmt.Errorf("search: %w", &search.Error{Kind: search.KindEngineFault, Err: errors.New("status 500")}), search.KindEngineFault},
		{"the outermost carrier", &search.Error{Kind: search.KindNoIndex, Err: search.ErrUnavailable}, search.KindNoIndex},
		{"an answer beats a deadline", errors.Join(context.DeadlineExceeded, search.ErrNotFound), search.KindNotFound},
		{"a deadline beats a carried failure", errors.Join(search.ErrUnavailable, context.DeadlineExceeded), search.KindTimeout},
		{"engine 4xx", fmt.Errorf("search: %w", &elastic.EngineError{Op: "search", Status: 400}), search.KindInternal},
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
