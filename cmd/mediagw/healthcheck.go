package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"mediagw/config"
)

// healthcheck asks the server on this host whether it is ready (GET /readyz on MEDIA_ADDR), for
// container health checks in images that have no shell or HTTP client: `mediagw healthcheck`.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, _ func(public, admin net.Addr)) error {
	cfg, rest, err := config.Load("mediagw healthcheck", args, getenv, stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return err
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: /readyz answered %s", resp.Status)
	}
	return nil
}
