package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/config"
)

// TestAdminPprof: the profiler answers only when asked for, its command line with the secrets
// passed as flags hidden; /metrics always; every admin answer has a write deadline.
func TestAdminPprof(t *testing.T) {
	args := os.Args
	t.Cleanup(func() { os.Args = args })
	os.Args = []string{"mediagw", "-redis-url", "redis://default:S3cretPW@redis:6379/0", "-engine-password=S3cretPW"}
	for _, tc := range []struct {
		pprof bool
		path  string
		want  int
	}{
		{false, "/metrics", http.StatusOK},
		{false, "/debug/pprof/", http.StatusNotFound},
		{false, "/debug/pprof/cmdline", http.StatusNotFound},
		{false, "/debug/pprof/heap", http.StatusNotFound},
		{true, "/metrics", http.StatusOK},
		{true, "/debug/pprof/", http.StatusOK},
		{true, "/debug/pprof/heap", http.StatusOK},
		{true, "/debug/pprof/cmdline", http.StatusOK},
	} {
		srv := adminServer(config.Config{Pprof: tc.pprof}, prometheus.NewRegistry(), zap.NewNop())
		if srv.WriteTimeout <= 0 {
			t.Errorf("the admin server has no write timeout")
		}
		rec := httptest.NewRecorder()
		srv.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.want {
			t.Errorf("pprof %v: GET %s: %d, want %d", tc.pprof, tc.path, rec.Code, tc.want)
		}
		if tc.path != "/debug/pprof/cmdline" || rec.Code != http.StatusOK {
			continue
		}
		body, _ := io.ReadAll(rec.Body)
		got := strings.Split(string(body), "\x00")
		want := []string{"mediagw", "-redis-url", "redis://default:xxxxx@redis:6379/0", "-engine-password=xxxxx"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("cmdline %q, want %q", got, want)
		}
	}
}
