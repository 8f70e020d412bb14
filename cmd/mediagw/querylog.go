package main

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"mediagw/config"
	"mediagw/querylog"
	"mediagw/ratelimit"
)

// openQueryLog returns the recorder of what people search for: shared in Redis when there is one
// and MEDIA_QUERY_LOG_TOP is not 0; otherwise it keeps no text, only the counters on /metrics.
// The returned function sends what is left and closes its Redis client.
func openQueryLog(cfg config.Config, log *zap.Logger, reg prometheus.Registerer) (*querylog.Recorder, func(), error) {
	log = log.Named("querylog")
	opt := querylog.Options{Window: cfg.QueryLogWindow, Top: cfg.QueryLogTop}
	var client redis.UniversalClient
	if cfg.RedisURL != "" && cfg.QueryLogTop > 0 {
		c, err := ratelimit.NewClientFromURL(cfg.RedisURL)
		if err != nil {
			return nil, nil, fmt.Errorf("query log: redis: %w", err)
		}
		client = c
		log.Info("query log shared in Redis", zap.Duration("window", opt.Window), zap.Int("top", opt.Top),
			zap.Int64("redis_max_bytes", opt.MaxRedisBytes()))
	}
	rec, err := querylog.New(client, opt, log)
	if err == nil {
		err = reg.Register(rec)
	}
	if err != nil {
		if client != nil {
			client.Close()
		}
		return nil, nil, fmt.Errorf("query log: %w", err)
	}
	return rec, func() {
		if err := rec.Close(); err != nil {
			log.Warn("query log: last counts not sent", zap.Error(err))
		}
		if client != nil {
			client.Close()
		}
	}, nil
}
