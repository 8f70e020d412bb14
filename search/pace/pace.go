// Package pace yields a sequence of items at a bounded rate: the copy of a rebuild or reindex,
// kept from starving an engine that also serves.
package pace

import (
	"context"
	"fmt"
	"iter"

	"golang.org/x/time/rate"

	"mediagw/search"
)

// Items yields the items of items at no more than perSecond a second (a token bucket), so that
// a copy spares an engine that also serves; perSecond 0 or less yields them as they come. When
// ctx ends during a wait, or would before the next item is due, that is yielded as the error.
func Items(ctx context.Context, items iter.Seq2[search.Item, error], perSecond float64) iter.Seq2[search.Item, error] {
	if perSecond <= 0 {
		return items
	}
	// A bucket of a tenth of a second's items: waiting per item then keeps to the rate on
	// average although a timer wakes late, and no burst exceeds that tenth.
	lim := rate.NewLimiter(rate.Limit(perSecond), max(1, int(perSecond/10)))
	return func(yield func(search.Item, error) bool) {
		for it, err := range items {
			if err == nil {
				if werr := lim.Wait(ctx); werr != nil {
					// Wait also gives up at once when ctx's deadline comes before the next token.
					if ctx.Err() != nil {
						werr = context.Cause(ctx)
					}
					yield(search.Item{}, fmt.Errorf("paced at %g items/s: %w", perSecond, werr))
					return
				}
			}
			if !yield(it, err) {
				return
			}
		}
	}
}
