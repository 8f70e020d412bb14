package querylog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Recorder counts the searches a replica answers and sends them to Redis in the background: Record
// only adds to a bounded map in process, and a flush every FlushInterval sends the map's counts to
// the current bucket in one pipelined call. When Redis fails, the bucket is held in process in a
// sketch of its own (Top counters) and sent with the next flush that Redis takes, for as long as
// it is within the window. It is a prometheus.Collector of
//
//	mediagw_querylog_searches_total       searches recorded
//	mediagw_querylog_no_results_total     of them, those that found nothing
//	mediagw_querylog_dropped_total        searches not recorded: the map was full
//	mediagw_querylog_flush_failures_total flushes Redis did not take (their counts held in process)
//
// which carry no query text.
type Recorder struct {
	opt    Options
	client redis.UniversalClient
	log    *zap.Logger

	mu    sync.Mutex
	batch tally

	flushMu sync.Mutex
	held    map[int64]*held
	failing bool

	searches, noResults, dropped, failures prometheus.Counter

	stop chan struct{}
	done chan struct{}
}

// New returns a recorder that flushes to client until Close. A nil client keeps no text at all:
// the counters only (no Redis, or a Top of 0). A nil logger logs nothing.
func New(client redis.UniversalClient, opt Options, logger *zap.Logger) (*Recorder, error) {
	opt = opt.withDefaults()
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	r := &Recorder{
		opt: opt, client: client, log: logger,
		batch: make(tally),
		held:  make(map[int64]*held),
		searches: prometheus.NewCounter(prometheus.CounterOpts{Name: "mediagw_querylog_searches_total",
			Help: "Searches with a text recorded in the query log."}),
		noResults: prometheus.NewCounter(prometheus.CounterOpts{Name: "mediagw_querylog_no_results_total",
			Help: "Searches recorded in the query log that found nothing."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "mediagw_querylog_dropped_total",
			Help: "Searches not recorded: the replica's buffer of texts between two flushes was full."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "mediagw_querylog_flush_failures_total",
			Help: "Query log flushes Redis did not take; their counts are held in process until one does."}),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go r.run()
	return r, nil
}

// Record counts one answered search of the text q, and whether it found nothing. It never waits on
// Redis: it takes a lock held only to add to or swap the map.
func (r *Recorder) Record(q string, zero bool) {
	if r.client == nil {
		r.count(zero)
		return
	}
	key := Normalize(q)
	if key == "" {
		return
	}
	r.mu.Lock()
	c, ok := r.batch[key]
	if !ok && len(r.batch) >= r.opt.Buffer {
		r.mu.Unlock()
		r.dropped.Inc()
		return
	}
	c.all++
	if zero {
		c.zero++
	}
	r.batch[key] = c
	r.mu.Unlock()
	r.count(zero)
}

func (r *Recorder) count(zero bool) {
	r.searches.Inc()
	if zero {
		r.noResults.Inc()
	}
}

func (r *Recorder) run() {
	defer close(r.done)
	tick := time.NewTicker(r.opt.FlushInterval)
	defer tick.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-tick.C:
			r.Flush(context.Background()) //nolint:errcheck // counted, logged and held for the next flush
		}
	}
}

// Close stops the flushes and sends what is left, within the flush timeout.
func (r *Recorder) Close() error {
	close(r.stop)
	<-r.done
	return r.Flush(context.Background())
}

// Flush sends the counts since the last flush, and the buckets held in process, to Redis in one
// pipelined call bounded by the flush timeout. What Redis does not take is held in process.
func (r *Recorder) Flush(ctx context.Context) error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	batch := r.batch
	if len(batch) > 0 {
		r.batch = make(tally, len(batch))
	}
	r.mu.Unlock()
	if r.client == nil {
		return nil
	}
	cur := r.opt.bucket(r.opt.Now())
	type part struct {
		bucket int64
		t      tally
		held   bool
	}
	var parts []part
	for b, h := range r.held {
		if b < cur-Buckets {
			delete(r.held, b) // past the window
			continue
		}
		parts = append(parts, part{b, h.tally(), true})
	}
	if len(batch) > 0 {
		parts = append(parts, part{cur, batch, false})
	}
	if len(parts) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.opt.Timeout)
	defer cancel()
	cmds := make([]*redis.Cmd, len(parts))
	// Per-command errors are read below; the pipeline's own error is the first of them.
	_, _ = r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, pt := range parts {
			cmds[i] = record.Eval(ctx, p, r.opt.keys(pt.bucket), r.opt.recordArgs(pt.bucket, pt.t)...)
		}
		return nil
	})
	var errs []error
	for i, pt := range parts {
		err := cmds[i].Err()
		switch {
		case err != nil && !pt.held:
			r.hold(pt.bucket, pt.t)
			errs = append(errs, err)
		case err != nil:
			errs = append(errs, err)
		case pt.held:
			delete(r.held, pt.bucket)
		}
	}
	r.note(errors.Join(errs...))
	if len(errs) > 0 {
		return fmt.Errorf("querylog: flush to Redis: %w", errs[0])
	}
	return nil
}

func (r *Recorder) hold(bucket int64, t tally) {
	h := r.held[bucket]
	if h == nil {
		h = newHeld(r.opt.Top)
		r.held[bucket] = h
	}
	h.add(t)
}

// note counts a failed flush, and logs when flushes start failing and when they work again.
func (r *Recorder) note(err error) {
	if err != nil {
		r.failures.Inc()
		if !r.failing {
			r.log.Warn("query log: Redis failed, holding counts in process until it answers", zap.Error(err))
		}
		r.failing = true
		return
	}
	if r.failing {
		r.log.Info("query log: Redis answers again, held counts sent")
	}
	r.failing = false
}

// Describe implements prometheus.Collector.
func (r *Recorder) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(r, ch) }

// Collect implements prometheus.Collector.
func (r *Recorder) Collect(ch chan<- prometheus.Metric) {
	ch <- r.searches
	ch <- r.noResults
	ch <- r.dropped
	ch <- r.failures
}

var _ prometheus.Collector = (*Recorder)(nil)
