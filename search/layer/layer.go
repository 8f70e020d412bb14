// Package layer is the one way a layer of the chain (search/chain) wraps every call of the
// search.Backend below it: the layer says what it does around one call (a Hook), and Wrap
// forwards each method of search.Backend through it, so that no layer forwards them by hand.
package layer

import (
	"context"

	"mediagw/search"
)

// Op names a method of search.Backend.
type Op uint8

// The methods, as a Hook sees them.
const (
	Search Op = iota
	Item
	Categories
	Authors
	Ping
	Complete
	Related
	Totals
	Words
	Version
)

var opNames = [...]string{Search: "search", Item: "item", Categories: "categories", Authors: "authors", Ping: "ping",
	Complete: "complete", Related: "related", Totals: "totals", Words: "words", Version: "version"}

// String is the op's name, as metrics label it.
func (op Op) String() string { return opNames[op] }

// Hook is what a layer does around each call. Begin runs before the call: an error refuses it
// (the call is not made and End not called); otherwise its T (a start time, a slot, a breaker's
// ticket) goes to End with the call's error. A layer keeps its Hook's T a value, so that a call
// allocates nothing for it.
type Hook[T any] interface {
	Begin(ctx context.Context, op Op) (T, error)
	End(ctx context.Context, op Op, t T, err error)
}

// Backend is next with h around each call. It is safe for concurrent use if h is.
type Backend[T any] struct {
	next search.Backend
	hook Hook[T]
}

// Wrap puts h around every call of next.
func Wrap[T any](next search.Backend, h Hook[T]) *Backend[T] { return &Backend[T]{next: next, hook: h} }

// around makes call, a call of op, with the hook around it.
func around[T, R any](ctx context.Context, b *Backend[T], op Op, call func() (R, error)) (R, error) {
	t, err := b.hook.Begin(ctx, op)
	if err != nil {
		var zero R
		return zero, err
	}
	r, err := call()
	b.hook.End(ctx, op, t, err)
	return r, err
}

// Search is the next's, with the hook around it.
func (b *Backend[T]) Search(ctx context.Context, r *search.Request) (search.Result, error) {
	return around(ctx, b, Search, func() (search.Result, error) { return b.next.Search(ctx, r) })
}

// Item is the next's, with the hook around it.
func (b *Backend[T]) Item(ctx context.Context, id string) (search.Item, error) {
	return around(ctx, b, Item, func() (search.Item, error) { return b.next.Item(ctx, id) })
}

// Categories is the next's, with the hook around it.
func (b *Backend[T]) Categories(ctx context.Context, f search.Query) ([]search.Category, error) {
	return around(ctx, b, Categories, func() ([]search.Category, error) { return b.next.Categories(ctx, f) })
}

// Authors is the next's, with the hook around it.
func (b *Backend[T]) Authors(ctx context.Context, f search.Query) ([]search.Author, error) {
	return around(ctx, b, Authors, func() ([]search.Author, error) { return b.next.Authors(ctx, f) })
}

// Ping is the next's, with the hook around it.
func (b *Backend[T]) Ping(ctx context.Context) error {
	_, err := around(ctx, b, Ping, func() (struct{}, error) { return struct{}{}, b.next.Ping(ctx) })
	return err
}

// Complete is the next's, with the hook around it.
func (b *Backend[T]) Complete(ctx context.Context, text string, n int) ([]search.Completion, error) {
	return around(ctx, b, Complete, func() ([]search.Completion, error) { return b.next.Complete(ctx, text, n) })
}

// Related is the next's, with the hook around it.
func (b *Backend[T]) Related(ctx context.Context, id string, n int) ([]search.Item, error) {
	return around(ctx, b, Related, func() ([]search.Item, error) { return b.next.Related(ctx, id, n) })
}

// Totals is the next's, with the hook around it.
func (b *Backend[T]) Totals(ctx context.Context, r *search.Request, alts []search.Alternative, m search.Matches) ([]int, error) {
	return around(ctx, b, Totals, func() ([]int, error) { return b.next.Totals(ctx, r, alts, m) })
}

// Words is the next's, with the hook around it.
func (b *Backend[T]) Words(ctx context.Context) ([]search.Word, error) {
	return around(ctx, b, Words, func() ([]search.Word, error) { return b.next.Words(ctx) })
}

// Version is the next's, with the hook around it.
func (b *Backend[T]) Version(ctx context.Context) (string, error) {
	return around(ctx, b, Version, func() (string, error) { return b.next.Version(ctx) })
}

var _ search.Backend = (*Backend[struct{}])(nil)
