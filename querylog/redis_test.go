package querylog

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"mediagw/internal/servicetest"
	"mediagw/redisconn"
)

// testTimeout replaces the client's production timeouts: the machine running the tests may be
// loaded, and a late answer is not what these tests are about.
const testTimeout = 5 * time.Second

// testClient connects to REDIS_URL (skipping without it) and removes the test's keys at the end.
func testClient(t *testing.T, prefix string) redis.UniversalClient {
	t.Helper()
	cfg, err := redisconn.ParseURL(servicetest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Single; o != nil {
		o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = testTimeout, testTimeout, testTimeout
	}
	c := cfg.NewClient()
	servicetest.WaitForRedis(t, c)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		for _, k := range testKeys(t, c, prefix) {
			c.Del(ctx, k)
		}
		c.Close()
	})
	return c
}

func testKeys(t *testing.T, c redis.UniversalClient, prefix string) []string {
	t.Helper()
	keys, err := c.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func testPrefix(t *testing.T) string {
	return fmt.Sprintf("mediagw-test:querylog:%s:%s:", t.Name(), rand.Text()[:10])
}

// clock is a time source tests move by hand.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.ns.Store(t.UnixNano())
	return c
}
func (c *clock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }
func newRecorder(t *testing.T, c redis.UniversalClient, o Options) *Recorder {
	t.Helper()
	// Flushes only when the test says: the ticker's are too far apart to run.
	o.FlushInterval = time.Hour
	o.Timeout = testTimeout
	r, err := New(c, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestSharedCountsWithinError: two replicas record one stream between them, each search from a
// visitor of its own, over several buckets; the report lists the texts MinVisitors visitors
// searched, each with a count within its stated error of the true one, and the error is at most
// searches/k, as the README says.
func TestSharedCountsWithinError(t *testing.T) {
	tests := []struct {
		name           string
		top, distinct  int
		searches       int
		wantExactCount bool
	}{
		{"fewer texts than k: exact", 100, 40, 3000, true},
		{"more texts than k", 30, 2000, 6000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := testPrefix(t)
			c := testClient(t, prefix)
			clk := newClock(time.Now().Add(-10 * time.Second))
			o := Options{Window: 24 * time.Second, Top: tt.top, Prefix: prefix, Now: clk.now}
			replicas := []*Recorder{newRecorder(t, c, o), newRecorder(t, testClient(t, prefix), o)}
			stream, truth := zipfStream(uint64(tt.distinct), tt.distinct, tt.searches)
			zeroTruth := map[string]int64{}
			for i, text := range stream {
				// A text whose number ends in 7 finds nothing; spaces and case are normalised.
				zero := strings.HasSuffix(text, "7")
				if zero {
					zeroTruth[text]++
				}
				replicas[i%2].Record(fmt.Sprint("visitor ", i), strings.ToUpper(text)+"  ", zero)
				if i%500 == 499 { // a flush, and a new bucket, every 500 searches
					for _, r := range replicas {
						if err := r.Flush(t.Context()); err != nil {
							t.Fatal(err)
						}
					}
					clk.add(time.Second)
				}
			}
			for _, r := range replicas {
				if err := r.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Read(t.Context(), c, o, 0, tt.distinct)
			if err != nil {
				t.Fatal(err)
			}
			var zeros int64
			for _, n := range zeroTruth {
				zeros += n
			}
			if rep.Searches != int64(tt.searches) || rep.NoResults != zeros {
				t.Errorf("report counts %d searches, %d with no results; sent %d, %d", rep.Searches, rep.NoResults, tt.searches, zeros)
			}
			if tt.wantExactCount && (rep.Error != 0 || rep.ErrorNoResults != 0) {
				t.Errorf("error %d, %d: want 0 with fewer texts than k", rep.Error, rep.ErrorNoResults)
			}
			if bound := int64(tt.searches / tt.top); rep.Error > bound {
				t.Errorf("stated error %d, more than searches/k = %d", rep.Error, bound)
			}
			checkWithin(t, "searches", rep.Top, truth, rep.Error)
			checkWithin(t, "no results", rep.TopNoResults, zeroTruth, rep.ErrorNoResults)
			if len(rep.Top) == 0 || rep.Top[0].Text != "query 0" {
				t.Errorf("most frequent = %v, want query 0 (the Zipf head) first", rep.Top[:min(3, len(rep.Top))])
			}
		})
	}
}

// checkWithin, for a stream of one visitor a search: the list names only texts sent by MinVisitors
// visitors or more, each counted within e of its true count; a text so sent and not listed lost
// its visitors to the sketch's evictions, so had at most e of them (plus the few it kept).
func checkWithin(t *testing.T, kind string, got []Count, truth map[string]int64, e int64) {
	t.Helper()
	listed := map[string]bool{}
	for _, c := range got {
		n, ok := truth[c.Text]
		switch {
		case !ok || n < MinVisitors:
			t.Errorf("%s: %q listed (%d), sent by %d visitors", kind, c.Text, c.N, n)
		case c.N-n > e || n-c.N > e:
			t.Errorf("%s: %q counted %d, sent %d: more than the stated error %d apart", kind, c.Text, c.N, n, e)
		}
		listed[c.Text] = true
	}
	for text, n := range truth {
		if !listed[text] && n >= MinVisitors && n > e+MinVisitors-1 {
			t.Errorf("%s: %q sent by %d visitors, not listed (stated error %d)", kind, text, n, e)
		}
	}
}

// TestHeldWhileRedisFails: a replica whose Redis does not answer keeps recording, in process, and
// counts the failed flushes; the metrics carry no text.
func TestHeldWhileRedisFails(t *testing.T) {
	servicetest.RedisURL(t)
	redisconn.SetLogger(zap.NewNop()) // a line per failed dial, on purpose here
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "redis://" + l.Addr().String()
	l.Close()
	c, err := redisconn.Open(down)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := newRecorder(t, c, Options{Window: time.Hour, Top: 5})
	for i := range 100 {
		r.Record(fmt.Sprint("visitor ", i), fmt.Sprintf("secret text %d", i%20), i%4 == 0)
		if i%25 == 24 && r.Flush(t.Context()) == nil {
			t.Fatal("flush to a Redis that is down succeeded")
		}
	}
	if n := testutil.ToFloat64(r.failures); n != 4 {
		t.Errorf("flush failures = %v, want 4", n)
	}
	if s, z := testutil.ToFloat64(r.searches), testutil.ToFloat64(r.noResults); s != 100 || z != 25 {
		t.Errorf("searches %v, no results %v: want 100, 25", s, z)
	}
	if len(r.held) != 1 || len(r.held[r.opt.bucket(time.Now())].all.counts) != 5 {
		t.Errorf("held %v: want the current bucket, in 5 counters", r.held)
	}
	n, err := testutil.GatherAndCount(registryOf(t, r))
	if err != nil || n != 4 {
		t.Errorf("%d series (%v), want the 4 counters", n, err)
	}
}

// TestRedisMemoryBound: many distinct texts of the longest kind, each from MinVisitors visitors,
// over more buckets than a window holds: the keys left in Redis and the memory they take stay
// under MaxRedisBytes.
func TestRedisMemoryBound(t *testing.T) {
	prefix := testPrefix(t)
	c := testClient(t, prefix)
	// From two windows ago to now, so the buckets past the window have expired as they would have.
	clk := newClock(time.Now().Add(-50 * time.Second))
	o := Options{Window: 24 * time.Second, Top: 50, Prefix: prefix, Now: clk.now}
	r := newRecorder(t, c, o)
	for step := range 50 {
		for i := range 400 {
			for v := range MinVisitors {
				r.Record(fmt.Sprint("visitor ", i, v), fmt.Sprintf("%d %d %s", step, i, strings.Repeat("x", MaxTextBytes)), i%2 == 0)
			}
		}
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		clk.add(time.Second)
	}
	keys := testKeys(t, c, prefix)
	if len(keys) > 5*(Buckets+2) {
		t.Errorf("%d keys, more than 5 per bucket for %d buckets", len(keys), Buckets+2)
	}
	var bytes int64
	for _, k := range keys {
		n, err := c.MemoryUsage(t.Context(), k, 0).Result()
		if err != nil {
			t.Fatal(err)
		}
		bytes += n
		if strings.HasSuffix(k, "all") || strings.HasSuffix(k, "zero") {
			if n := c.ZCard(t.Context(), k).Val(); n > int64(o.Top) {
				t.Errorf("%s holds %d texts, more than k = %d", k, n, o.Top)
			}
		}
	}
	max := o.MaxRedisBytes()
	t.Logf("%d keys, %d bytes; bound %d", len(keys), bytes, max)
	if bytes > max || bytes < max/4 {
		t.Errorf("Redis holds %d bytes for the log, want at most the bound %d (and not far under it, at most 4 times)", bytes, max)
	}
}

func registryOf(t *testing.T, r *Recorder) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(r); err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestOncePerVisitor: a visitor's searches of one text count once a window, however often it
// sends them and on whichever bucket; a report lists a text only once MinVisitors visitors
// searched it, and the totals count every search.
func TestOncePerVisitor(t *testing.T) {
	type search struct {
		visitor, text string
		zero          bool
		// later moves the clock on this much before the search.
		later time.Duration
	}
	repeat := func(n int, s search) []search {
		out := make([]search, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	each := func(text string, zero bool, visitors ...string) []search {
		var out []search
		for _, v := range visitors {
			out = append(out, search{visitor: v, text: text, zero: zero})
		}
		return out
	}
	flood := func(visitor string, n int) []search {
		out := make([]search, n)
		for i := range out {
			out[i] = search{visitor: visitor, text: fmt.Sprint("noise ", i)}
		}
		return out
	}
	tests := []struct {
		name                 string
		searches             []search
		top, topNoResults    []Count
		totals, noResultsAll int64
	}{
		{"one visitor, many times: counted once, not listed",
			repeat(20, search{visitor: "a", text: "thames"}), nil, nil, 20, 0},
		{"two visitors: not listed",
			append(each("thames", false, "a", "b"), each("thames", false, "a", "b")...), nil, nil, 4, 0},
		{"three visitors, each twice: listed, counted 3",
			append(each("thames", false, "a", "b", "c"), each("Thames ", false, "c", "b", "a")...),
			[]Count{{"thames", 3}}, nil, 6, 0},
		{"found nothing for three of four",
			append(each("qqq", true, "a", "b", "c"), search{visitor: "d", text: "qqq"}),
			[]Count{{"qqq", 4}}, []Count{{"qqq", 3}}, 4, 3},
		{"again buckets later, within the window: once",
			[]search{{visitor: "a", text: "thames"}, {visitor: "b", text: "thames"},
				{visitor: "a", text: "thames", later: 5 * time.Second}, {visitor: "c", text: "thames", later: 5 * time.Second}},
			[]Count{{"thames", 3}}, nil, 4, 0},
		{"again after the window: counted again",
			[]search{{visitor: "a", text: "thames"}, {visitor: "b", text: "thames"}, {visitor: "c", text: "thames"},
				{visitor: "a", text: "thames", later: 30 * time.Second}, {visitor: "b", text: "thames"}, {visitor: "c", text: "thames"}},
			[]Count{{"thames", 3}}, nil, 3, 0},
		{"one visitor's noise beside a real search",
			append(append(each("thames", false, "a", "b", "c"), search{visitor: "z", text: "noise 1"}),
				search{visitor: "z", text: "noise 2"}, search{visitor: "z", text: "noise 2"}),
			[]Count{{"thames", 3}}, nil, 6, 0},
		{"one visitor's flood of one-off queries: the first MaxVisitorTexts count, the rest in the totals only",
			append(each("thames", false, "a", "b", "c"), flood("z", 200)...),
			[]Count{{"thames", 3}}, nil, 203, 0},
		{"operators as typed, folded",
			append(each(`"forest path" -night`, false, "a", "b"), search{visitor: "c", text: ` "Forest  Path"   -NIGHT`}),
			[]Count{{`"forest path" -night`, 3}}, nil, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := testPrefix(t)
			c := testClient(t, prefix)
			clk := newClock(time.Now().Add(-5 * time.Second))
			o := Options{Window: 24 * time.Second, Top: 50, Prefix: prefix, Now: clk.now}
			r := newRecorder(t, c, o)
			for _, s := range tt.searches {
				if s.later > 0 {
					if err := r.Flush(t.Context()); err != nil {
						t.Fatal(err)
					}
					clk.add(s.later)
				}
				r.Record(s.visitor, s.text, s.zero)
			}
			if err := r.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			rep, err := Read(t.Context(), c, o, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Searches != tt.totals || rep.NoResults != tt.noResultsAll {
				t.Errorf("totals %d, %d with no results; want %d, %d", rep.Searches, rep.NoResults, tt.totals, tt.noResultsAll)
			}
			if !slices.Equal(rep.Top, tt.top) || !slices.Equal(rep.TopNoResults, tt.topNoResults) {
				t.Errorf("top %v, no results %v; want %v, %v", rep.Top, rep.TopNoResults, tt.top, tt.topNoResults)
			}
		})
	}
}

// TestFlushBatches: a flush of a full buffer of texts is calls of at most MaxBatch texts each,
// and every text arrives. Each call's time, as the client sees it (Redis's own and the round
// trip), is logged: docs/performance.md has the figure.
func TestFlushBatches(t *testing.T) {
	prefix := testPrefix(t)
	c := testClient(t, prefix)
	calls := &callTimes{}
	c.AddHook(calls)
	o := Options{Window: time.Hour, Top: DefaultBuffer, Prefix: prefix}
	r := newRecorder(t, c, o)
	for i := range DefaultBuffer {
		for v := range MinVisitors {
			r.Record(fmt.Sprint("visitor ", i, v), fmt.Sprintf("text %d %s", i, strings.Repeat("x", 64)), i%2 == 0)
		}
	}
	callsBefore, usecBefore := scriptStats(t, c)
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	callsAfter, usecAfter := scriptStats(t, c)
	if n := callsAfter - callsBefore; n > 0 {
		t.Logf("Redis's own time a script call, over the flush (other clients' calls included): %s",
			time.Duration((usecAfter-usecBefore)/n)*time.Microsecond)
	}
	want := (DefaultBuffer + MaxBatch - 1) / MaxBatch
	if len(calls.texts) != want {
		t.Errorf("%d calls, want %d of at most %d texts", len(calls.texts), want, MaxBatch)
	}
	for i, n := range calls.texts {
		if n > MaxBatch {
			t.Errorf("call %d: %d texts, more than %d", i, n, MaxBatch)
		}
	}
	slices.Sort(calls.took)
	if n := len(calls.took); n > 0 {
		t.Logf("%d texts in %d calls: per call median %s, max %s", DefaultBuffer, n, calls.took[n/2], calls.took[n-1])
	}
	rep, err := Read(t.Context(), c, o, 0, DefaultBuffer)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Top) != DefaultBuffer || len(rep.TopNoResults) != DefaultBuffer/2 || rep.Searches != MinVisitors*DefaultBuffer {
		t.Errorf("report of %d texts, %d with no results, %d searches; want %d, %d, %d",
			len(rep.Top), len(rep.TopNoResults), rep.Searches, DefaultBuffer, DefaultBuffer/2, MinVisitors*DefaultBuffer)
	}
}

// scriptStats are the script calls Redis has run and the microseconds they took, from its
// INFO commandstats.
func scriptStats(t *testing.T, c redis.UniversalClient) (calls, usec int64) {
	t.Helper()
	info, err := c.Info(t.Context(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || (name != "cmdstat_evalsha" && name != "cmdstat_eval") {
			continue
		}
		for field := range strings.SplitSeq(stats, ",") {
			k, v, _ := strings.Cut(field, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				calls += n
			case "usec":
				usec += n
			}
		}
	}
	return calls, usec
}

// callTimes is a client hook noting each script call's texts and time.
type callTimes struct {
	mu    sync.Mutex
	texts []int
	took  []time.Duration
}

func (h *callTimes) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *callTimes) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			// EVALSHA sha numkeys key... arg...: the texts are the quintuples after 6 arguments.
			args := cmd.Args()
			n := (len(args) - 3 - 5 - 6) / 5
			h.mu.Lock()
			if err == nil {
				h.texts = append(h.texts, n)
				h.took = append(h.took, time.Since(start))
			}
			h.mu.Unlock()
		}
		return err
	}
}

func (h *callTimes) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestRecordWhileFlushing: searches recorded from several goroutines while flushes run all arrive,
// each visitor's once per text.
func TestRecordWhileFlushing(t *testing.T) {
	prefix := testPrefix(t)
	c := testClient(t, prefix)
	o := Options{Window: time.Hour, Top: 100, Prefix: prefix}
	r := newRecorder(t, c, o)
	const visitors, texts = 4, 20
	var wg sync.WaitGroup
	for v := range visitors {
		wg.Go(func() {
			for i := range 3 * texts {
				r.Record(fmt.Sprint("visitor ", v), fmt.Sprint("text ", i%texts), false)
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			if err := r.Flush(t.Context()); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	rep, err := Read(t.Context(), c, o, 0, texts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Searches != visitors*3*texts || len(rep.Top) != texts {
		t.Fatalf("%d searches, %d texts listed; want %d, %d", rep.Searches, len(rep.Top), visitors*3*texts, texts)
	}
	for _, c := range rep.Top {
		if c.N != visitors {
			t.Errorf("%q counted %d, want once per visitor: %d", c.Text, c.N, visitors)
		}
	}
}
