package main

import (
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
