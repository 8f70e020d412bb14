package main

import (
	"go.uber.org/zap"

	"mediagw/cmd/internal/memlimit"
	"mediagw/config"
)

// defaultCacheBytes bounds the cache when there is no memory limit to derive the bound from.
const defaultCacheBytes = 64 << 20

// cacheBytes is the cache's bound: MEDIA_CACHE_MAX_MB, or an eighth of the Go memory limit, or
// defaultCacheBytes without one. An eighth leaves the rest for what a limit must also hold: the
// requests in progress (bounded by MEDIA_MAX_INFLIGHT), the index's own caches, the garbage the
// collector has not reached yet.
func cacheBytes(cfg config.Config, lim memlimit.Limit) int64 {
	switch {
	case cfg.CacheMaxMB > 0:
		return int64(cfg.CacheMaxMB) << 20
	case lim.Bytes > 0:
		return lim.Bytes / 8
	}
	return defaultCacheBytes
}

// applyMemoryLimit gives the Go runtime a memory limit from the cgroup unless GOMEMLIMIT set one,
// and logs the limit in force.
func applyMemoryLimit(getenv func(string) string, log *zap.Logger) memlimit.Limit {
	lim, err := memlimit.Apply(getenv, memlimit.Root, memlimit.Self)
	if err != nil {
		log.Warn("no memory limit read from the cgroup; the Go runtime has none unless GOMEMLIMIT sets one", zap.Error(err))
	}
	return lim
}
