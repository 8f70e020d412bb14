package cache

import (
	"context"
	"sync"
	"time"
)

// flight is one engine call shared by every concurrent caller asking the same question.
type flight struct {
	// done is closed once val and err are set.
	done chan struct{}
	val  any
	err  error
	// waiters counts the callers waiting on it (guarded by flights.mu); the last to leave cancels it.
	waiters int
	cancel  context.CancelFunc
}

// flights are the engine calls in progress, by key. Unlike singleflight's, a call is cancelled
// when the last caller waiting on it has gone: a visitor who has gone stops costing the engine,
// while one who leaves a call others still wait on does not fail them. A caller whose deadline
// passed cancels nothing: the call's own deadline, as long, is a moment away, and its timeout is
// what tells a circuit breaker (search/breaker) that the engine hangs, where a cancelled call
// tells it nothing.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

// join returns the call in progress for key, or starts call for it, bounded by timeout and
// carrying ctx's values but not its end (led is then true). The caller must leave it.
func (g *flights) join(ctx context.Context, key string, timeout time.Duration, call func(context.Context) (any, error)) (f *flight, led bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.m[key]; ok {
		f.waiters++
		return f, false
	}
	if g.m == nil {
		g.m = map[string]*flight{}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	f = &flight{done: make(chan struct{}), waiters: 1, cancel: cancel}
	g.m[key] = f
	go func() {
		defer cancel()
		val, err := call(cctx)
		g.mu.Lock()
		if g.m[key] == f {
			delete(g.m, key)
		}
		g.mu.Unlock()
		f.val, f.err = val, err
		close(f.done)
	}()
	return f, true
}

// leave says a caller no longer waits on f; gone says it went away (its context was cancelled).
// When the last caller has gone, the call is cancelled and forgotten, so that the next caller
// with the same question starts a call of its own.
func (g *flights) leave(key string, f *flight, gone bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f.waiters--
	if f.waiters > 0 || !gone {
		return
	}
	if g.m[key] == f {
		delete(g.m, key)
	}
	f.cancel()
}
