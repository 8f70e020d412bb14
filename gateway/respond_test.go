package gateway

import (
	"strings"
	"testing"
	"time"

	"mediagw/ratelimit"
)

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
