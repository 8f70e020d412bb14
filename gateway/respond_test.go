package gateway

import (
	"strings"
	"testing"
	"time"

	"mediagw/ratelimit"
)

// acceptsGzip is whether Accept-Encoding accepts gzip, whatever else it prefers.
func acceptsGzip(headers []string) bool { return parseAcceptEncoding(headers)[encGzip] > 0 }

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"":                      false,
		"gzip":                  true,
		"GZIP":                  true,
		"br, gzip;q=0.5":        true,
		"deflate, br":           false,
		"gzip;q=0":              false,
		"gzip; q=0.0, *":        false,
		"*":                     true,
		"*;q=0":                 false,
		"identity, x-gzip":      true,
		"br;q=1.0, gzip;q=0.01": true,
	} {
		if got := acceptsGzip([]string{h}); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestETagMatches(t *testing.T) {
	etag := `W/"abc"`
	for h, want := range map[string]bool{
		`W/"abc"`:      true,
		`"abc"`:        true,
		`"x", W/"abc"`: true,
		`*`:            true,
		`"abcd"`:       false,
		``:             false,
		`W/"ab", "c"`:  false,
	} {
		if got := etagMatches([]string{h}, etag); got != want {
			t.Errorf("etagMatches(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := DefaultConfig()
	good.PublicURL = "https://media.example.org"
	if err := good.Validate(); err != nil {
		t.Fatalf("default config with a public URL: %v", err)
	}
	bad := Config{
		PublicURL:      "media.example.org",
		BasePath:       "media",
		MaxAge:         MaxAge{Items: -time.Second},
		RatePolicy:     ratelimit.Policy{Limit: 0, Window: 0},
		RequestTimeout: 0,
		GzipMinSize:    -1,
	}
	err := bad.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{"public URL", "base path", "max-age of items", "rate limit", "rate window", "request timeout", "limiter timeout", "gzip min size"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q spans several lines", err)
	}
}

// FuzzAcceptsGzip holds Accept-Encoding parsing to the properties send relies on.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"", "gzip", "gzip;q=0", "GZIP; Q=0.000", "br;q=1.0, gzip;q=0.01", "*", "*;q=0",
		"*, gzip;q=0", "identity, x-gzip", "gzip;q=nan", "gzip;q=-1, *", "gzip;;q=1;q=0", "deflate, br"} {
		f.Add(s)
	}
	for _, refusal := range []string{"gzip;q=0", "gzip; q=0.0, *", "GZIP;Q=0.000", "x-gzip;q=0"} {
		if acceptsGzip([]string{refusal}) {
			f.Fatalf("%q accepted gzip", refusal)
		}
	}
	f.Fuzz(func(t *testing.T, h string) {
		got := acceptsGzip([]string{h})
		// Several header lines are one comma-separated list (RFC 9110, 5.3).
		if acceptsGzip(strings.Split(h, ",")) != got {
			t.Fatalf("%q: split into lines it answers %v", h, !got)
		}
		if got && !strings.Contains(strings.ToLower(h), "gzip") && !strings.Contains(h, "*") {
			t.Fatalf("%q accepted gzip without naming it or *", h)
		}
		// The last word on gzip holds: a refusal refuses, whatever came before.
		for _, lines := range [][]string{{h, "gzip;q=0"}, {h + ",gzip; q=0.000"}, {h, "x-gzip;q=0"}} {
			if acceptsGzip(lines) {
				t.Fatalf("%q accepted gzip", lines)
			}
		}
		if !acceptsGzip([]string{h, "gzip"}) {
			t.Fatalf("%q then gzip refused gzip", h)
		}
		// The coding sent is one the client accepts at the highest q-value it gives any of them.
		a := parseAcceptEncoding([]string{h})
		best := a.best()
		for e := encGzip; e < numEncodings; e++ {
			if a[e] > a[best] || (best == identity && a[e] > 0) {
				t.Fatalf("%q: sends %s though %s has q=%v", h, best, e, a[e])
			}
		}
	})
}

// FuzzETagMatches: If-None-Match matches exactly when it lists the ETag (weak or strong) or *.
func FuzzETagMatches(f *testing.F) {
	for _, s := range []struct{ header, body string }{
		{`W/"abc"`, "x"}, {`*`, ""}, {`"x", W/"abc"`, "{}"}, {``, "body"}, {`W/"ab", "c"`, "c"},
		{weakETag([]byte("same")), "same"}, {strings.TrimPrefix(weakETag([]byte("same")), "W/"), "same"},
	} {
		f.Add(s.header, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		etag := weakETag(body)
		strong := strings.TrimPrefix(etag, "W/")
		for _, lines := range [][]string{{header + ", " + etag}, {etag + "," + header}, {header, strong}, {" " + strong + " "}} {
			if !etagMatches(lines, etag) {
				t.Fatalf("%q lists %s but does not match", lines, etag)
			}
		}
		if etagMatches([]string{header}, etag) && !strings.Contains(header, strong) && !strings.Contains(header, "*") {
			t.Fatalf("%q matched %s without listing it or *", header, etag)
		}
	})
}
