package main

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"mediagw/config"
	"mediagw/querylog"
)

// openQueryLog returns the recorder of what people search for: shared in Redis when there is one
// and MEDIA_QUERY_LOG_TOP is not 0; otherwise it keeps no text, only the counters on /metrics.
// client is the process' Redis client (openRedis), nil without one. The returned function sends
// what is left; the client is the caller's to close, after it.
func openQueryLog(cfg config.Config, client redis.UniversalClient, log *zap.Logger, reg prometheus.Registerer) (*querylog.Recorder, func(), error) {
	log = log.Named("querylog")
	opt := querylog.Options{Window: cfg.QueryLogWindow, Top: cfg.QueryLogTop}
	if cfg.QueryLogTop <= 0 {
		client = nil
	}
	if client != nil {
		log.Info("query log shared in Redis", zap.Duration("window", opt.Window), zap.Int("top", opt.Top),
			zap.Int64("redis_max_bytes", opt.MaxRedisBytes()))
	}
	rec, err := querylog.New(client, opt, log)
	if err == nil {
		err = reg.Register(rec)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("query log: %w", err)
	}
	return rec, func() {
		if err := rec.Close(); err != nil {
			log.Warn("query log: last counts not sent", zap.Error(err))
		}
	}, nil
}
