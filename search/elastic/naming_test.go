package elastic

import (
	"testing"
	"time"
)

func TestIndexName(t *testing.T) {
	tests := []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 11, 22, 6, 51, 12, 0, time.UTC), "media-20261122-065112-000"},
		{time.Date(2026, 11, 22, 6, 51, 12, 7_900_000, time.UTC), "media-20261122-065112-007"},
		{time.Date(2026, 11, 22, 7, 51, 12, 999_999_999, time.FixedZone("CET", 3600)), "media-20261122-065112-999"},
	}
	for _, tt := range tests {
		if got := indexName("media", tt.at); got != tt.want {
			t.Errorf("indexName(%v) = %q, want %q", tt.at, got, tt.want)
		}
	}
}
