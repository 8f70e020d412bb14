package deploy

import (
	"bytes"
	"fmt"
	"go/version"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// No Docker engine is needed: the Dockerfile is parsed and linted with BuildKit's own frontend
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

// dockerfileStages are ../Dockerfile's stages: a builder and the final image.
func dockerfileStages(t *testing.T) []instructions.Stage {
	st := stages(t, "../Dockerfile")
	if len(st) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a builder and a final stage", len(st))
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

// pinned matches a fully qualified image name with a tag and a digest: the tag says what the
// image is, the digest which one, so a rebuild cannot change under the same tag.
var pinned = regexp.MustCompile(`^([a-z0-9.-]+\.[a-z]+)/([a-z0-9/._-]+):([a-zA-Z0-9._-]+)@sha256:[0-9a-f]{64}$`)

// goDirective is the go line of ../go.mod: the builder's Go must be at least that version, as
// the official image sets GOTOOLCHAIN=local and will not download a newer one.
func goDirective(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return v
		}
	}
	t.Fatal("../go.mod has no go line")
	return ""
}

func TestDockerfileBuilder(t *testing.T) {
	build := dockerfileStages(t)[0]
	m := pinned.FindStringSubmatch(build.BaseName)
	if m == nil || m[1] != "docker.io" || m[2] != "library/golang" {
		t.Fatalf("builder FROM %s, want docker.io/library/golang:TAG@sha256:DIGEST", build.BaseName)
	}
	goVersion, _, _ := strings.Cut(m[3], "-")
	if want := goDirective(t); version.Compare("go"+goVersion, "go"+want) < 0 {
		t.Errorf("builder FROM %s: Go %s is older than go.mod's go %s", build.BaseName, goVersion, want)
	}
	var compile string
	for _, run := range commands[*instructions.RunCommand](build) {
		line := strings.Join(run.CmdLine, " ")
		if strings.Contains(line, "go build") {
			compile = line
			if mounts := instructions.GetMounts(run); len(mounts) == 0 {
				t.Error("go build runs without a cache mount")
			}
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "-s -w`, "./cmd/mediagw", "./cmd/mediactl",
		// The context has no .git: the build's version and revision come from the build arguments.
		"-X mediagw/cmd/internal/buildinfo.version=${VERSION}", "-X mediagw/cmd/internal/buildinfo.revision=${REVISION}"} {
		if !strings.Contains(compile, want) {
			t.Errorf("go build line %q lacks %s", compile, want)
		}
	}
}

func TestDockerfileFinalImage(t *testing.T) {
	all := dockerfileStages(t)
	final := all[len(all)-1]
	if m := pinned.FindStringSubmatch(final.BaseName); m == nil || m[1] != "gcr.io" || m[2] != "distroless/static-debian12" || m[3] != "nonroot" {
		t.Errorf("final FROM %s, want gcr.io/distroless/static-debian12:nonroot@sha256:DIGEST", final.BaseName)
	}
	checkFinalImage(t, final)
	checkHealthcheck(t, final)
	checkLabels(t, final)
}

// checkFinalImage holds a final stage, of ../Dockerfile or of the offline image's Containerfile,
// to what the compose file, the Kubernetes manifests and the settings expect of the image.
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
	for _, key := range []string{"MEDIA_ADDR", "MEDIA_ADMIN_ADDR"} {
		addr := envs[key]
		if addr == "" {
			addr = known[key].def
		}
		if port := fmt.Sprint(portOf(t, addr)); !slices.Contains(exposed, port) {
			t.Errorf("%s %s: port %s is not in EXPOSE %v", key, addr, port, exposed)
		}
	}
}

// TestDockerignore: the build context keeps every source file the binaries compile or embed, and
// leaves out what only weighs it down.
func TestDockerignore(t *testing.T) {
	data, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := ignorefile.ReadAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	ignored := func(rel string) bool {
		m, err := pm.MatchesOrParentMatches(filepath.ToSlash(rel))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, p := range []string{".git", "var", "bin", "deploy/go.mod"} {
		if !ignored(p) {
			t.Errorf("%s is sent to the build", p)
		}
	}
	needed := []string{"go.mod", "go.sum"}
	root := ".."
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			// Other modules and data directories are not part of the build.
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "var" || rel == "bin" || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		needed = append(needed, rel)
		embeds, err := embedPatterns(p)
		if err != nil {
			return err
		}
		for _, e := range embeds {
			matches, _ := filepath.Glob(filepath.Join(filepath.Dir(p), e))
			if len(matches) == 0 {
				t.Errorf("%s embeds %s, which does not exist", rel, e)
			}
			for _, m := range matches {
				r, _ := filepath.Rel(root, m)
				needed = append(needed, r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range needed {
		if ignored(p) {
			t.Errorf("%s is needed by the build but .dockerignore leaves it out", p)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// embedPatterns returns the patterns of the //go:embed lines of a Go file.
func embedPatterns(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []string
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:embed "); ok {
			out = append(out, strings.Fields(rest)...)
		}
	}
	return out, nil
}
