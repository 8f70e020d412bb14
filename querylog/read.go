package querylog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Count is a text and how many searches it was counted in: a visitor's once a window on a replica.
type Count struct {
	Text string
	N    int64
}

// Report is what the log holds of the searches within a window, from every replica.
type Report struct {
	// From is the start of the oldest bucket read: the report covers From to now.
	From time.Time
	// Searches and NoResults are the searches recorded, and those of them that found nothing.
	Searches, NoResults int64
	// Top and TopNoResults are the most counted texts of those MinVisitors visitors or more
	// searched within the window (that found nothing, for TopNoResults), most first (ties by text).
	Top, TopNoResults []Count
	// Error and ErrorNoResults bound how far each count, of a text listed or not, is from the
	// true one, either way: the sum over the buckets of their least counter when full (a bucket
	// that never filled is exact).
	Error, ErrorNoResults int64
}

// Read sums the buckets of the last window (at most the options' Window) in one pipelined call,
// and keeps the n most counted texts of each kind that MinVisitors visitors searched.
func Read(ctx context.Context, client redis.UniversalClient, opt Options, window time.Duration, n int) (Report, error) {
	opt = opt.withDefaults()
	if window <= 0 || window > opt.Window {
		window = opt.Window
	}
	now := opt.Now()
	first, cur := opt.bucket(now.Add(-window)), opt.bucket(now)
	// A bucket older than the window's buckets may not be expired yet (one of slack).
	first = max(first, cur-Buckets)
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	type bucketCmds struct {
		all, zero     *redis.ZSliceCmd
		n             *redis.SliceCmd
		allBy, zeroBy *redis.MapStringStringCmd
	}
	var cmds []bucketCmds
	_, err := client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for b := first; b <= cur; b++ {
			k := opt.keys(b)
			cmds = append(cmds, bucketCmds{p.ZRangeWithScores(ctx, k[0], 0, -1), p.ZRangeWithScores(ctx, k[1], 0, -1),
				p.HMGet(ctx, k[2], "all", "zero"), p.HGetAll(ctx, k[3]), p.HGetAll(ctx, k[4])})
		}
		return nil
	})
	if err != nil {
		return Report{}, fmt.Errorf("querylog: read from Redis: %w", err)
	}
	rep := Report{From: time.Unix(first*int64(opt.bucketLen()/time.Second), 0)}
	all, zero := map[string]int64{}, map[string]int64{}
	allBy, zeroBy := map[string]visitors{}, map[string]visitors{}
	for _, c := range cmds {
		rep.Error += sum(all, c.all.Val(), opt.Top)
		rep.ErrorNoResults += sum(zero, c.zero.Val(), opt.Top)
		union(allBy, c.allBy.Val())
		union(zeroBy, c.zeroBy.Val())
		totals := c.n.Val()
		rep.Searches += toInt(totals[0])
		rep.NoResults += toInt(totals[1])
	}
	rep.Top, rep.TopNoResults = top(all, allBy, n), top(zero, zeroBy, n)
	return rep, nil
}

// union adds a bucket's visitors of each text to into's.
func union(into map[string]visitors, by map[string]string) {
	for text, tags := range by {
		v := into[text]
		v.addHex(tags)
		into[text] = v
	}
}

// sum adds a bucket's counters to into, and returns the bucket's error bound: its least counter
// when it holds k, otherwise 0.
func sum(into map[string]int64, zs []redis.Z, k int) int64 {
	for _, z := range zs {
		into[z.Member.(string)] += int64(z.Score)
	}
	if len(zs) < k {
		return 0
	}
	return int64(zs[0].Score)
}

func toInt(v any) int64 {
	s, _ := v.(string) // nil for a bucket with no hash
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// top is the n most counted texts of m that enough visitors searched.
func top(m map[string]int64, by map[string]visitors, n int) []Count {
	out := make([]Count, 0, len(m))
	for t, c := range m {
		if by[t].enough() {
			out = append(out, Count{t, c})
		}
	}
	slices.SortFunc(out, func(a, b Count) int {
		return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Text, b.Text))
	})
	return out[:min(n, len(out))]
}
