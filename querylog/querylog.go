// Package querylog records what people search for: the normalised text of each search the API
// answers and whether it found nothing, counted once per visitor and window, per time bucket in a
// top-k sketch (Space-Saving, Top counters a bucket) that every replica shares in Redis, held in
// process while Redis fails; a text is listed once MinVisitors visitors searched it. No visitor
// address, id or header is ever recorded: only the text, and for each text counted up to
// MinVisitors tags that a hash keyed by the replica's own secret made of its visitors.
package querylog

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"mediagw/search/text"
)

const (
	// DefaultWindow is how far back the log reaches.
	DefaultWindow = 24 * time.Hour
	// DefaultTop is how many queries each bucket counts (the sketch's k).
	DefaultTop = 1000
	// MaxTop bounds Top, and so the memory the log takes in Redis.
	MaxTop = 100000
	// MinWindow is the shortest window: buckets of a whole second at least.
	MinWindow = Buckets * time.Second
	// Buckets is how many buckets a window is cut into; one more, the current one, is being filled.
	Buckets = 24
	// MaxTextBytes bounds a recorded text: longer ones are cut at a character boundary.
	MaxTextBytes = 128
	// DefaultPrefix starts every key the log writes in Redis.
	DefaultPrefix = "mediagw:querylog:"
	// DefaultFlushInterval is how often a replica sends what it counted to Redis.
	DefaultFlushInterval = 2 * time.Second
	// DefaultBuffer is how many distinct texts a replica counts between two flushes; a new text
	// past it is dropped (and counted as dropped).
	DefaultBuffer = 5000
	// DefaultTimeout bounds one flush, and one read of the log.
	DefaultTimeout = 2 * time.Second
	// MinVisitors is how many visitors must have searched a text within the window for a report
	// to list it: a text only one or two visitors sent is noise to the log's readers.
	MinVisitors = 3
	// MaxBatch bounds the texts one Redis call of a flush takes, so that no call keeps Redis (the
	// rate limiter's too) busy for long: a flush of more is that many calls, one after the other.
	MaxBatch = 50
	// MaxVisitorTexts bounds the texts one visitor counts in a bucket (its searches of more count
	// in the totals only), so that one visitor's many one-off queries cannot push other people's
	// out of the sketch.
	MaxVisitorTexts = 30
	// DefaultSeen is how many (visitor, text) pairs a replica remembers, to count each once a
	// window; past it the oldest bucket's pairs are forgotten first.
	DefaultSeen = 100000
)

// Options configure a Recorder and a Read. Zero values take the defaults.
type Options struct {
	// Window is how far back the log reaches: Redis keeps each bucket that long after it ends.
	Window time.Duration
	// Top is the sketch's k: the queries each bucket counts, each kind (all, no results).
	Top int
	// Prefix starts every key (DefaultPrefix).
	Prefix string
	// FlushInterval, Buffer, Seen and Timeout: see the defaults.
	FlushInterval time.Duration
	Buffer        int
	Seen          int
	Timeout       time.Duration
	// Now is the clock buckets are cut by (time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.Top == 0 {
		o.Top = DefaultTop
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.Seen <= 0 {
		o.Seen = DefaultSeen
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Validate says what is wrong with the window and Top, naming them.
func (o Options) Validate() error {
	o = o.withDefaults()
	var errs []error
	if o.Window < MinWindow {
		errs = append(errs, fmt.Errorf("querylog: window %s, want at least %s", o.Window, MinWindow))
	}
	if o.Top < 1 || o.Top > MaxTop {
		errs = append(errs, fmt.Errorf("querylog: top %d, want 1 to %d", o.Top, MaxTop))
	}
	return errors.Join(errs...)
}

// bucketLen is the length of one bucket: the window over Buckets, in whole seconds.
func (o Options) bucketLen() time.Duration {
	return (o.Window / Buckets).Truncate(time.Second)
}

// bucket is the index of the bucket t falls in.
func (o Options) bucket(t time.Time) int64 {
	return t.Unix() / int64(o.bucketLen()/time.Second)
}

// keys are the bucket's sorted sets of all searches and of those with no results, its hash of
// totals, and the hashes of the visitors of each set's texts. Their hash tag is the bucket's, so
// one script can write all five on a Redis Cluster; the bucket length is in it, so replicas with
// different windows never mix their buckets.
func (o Options) keys(bucket int64) []string {
	base := fmt.Sprintf("%s{%d:%d}:", o.Prefix, o.bucketLen()/time.Second, bucket)
	return []string{base + "all", base + "zero", base + "n", base + "all:by", base + "zero:by"}
}

// MaxRedisBytes is the most memory the log can take in Redis with these options, whatever the
// traffic: Buckets+2 buckets live at once (the window's, the one being filled, and one expiring),
// each with 2 x Top members of at most MaxTextBytes, at maxMemberBytes each as Redis stores a
// large sorted set and the hash of their visitors beside it, and its hash of totals.
func (o Options) MaxRedisBytes() int64 {
	o = o.withDefaults()
	return (Buckets + 2) * (2*int64(o.Top)*maxMemberBytes + maxKeyBytes)
}

const (
	// maxMemberBytes is what one sorted set member of MaxTextBytes takes in Redis (its string,
	// skiplist node and dict entry, rounded up by the allocator), and its field of MinVisitors
	// tags in the hash of visitors, with room to spare: the test of MaxRedisBytes measures it
	// with MEMORY USAGE.
	maxMemberBytes = 640
	// maxKeyBytes is a bucket's five keys' own cost beyond their members.
	maxKeyBytes = 4096
)

// Normalize is the text a search is recorded under: folded by the one text analysis (text.Fold:
// no case, no accents), its runs of spaces made one, and cut to MaxTextBytes at a character
// boundary. "" means there is nothing to record.
func Normalize(q string) string {
	s := strings.Join(strings.Fields(text.Fold(q)), " ")
	if len(s) <= MaxTextBytes {
		return s
	}
	cut := MaxTextBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ")
}
