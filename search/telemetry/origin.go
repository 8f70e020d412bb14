package telemetry

import (
	"context"
	"sync"
	"time"
)

// Origin says where an answer came from, for a caller that tells its own clients (the gateway's
// Cache-Status header). A caching wrapper (search/cache) notes it; the engines note nothing.
type Origin struct {
	// Cached is true when the answer came from memory rather than from an engine call made for it.
	Cached bool
	// Collapsed is true when the answer came from another caller's engine call, shared.
	Collapsed bool
	// Stale is true when a cached answer was served past its freshness because the engine failed.
	Stale bool
	// Age is how long ago the engine gave a cached answer.
	Age time.Duration
}

// OriginNote receives the Origin of the first answer given under the context WithOrigin made.
type OriginNote struct {
	mu     sync.Mutex
	origin Origin
	noted  bool
}

// Get returns the noted origin; ok is false when no answer noted one (nothing caches).
func (n *OriginNote) Get() (o Origin, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.origin, n.noted
}

type originKey struct{}

// WithOrigin returns a context under which the first answer notes its origin in the returned note.
// Only the first counts: the later calls a request makes (a search's correction) do not change
// what its answer was.
func WithOrigin(ctx context.Context) (context.Context, *OriginNote) {
	n := &OriginNote{}
	return context.WithValue(ctx, originKey{}, n), n
}

// NoteOrigin notes o in ctx's OriginNote, unless the context has none or an answer noted one first.
func NoteOrigin(ctx context.Context, o Origin) {
	n, _ := ctx.Value(originKey{}).(*OriginNote)
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.noted {
		n.origin, n.noted = o, true
	}
}
