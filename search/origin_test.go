package search

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

type fault struct{ engine bool }

func (f fault) Error() string     { return "engine said no" }
func (f fault) EngineFault() bool { return f.engine }

func TestEngineFailed(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("search: %w", ErrUnavailable), true},
		{fmt.Errorf("search: %w", ErrOverloaded), true},
		{fmt.Errorf("search: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("search: %w", fault{engine: true}), true},
		{fmt.Errorf("search: %w", fault{engine: false}), false},
		{fmt.Errorf("item: %w", ErrNotFound), false},
		{fmt.Errorf("search: %w", ErrCursorInvalid), false},
		{fmt.Errorf("search: %w", ErrCursorExpired), false},
		{fmt.Errorf("search: %w", context.Canceled), false},
		{errors.Join(context.Canceled, ErrUnavailable), false},
	}
	for _, tt := range tests {
		if got := EngineFailed(tt.err); got != tt.want {
			t.Errorf("EngineFailed(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestNoteOriginFirstWins(t *testing.T) {
	NoteOrigin(context.Background(), Origin{Cached: true}) // no note: nothing happens
	ctx, note := WithOrigin(context.Background())
	if _, ok := note.Get(); ok {
		t.Error("a fresh note holds an origin")
	}
	NoteOrigin(ctx, Origin{Cached: true, Stale: true})
	NoteOrigin(ctx, Origin{})
	if o, ok := note.Get(); !ok || !o.Stale {
		t.Errorf("note holds %+v, %v; want the first origin", o, ok)
	}
}
