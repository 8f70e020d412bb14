package searchtest

import (
	"context"
	"fmt"

	"mediagw/search"
)

// Failing stands for a broken engine, for the failures a healthy one cannot produce: every call
// fails with Err or, with Err nil, blocks until its deadline like an engine too slow to answer;
// with Panic, every call panics. The embedded Backend, when set, answers the rest (the extras,
// the words and the version).
type Failing struct {
	search.Backend
	Err   error
	Panic bool
}

func (f Failing) fail(ctx context.Context) error {
	if f.Panic {
		panic("backend exploded with secret internals")
	}
	if f.Err != nil {
		return f.Err
	}
	<-ctx.Done()
	return fmt.Errorf("engine: %w", ctx.Err())
}

// Search fails.
func (f Failing) Search(ctx context.Context, _ *search.Request) (search.Result, error) {
	return search.Result{}, f.fail(ctx)
}

// Item fails.
func (f Failing) Item(ctx context.Context, _ string) (search.Item, error) {
	return search.Item{}, f.fail(ctx)
}

// Categories fails.
func (f Failing) Categories(ctx context.Context, _ search.Query) ([]search.Category, error) {
	return nil, f.fail(ctx)
}

// Authors fails.
func (f Failing) Authors(ctx context.Context, _ search.Query) ([]search.Author, error) {
	return nil, f.fail(ctx)
}

// Ping fails.
func (f Failing) Ping(ctx context.Context) error { return f.fail(ctx) }

var _ search.Backend = Failing{}
