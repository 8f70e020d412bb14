package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mediagw/catalogue/gen"
	"mediagw/internal/servicetest"
	"mediagw/search/elastic"
	"mediagw/search/searchtest"
)

// mediabench runs one command with the given environment and returns its output and error.
func mediabench(t *testing.T, envs map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, func(k string) string { return envs[k] }, &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestUsage: every way of calling a command wrongly is an error that says so (wrapping errUsage
// where it is about the call), before anything runs.
func TestUsage(t *testing.T) {
	fixture := searchtest.FixturePath()
	tests := []struct {
		args  []string
		want  string
		usage bool // the error wraps errUsage
	}{
		{args: nil, want: "no command given", usage: true},
		{args: []string{"bench"}, want: `unknown command "bench"`, usage: true},
		{args: []string{"run", "x"}, want: "run takes flags only", usage: true},
		{args: []string{"run", "-mode", "soak"}, want: "-mode must be mix, forms, extras, suggest, probe, load or charts", usage: true},
		{args: []string{"run", "-mode", "extras", "-catalogue", fixture}, want: "measures gateways: give -gateway URL", usage: true},
		{args: []string{"run", "-mode", "charts", "-results", "x"}, want: "needs -results DIR and -charts DIR", usage: true},
		{args: []string{"run", "-mode", "mix", "-catalogue", fixture, "-metrics", "gateway"}, want: "want NAME=URL", usage: true},
		{args: []string{"run", "-mode", "mix"}, want: "-catalogue FILE is required", usage: true},
		{args: []string{"run", "-mode", "load"}, want: "-catalogue FILE is required", usage: true},
		{args: []string{"run", "-mode", "probe", "-direct=false"}, want: "nothing to measure", usage: true},
		{args: []string{"run", "-mode", "probe", "-gateway", "ftp://x"}, want: "want an http(s) URL", usage: true},
		{args: []string{"run", "-mode", "mix", "-catalogue", fixture, "-cpu", "x=0"}, want: "want NAME=PID", usage: true},
		{args: []string{"run", "-mode", "mix", "-catalogue", fixture, "-via", "http://127.0.0.1:9201"}, want: "want NAME=URL", usage: true},
		{args: []string{"run", "-mode", "mix", "-catalogue", fixture, "-via", "proxy=127.0.0.1:9201"}, want: "want NAME=URL, an http(s) URL", usage: true},
		{args: []string{"run", "-mode", "extras", "-catalogue", fixture, "-via", "proxy=http://127.0.0.1:9201"}, want: "-mode mix only", usage: true},
		{args: []string{"run", "-log-level", "loud"}, want: "MEDIA_LOG_LEVEL"},
		{args: []string{"passthrough", "x"}, want: "passthrough takes flags only", usage: true},
		{args: []string{"passthrough", "-limit"}, want: "-limit needs REDIS_URL", usage: true},
		{args: []string{"passthrough", "-listen", "127.0.0.1:99999"}, want: "passthrough: listen"},
	}
	for _, tt := range tests {
		_, _, err := mediabench(t, nil, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, errUsage) != tt.usage {
			t.Errorf("mediabench %q: %v, want an error saying %q (a usage error: %v)", tt.args, err, tt.want, tt.usage)
		}
	}
	if _, stderr, err := mediabench(t, nil, "run", "-h"); !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "-gateway") || !strings.Contains(stderr, "MEDIA_BACKEND") {
		t.Errorf("mediabench run -h: %v\n%s", err, stderr)
	}
}

// TestRunModes runs each mode of mediabench run briefly against the real engine, with an alias
// of the test's own loaded from a generated catalogue: the command completes and prints its
// table. The figures themselves are for `make bench`, not for tests.
func TestRunModes(t *testing.T) {
	var catalogue bytes.Buffer
	if err := gen.Generate(&catalogue, 200, 1); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.ndjson")
	if err := os.WriteFile(path, catalogue.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The alias's indices are dropped when the test ends.
	b := servicetest.OpenEngine(t, func(e servicetest.Engine, url, alias string) (*elastic.Backend, error) {
		return elastic.New(elastic.Config{URLs: []string{url}, Product: elastic.Product(e.Product), Alias: alias})
	})
	e := servicetest.TestEngine(t)
	envs := map[string]string{"MEDIA_BACKEND": e.Name, e.Var: servicetest.EngineURL(t), e.IndexVar(): b.Alias()}
	results, charts := t.TempDir(), t.TempDir()
	// load first: it leaves the alias on an index of the catalogue, which the others read; mix
	// saves its results, which charts draws last. The direct target is named after the engine.
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"-mode", "load", "-catalogue", path, "-batch", "50"}, []string{"load: 200 items from", "mediactl load"}},
		{[]string{"-mode", "mix", "-catalogue", path, "-duration", "300ms", "-warmup", "0s", "-rounds", "1", "-c", "1", "-distinct", "20",
			"-save", filepath.Join(results, "mix.json")}, []string{"mix: ", "target", e.Name}},
		{[]string{"-mode", "probe", "-n", "2"}, []string{e.Name}},
		{[]string{"-mode", "charts", "-results", results, "-charts", charts}, []string{"wrote " + filepath.Join(charts, "latency-mix.svg")}},
	}
	for _, tt := range tests {
		t.Run(tt.args[1], func(t *testing.T) {
			stdout, stderr, err := mediabench(t, envs, append([]string{"run"}, tt.args...)...)
			if err != nil {
				t.Fatalf("run %q: %v\n%s\n%s", tt.args, err, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("run %q: output lacks %q:\n%s", tt.args, w, stdout)
				}
			}
		})
	}
}
