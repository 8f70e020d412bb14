package gateway

import (
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
)

// maxLoggedBytes caps every value a log line takes from a request, so that no request can make a
// line much longer than the line itself: a 100 KB path logs 256 bytes and its length.
const maxLoggedBytes = 256

// appendCapped adds key: v to fields, v cut to maxLoggedBytes (on a rune boundary) and, when cut,
// key_bytes: its whole length.
func appendCapped(fields []zap.Field, key, v string) []zap.Field {
	if len(v) <= maxLoggedBytes {
		return append(fields, zap.String(key, v))
	}
	cut := maxLoggedBytes
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return append(fields, zap.String(key, v[:cut]), zap.Int(key+"_bytes", len(v)))
}

// Sampling of the log lines of failed requests, per resource and status: a flood of 404s or 400s
// writes at most sampleFirst lines per second and one in sampleThereafter past them.
const (
	sampleFirst      = 10
	sampleThereafter = 100
)

// errorSampler decides which failed requests' lines are written. A line written after some were
// left out says how many (sampled_out), so the log still counts every request.
type errorSampler struct {
	now func() time.Time

	mu   sync.Mutex
	keys map[sampleKey]*sampleCount
}

// sampleKey is a route's resource and a status: a bounded set, fixed by the routes.
type sampleKey struct {
	resource string
	status   int
}

type sampleCount struct {
	second  int64 // the Unix second n counts in
	n       int
	skipped int
}

func newErrorSampler(now func() time.Time) *errorSampler {
	return &errorSampler{now: now, keys: make(map[sampleKey]*sampleCount)}
}

// keep says whether the line of a request for resource that got status is written, and how many
// of its kind were left out since the last one written.
func (s *errorSampler) keep(resource string, status int) (ok bool, skipped int) {
	if status < 400 {
		return true, 0
	}
	sec := s.now().Unix()
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sampleKey{resource, status}
	c := s.keys[k]
	if c == nil {
		c = &sampleCount{}
		s.keys[k] = c
	}
	if c.second != sec {
		c.second, c.n = sec, 0
	}
	c.n++
	if c.n > sampleFirst && (c.n-sampleFirst)%sampleThereafter != 0 {
		c.skipped++
		return false, 0
	}
	skipped, c.skipped = c.skipped, 0
	return true, skipped
}
