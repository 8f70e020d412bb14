package querylog

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Recorder counts the searches a replica answers and sends them to Redis in the background: Record
// only adds to bounded maps in process, counting a visitor's search of a text once a window, and a
// flush every FlushInterval sends the counts to the current bucket, at most MaxBatch texts a Redis
// call. When Redis fails, the bucket is held in process in a sketch of its own (Top counters) and
// sent with the next flush that Redis takes, for as long as it is within the window. It is a
// prometheus.Collector of
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
	hash   hasher

	mu    sync.Mutex
	batch tally
	seen  *seen

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
		opt: opt, client: client, log: logger, hash: newHasher(),
		batch: newTally(0),
		seen:  newSeen(opt.Seen),
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

// Record counts one answered search of the text q by visitor, and whether it found nothing: in the
// totals always, under its text only the first time visitor searched it within the window and
// among the first MaxVisitorTexts texts visitor counted in the bucket. It never waits on Redis: it
// takes a lock held only to add to or swap the maps.
func (r *Recorder) Record(visitor, q string, zero bool) {
	if r.client == nil {
		r.count(zero)
		return
	}
	key := Normalize(q)
	if key == "" {
		return
	}
	who, pair := r.hash.visitor(visitor), r.hash.pair(visitor, key)
	cur := r.opt.bucket(r.opt.Now())
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.seen.counted(pair, cur) && !r.seen.spent(who, cur) {
		c, ok := r.batch.texts[key]
		if !ok && len(r.batch.texts) >= r.opt.Buffer {
			r.dropped.Inc()
			return
		}
		r.seen.mark(who, pair, cur)
		t := tag32(who)
		c.all++
		c.allBy.add(t)
		if zero {
			c.zero++
			c.zeroBy.add(t)
		}
		r.batch.texts[key] = c
	}
	r.batch.searches++
	if zero {
		r.batch.noResults++
	}
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

// Flush sends the counts since the last flush, and the buckets held in process, to Redis, in calls
// of at most MaxBatch texts one after the other, all bounded by the flush timeout. What Redis does
// not take is held in process, and once a call fails the rest is held without being tried.
func (r *Recorder) Flush(ctx context.Context) error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	batch := r.batch
	fresh := len(batch.texts) > 0 || batch.searches > 0
	if fresh {
		r.batch = newTally(len(batch.texts))
	}
	r.mu.Unlock()
	if r.client == nil {
		return nil
	}
	cur := r.opt.bucket(r.opt.Now())
	for b := range r.held {
		if b < cur-Buckets {
			delete(r.held, b) // past the window
		}
	}
	ctx, cancel := context.WithTimeout(ctx, r.opt.Timeout)
	defer cancel()
	var err error
	// send makes the calls of a bucket's tally, and returns the chunks Redis took and those left.
	send := func(bucket int64, t tally) (took, left []tally) {
		for _, ch := range t.chunks(MaxBatch) {
			if err == nil {
				err = record.Run(ctx, r.client, r.opt.keys(bucket), r.opt.recordArgs(bucket, ch)...).Err()
			}
			if err == nil {
				took = append(took, ch)
			} else {
				left = append(left, ch)
			}
		}
		return took, left
	}
	for b, h := range r.held {
		took, _ := send(b, h.tally())
		for _, ch := range took {
			h.sent(ch)
		}
		if h.empty() {
			delete(r.held, b)
		}
	}
	if fresh {
		_, left := send(cur, batch)
		for _, ch := range left {
			r.hold(cur, ch)
		}
	}
	r.note(err)
	if err != nil {
		return fmt.Errorf("querylog: flush to Redis: %w", err)
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
