package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"mediagw/cmd/internal/backends"
	"mediagw/search"
)

// runReindex builds a new index version from the live one and makes it live, as load does from
// a file; the old version is kept for rollback.
func runReindex(ctx context.Context, e *env, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("%w: reindex takes no arguments (the items come from the live index)", errUsage)
	}
	if e.rate < 0 || math.IsNaN(e.rate) || math.IsInf(e.rate, 0) {
		return fmt.Errorf("%w: -rate %g: want items per second, 0 for no limit", errUsage, e.rate)
	}
	// A definition that cannot be read fails before anything is opened.
	var def []byte
	if e.mapping != "" {
		var err error
		if def, err = backends.Definition(e.cfg, e.mapping); err != nil {
			return err
		}
	}
	b, err := backends.OpenAdmin(ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer b.Close()
	// The live index's size is the total the bar fills to.
	total := int64(0)
	infos, err := b.Status(ctx)
	if err != nil {
		return err
	}
	for _, in := range infos {
		if in.Live {
			total = in.Docs
		}
	}
	var done atomic.Int64
	stop := progress(e, meter{what: "reindexing", total: max(total, 1), done: done.Load,
		note: func(elapsed time.Duration) string {
			n := done.Load()
			return fmt.Sprintf("reindexing: %d of %d items (%.0f%%, %.0f items/s)", n, total, 100*float64(n)/float64(max(total, 1)), float64(n)/elapsed.Seconds())
		}})
	start := time.Now()
	stats, err := b.Reindex(ctx, search.ReindexOptions{Definition: def, Rate: e.rate, Progress: func(d, _ int64) { done.Store(d) }})
	stop()
	if errors.Is(err, search.ErrDefinitionFixed) {
		return fmt.Errorf("%w: -mapping is an OpenSearch index definition; the embedded index's mapping is built into mediagw", errUsage)
	}
	if errors.Is(err, search.ErrPrune) {
		e.log.Sugar().Warnf("the reindex succeeded, but old indices were not removed: %v", err)
		err = nil
	}
	if err != nil {
		return fmt.Errorf("%w; the live index is unchanged", err)
	}
	took := time.Since(start)
	fmt.Fprintf(e.stdout, "index %s is live with %d items, rebuilt from the previous one (kept for mediactl rollback); took %s (%.0f items/s)\n",
		stats.Index, stats.Indexed, took.Round(time.Millisecond), float64(stats.Indexed)/took.Seconds())
	return nil
}
