package deploy

import (
	"bytes"
	"cmp"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// No Docker engine is needed: the Containerfile is parsed and linted with BuildKit's own frontend
// packages, the ones `docker build` runs.

// stages parses a Dockerfile into its build stages, failing on a syntax error or any warning of
// BuildKit's linter (the checks `docker build --check` runs).
func stages(t *testing.T, file string) []instructions.Stage {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := parser.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, w := range res.Warnings {
		t.Errorf("%s: %s", file, w.Short)
	}
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, msg string, loc []parser.Range) {
		t.Errorf("%s line %v: %s: %s", file, loc, rule, msg)
	}})
	st, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return st
}

func commands[T any](s instructions.Stage) []T {
	var out []T
	for _, c := range s.Commands {
		if v, ok := c.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// checkFinalImage holds the image's final stage (image/Containerfile) to what the compose file, the Kubernetes manifests and the settings expect of the image.
func checkFinalImage(t *testing.T, final instructions.Stage) {
	t.Helper()
	users := commands[*instructions.UserCommand](final)
	if len(users) == 0 {
		t.Fatal("final stage sets no USER")
	}
	uid, _, _ := strings.Cut(users[len(users)-1].User, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("USER %q: want a numeric non-root user, which runAsNonRoot can verify", users[len(users)-1].User)
	}

	// Both binaries land where the compose file and the Job call them.
	installed := map[string]bool{}
	for _, cp := range commands[*instructions.CopyCommand](final) {
		for _, src := range cp.SourcePaths {
			dest := cp.DestPath
			if strings.HasSuffix(dest, "/") {
				dest = path.Join(dest, path.Base(src))
			}
			installed[dest] = true
		}
	}
	for _, bin := range []string{"/usr/local/bin/mediagw", "/usr/local/bin/mediactl"} {
		if !installed[bin] {
			t.Errorf("final image has no %s", bin)
		}
	}
	eps := commands[*instructions.EntrypointCommand](final)
	if len(eps) != 1 || eps[0].PrependShell || !installed[eps[0].CmdLine[0]] || path.Base(eps[0].CmdLine[0]) != "mediagw" {
		t.Errorf("ENTRYPOINT %v: want mediagw in exec form", eps)
	}

	// The ports it exposes are the ones its settings listen on.
	known := map[string]setting{}
	for _, s := range settings(t) {
		known[s.env] = s
	}
	envs := map[string]string{}
	for _, e := range commands[*instructions.EnvCommand](final) {
		for _, kv := range e.Env {
			if _, ok := known[kv.Key]; !ok {
				t.Errorf("ENV %s is not a setting of config/config.go", kv.Key)
			}
			envs[kv.Key] = kv.Value
		}
	}
	var exposed []string
	for _, e := range commands[*instructions.ExposeCommand](final) {
		exposed = append(exposed, e.Ports...)
	}
	addr := func(key string) string { return cmp.Or(envs[key], known[key].def) }
	if port := fmt.Sprint(portOf(t, addr("MEDIA_ADDR"))); !slices.Contains(exposed, port) {
		t.Errorf("MEDIA_ADDR %s: port %s is not in EXPOSE %v", addr("MEDIA_ADDR"), port, exposed)
	}
	// The admin listener (pprof) is on loopback and not exposed: `docker run -P` must not
	// publish it; a deployment that scrapes it says so (deploy/k8s's ConfigMap).
	admin := addr("MEDIA_ADMIN_ADDR")
	if host, _, err := net.SplitHostPort(admin); err != nil || !isLoopback(host) {
		t.Errorf("MEDIA_ADMIN_ADDR %s: want a loopback address in the image", admin)
	}
	if port := fmt.Sprint(portOf(t, admin)); slices.Contains(exposed, port) {
		t.Errorf("EXPOSE %v publishes the admin port %s", exposed, port)
	}
}

// isLoopback: host is a loopback IP or localhost.
func isLoopback(host string) bool {
	ip, err := netip.ParseAddr(host)
	return host == "localhost" || (err == nil && ip.IsLoopback())
}
