package main

import (
	"runtime/debug"
	"testing"

	"mediagw/cmd/internal/memlimit"
	"mediagw/config"
)

func TestCacheBytes(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name  string
		setMB int
		limit int64
		want  int64
	}{
		{"set", 32, 230 * mib, 32 * mib},
		{"an eighth of the memory limit", 0, 230 * mib, 230 * mib / 8},
		{"no memory limit", 0, 0, 64 * mib},
		{"set, no memory limit", 100, 0, 100 * mib},
	}
	for _, tt := range tests {
		if got := cacheBytes(config.Config{CacheMaxMB: tt.setMB}, memlimit.Limit{Bytes: tt.limit}); got != tt.want {
			t.Errorf("%s: cacheBytes = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct {
		name  string
		gogc  string // GOGC as the runtime read it at start-up ("" for unset)
		limit int64
		want  int
	}{
		{"a limit, GOGC unset", "", 230 << 20, limitedGCPercent},
		{"a limit, GOGC set", "150", 230 << 20, 150},
		{"no limit", "", 0, 100},
		{"no limit, GOGC set", "150", 0, 150},
	}
	for _, tt := range tests {
		start := 100
		if tt.gogc != "" {
			start = 150
		}
		debug.SetGCPercent(start)
		getenv := func(k string) string {
			if k == "GOGC" {
				return tt.gogc
			}
			return ""
		}
		if got := gcPercent(getenv, memlimit.Limit{Bytes: tt.limit}); got != tt.want {
			t.Errorf("%s: gcPercent = %d, want %d", tt.name, got, tt.want)
		}
		if got := debug.SetGCPercent(start); got != tt.want {
			t.Errorf("%s: the runtime's percent is %d, want %d", tt.name, got, tt.want)
		}
	}
}
