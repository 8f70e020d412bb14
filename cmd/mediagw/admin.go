package main

import (
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"mediagw/config"
)

// adminWriteTimeout bounds an admin answer: above the longest profile asked for by default (30 s
// of CPU), and a client that stops reading lets go of its goroutine then.
const adminWriteTimeout = time.Minute

// adminServer serves /metrics and, when cfg asks for it, Go's profiler.
func adminServer(cfg config.Config, reg *prometheus.Registry, log *zap.Logger) *http.Server {
	return &http.Server{Handler: adminMux(reg, cfg.Pprof), ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout: adminWriteTimeout, ErrorLog: zap.NewStdLog(log.Named("admin"))}
}

func adminMux(reg *prometheus.Registry, withPprof bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	if !withPprof {
		return mux
	}
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", redactedCmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// redactedCmdline is pprof.Cmdline with the secrets a command line may hold (-redis-url's
// password, -engine-password) hidden.
func redactedCmdline(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(strings.Join(config.RedactArgs(os.Args), "\x00"))) //nolint:errcheck // the client is gone
}
