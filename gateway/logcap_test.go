package gateway

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func TestAppendCapped(t *testing.T) {
	long := strings.Repeat("a", maxLoggedBytes+1)
	// A three-byte rune across the cap: cut before it, never inside.
	runes := strings.Repeat("a", maxLoggedBytes-1) + "€"
	tests := []struct {
		name, v, want string
		whole         int
	}{
		{"short", "/qr/x.png", "/qr/x.png", 0},
		{"at the cap", long[:maxLoggedBytes], long[:maxLoggedBytes], 0},
		{"past the cap", long, long[:maxLoggedBytes], len(long)},
		{"rune across the cap", runes, runes[:maxLoggedBytes-1], len(runes)},
		{"accents kept", "/café/日本", "/café/日本", 0},
		{"right-to-left override", "/a\u202egnp.exe", `/a\u202egnp.exe`, 0},
		{"bidi isolates and marks", "\u2066x\u2069\u200f", `\u2066x\u2069\u200f`, 0},
		{"terminal escape", "/\x1b[31mred", `/\u001b[31mred`, 0},
		{"line breaks", "a\r\nb\u2028c\u0085", `a\u000d\u000ab\u2028c\u0085`, 0},
		{"zero-width and no-break spaces", "a\u200bb\u00a0c", `a\u200bb\u00a0c`, 0},
		{"tag character", "a\U000e0041", `a\U000e0041`, 0},
		{"not UTF-8", "a\xffb\xc3", `a\xffb\xc3`, 0},
		{"backslash, so an escape cannot be faked", `a\u202e`, `a\\u202e`, 0},
		{"escape across the cap", long[:maxLoggedBytes-3] + "\u202e", long[:maxLoggedBytes-3], maxLoggedBytes},
		{"plain past the cap after an escape", "\x00" + long, `\u0000` + long[:maxLoggedBytes-6], len(long) + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := zapcore.NewMapObjectEncoder()
			for _, f := range appendCapped(nil, "path", tt.v) {
				f.AddTo(enc)
			}
			if got := enc.Fields["path"]; got != tt.want {
				t.Errorf("path %q, want %q", got, tt.want)
			}
			got, ok := enc.Fields["path_bytes"]
			if tt.whole == 0 && ok || tt.whole != 0 && got != int64(tt.whole) {
				t.Errorf("path_bytes %v, want %d", got, tt.whole)
			}
		})
	}
}

// FuzzLogSafe: whatever a request sends, what a log line shows of it is valid UTF-8, printable
// rune by rune, and within the cap.
func FuzzLogSafe(f *testing.F) {
	for _, s := range []string{"/items", "/a\u202egnp.exe", "\x1b[2J", "a\\b", "\xff\xfe", strings.Repeat("é", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		safe, whole := logSafe(v)
		if len(safe) > maxLoggedBytes || !utf8.ValidString(safe) || whole && len(v) > maxLoggedBytes {
			t.Fatalf("%q logged as %q (whole %v)", v, safe, whole)
		}
		for _, r := range safe {
			if !strconv.IsPrint(r) {
				t.Fatalf("%q logged as %q: %U", v, safe, r)
			}
		}
	})
}

func TestErrorSampler(t *testing.T) {
	now := time.Unix(1000, 0)
	s := newErrorSampler(func() time.Time { return now })
	written, skippedSum := 0, 0
	for range 1000 {
		if ok, skipped := s.keep("", http.StatusNotFound); ok {
			written++
			skippedSum += skipped
		}
	}
	if want := sampleFirst + (1000-sampleFirst)/sampleThereafter; written != want {
		t.Errorf("%d of 1,000 404s in one second written, want %d", written, want)
	}
	if ok, _ := s.keep("items", http.StatusBadRequest); !ok {
		t.Error("another resource and status is sampled with the 404s")
	}
	if ok, _ := s.keep("", http.StatusOK); !ok {
		t.Error("a success was sampled")
	}
	now = now.Add(time.Second)
	ok, skipped := s.keep("", http.StatusNotFound)
	if !ok || skippedSum+skipped+written != 1000 {
		t.Errorf("next second: written %v, %d + %d left out + %d written, want every one of 1,000 accounted for", ok, skippedSum, skipped, written)
	}
}

// syncBuffer is a log destination several requests write to.
type syncBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

// TestHostileRequestsLogLittle: a flood of 404s with 100 KB paths writes a bounded log.
func TestHostileRequestsLogLittle(t *testing.T) {
	var out syncBuffer
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&out), zapcore.InfoLevel))
	cfg := DefaultConfig()
	cfg.PublicURL = "https://media.example.org"
	g, err := New(cfg, listBackend{}, fixedLimiter{true}, logger)
	if err != nil {
		t.Fatal(err)
	}
	path := "/" + strings.Repeat("%41", 100_000/3)
	const n = 500
	start := time.Now()
	for i := range n {
		method := []string{http.MethodGet, http.MethodPost, http.MethodDelete, "PROPFIND"}[i%4]
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, httptest.NewRequest(method, path+"?"+strings.Repeat("q", 100_000), nil))
		if rec.Code >= 500 {
			t.Fatalf("%s: %d", method, rec.Code)
		}
	}
	lines := strings.Count(out.String(), "\n")
	// The sampler lets sampleFirst lines a second through per method: a loaded machine that takes
	// several seconds for the flood gets that many seconds' worth.
	seconds := int(time.Since(start)/time.Second) + 1
	if lines == 0 || lines > 4*(sampleFirst*seconds+n/sampleThereafter+1) {
		t.Errorf("%d lines for %d hostile requests", lines, n)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		if len(line) > 2<<10 {
			t.Errorf("a line of %d bytes: %.300s", len(line), line)
		}
		// The path as decoded: 33,333 A's after the slash.
		if !strings.Contains(line, `"path_bytes":33334`) {
			t.Errorf("a line without the path's whole length: %.300s", line)
		}
	}
}
