package main

import (
	"runtime/debug"

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

// limitedGCPercent is the collector's target growth of the heap (GOGC) while a memory limit is in
// force and GOGC is not set: the limit bounds the heap, so the collector need not run each time the
// live heap doubles: at the default 100 it took a large share of the gateway's CPU under the
// bench's mix, and more than 200 saves no more of it. Not more: the heap may grow by that much of
// what stays live too (the did-you-mean's dictionary), and the garbage of the costliest searches
// (the embedded index's Levenshtein automatons) fills it, which brought the attack suite's peak
// RSS on the embedded index close to the pod's limit (docs/performance.md).
const limitedGCPercent = 200

// applyMemoryLimit gives the Go runtime a memory limit from the cgroup unless GOMEMLIMIT set one,
// and with a limit, the collector limitedGCPercent unless GOGC sets one. It logs why there is no
// limit, and returns the limit in force and the collector's percent.
func applyMemoryLimit(getenv func(string) string, log *zap.Logger) (memlimit.Limit, int) {
	lim, err := memlimit.Apply(getenv, memlimit.Root, memlimit.Self)
	if err != nil {
		log.Warn("no memory limit read from the cgroup; the Go runtime has none unless GOMEMLIMIT sets one", zap.Error(err))
	}
	return lim, gcPercent(getenv, lim)
}

// gcPercent sets the collector's percent for lim (limitedGCPercent with a limit, unless GOGC is
// set) and returns the percent in force.
func gcPercent(getenv func(string) string, lim memlimit.Limit) int {
	if lim.Bytes > 0 && getenv("GOGC") == "" {
		debug.SetGCPercent(limitedGCPercent)
	}
	pct := debug.SetGCPercent(-1)
	debug.SetGCPercent(pct)
	return pct
}
