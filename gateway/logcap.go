package gateway

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
)

// maxLoggedBytes caps every value a log line takes from a request, so that no request can make a
// line much longer than the line itself: a 100 KB path logs 256 bytes and its length.
const maxLoggedBytes = 256

// appendCapped adds key: v to fields, escaped by logSafe and cut to maxLoggedBytes and, when cut,
// key_bytes: v's whole length.
func appendCapped(fields []zap.Field, key, v string) []zap.Field {
	safe, whole := logSafe(v)
	if whole {
		return append(fields, zap.String(key, safe))
	}
	return append(fields, zap.String(key, safe), zap.Int(key+"_bytes", len(v)))
}

// logSafe is v as a log line may show it to a person: every rune that is not printable (controls,
// bidi overrides such as U+202E, line separators, zero-width ones) as \uXXXX, a byte that is not
// UTF-8 as \xNN and a backslash doubled, so the line reads as the bytes that came; cut to at most
// maxLoggedBytes, never inside a rune or an escape, whole false when cut.
func logSafe(v string) (safe string, whole bool) {
	plain := 0
	for plain < len(v) && v[plain] >= ' ' && v[plain] < utf8.RuneSelf && v[plain] != 0x7f && v[plain] != '\\' {
		plain++
	}
	switch {
	case plain == len(v) && len(v) <= maxLoggedBytes:
		return v, true
	case plain >= maxLoggedBytes:
		return v[:maxLoggedBytes], false
	}
	var b strings.Builder
	b.WriteString(v[:plain])
	for i := plain; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		piece := v[i : i+size]
		switch {
		case r == utf8.RuneError && size == 1:
			piece = fmt.Sprintf(`\x%02x`, v[i])
		case r == '\\':
			piece = `\\`
		case r > 0xffff && !strconv.IsPrint(r):
			piece = fmt.Sprintf(`\U%08x`, r)
		case !strconv.IsPrint(r):
			piece = fmt.Sprintf(`\u%04x`, r)
		}
		if b.Len()+len(piece) > maxLoggedBytes {
			return b.String(), false
		}
		b.WriteString(piece)
		i += size
	}
	return b.String(), true
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
