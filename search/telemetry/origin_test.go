package telemetry

import (
	"context"
	"testing"
)

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
