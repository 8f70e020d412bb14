package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mediagw/catalogue"
	"mediagw/catalogue/gen"
	"mediagw/internal/servicetest"
	"mediagw/search/elastic"
)

// TestUsage: every way of calling a command wrongly is an error that says so (wrapping errUsage
// where it is about the call, naming the setting where it is about a value), before anything runs.
func TestUsage(t *testing.T) {
	tests := []struct {
		args  []string
		envs  map[string]string
		want  string
		usage bool // the error wraps errUsage
	}{
		{args: nil, want: "no command given", usage: true},
		{args: []string{"frobnicate"}, want: `unknown command "frobnicate"`, usage: true},
		{args: []string{"gen", "-n", "5", "-o", "x"}, want: "-n must be from 10", usage: true},
		{args: []string{"gen", "-n", "10000001", "-o", "x"}, want: "-n must be from 10", usage: true},
		{args: []string{"gen", "-n", "100"}, want: "-o FILE is required", usage: true},
		{args: []string{"gen", "-o", "x", "extra"}, want: "gen takes no arguments", usage: true},
		{args: []string{"validate"}, want: "want exactly one catalogue file, got 0", usage: true},
		{args: []string{"validate", "a", "b"}, want: "got 2 arguments", usage: true},
		{args: []string{"load"}, want: "want exactly one catalogue file", usage: true},
		{args: []string{"status", "x"}, want: "status takes no arguments", usage: true},
		{args: []string{"rollback", "x"}, want: "rollback takes no arguments", usage: true},
		{args: []string{"reindex", "x"}, want: "reindex takes no arguments", usage: true},
		{args: []string{"reindex", "-mapping", filepath.Join(t.TempDir(), "missing.json")}, want: "read mapping file"},
		{args: []string{"reindex", "-rate", "-5"}, want: "-rate -5: want items per second", usage: true},
		{args: []string{"queries", "x"}, want: "queries takes no arguments", usage: true},
		{args: []string{"queries", "-n", "0"}, want: "-n 0, want at least 1", usage: true},
		{args: []string{"queries"}, want: "no query log to read: it is kept in Redis (REDIS_URL)"},
		{args: []string{"queries"}, envs: map[string]string{"REDIS_URL": "redis://127.0.0.1:1", "MEDIA_QUERY_LOG_TOP": "0"},
			want: "only the counts on /metrics"},
		{args: []string{"status", "-rate-limit", "0"}, want: "MEDIA_RATE_LIMIT"},
		{args: []string{"status"}, envs: map[string]string{"MEDIA_BACKEND": "elastic"}, want: "MEDIA_BACKEND"},
		{args: []string{"status"}, envs: map[string]string{"MEDIA_KEEP_INDICES": "-1"}, want: "MEDIA_KEEP_INDICES"},
		{args: []string{"load", "-no-such-flag", "f"}, want: "flag provided but not defined"},
		{args: []string{"validate", filepath.Join(t.TempDir(), "missing.ndjson")}, want: "open catalogue"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			envs := map[string]string{"MEDIA_INDEX_DIR": filepath.Join(t.TempDir(), "index")}
			for k, v := range tt.envs {
				envs[k] = v
			}
			_, _, err := mediactl(t, envs, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if errors.Is(err, errUsage) != tt.usage {
				t.Errorf("errors.Is(%v, errUsage) = %v, want %v", err, !tt.usage, tt.usage)
			}
		})
	}
}

// TestHelp: help prints the usage and succeeds; -h of a command prints its flags and the settings.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "help"} {
		if _, stderr, err := mediactl(t, nil, arg); err != nil || !strings.Contains(stderr, "commands:") {
			t.Errorf("mediactl %s: %v\n%s", arg, err, stderr)
		}
	}
	_, stderr, err := mediactl(t, nil, "load", "-h")
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "-rejects") || !strings.Contains(stderr, "MEDIA_BACKEND") {
		t.Errorf("mediactl load -h: %v\n%s", err, stderr)
	}
}

// TestGen: the file is what gen.Generate makes for that n and seed, whichever way it is written,
// and nothing but the file, readable by others, is left beside it.
func TestGen(t *testing.T) {
	var want bytes.Buffer
	if err := gen.Generate(&want, 50, 3); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name string
		out  string
		read func(t *testing.T, stdout string) []byte
	}{
		{"standard output", "-", func(_ *testing.T, stdout string) []byte { return []byte(stdout) }},
		{"plain file", filepath.Join(dir, "sub", "c.ndjson"), func(t *testing.T, _ string) []byte { return readFile(t, filepath.Join(dir, "sub", "c.ndjson")) }},
		{"gzip file", filepath.Join(dir, "c.ndjson.gz"), func(t *testing.T, _ string) []byte {
			path := filepath.Join(dir, "c.ndjson.gz")
			if raw := readFile(t, path); !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
				t.Errorf("%s is not gzip", path)
			}
			return readCatalogue(t, path)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := mediactl(t, nil, "gen", "-n", "50", "-seed", "3", "-o", tt.out)
			if err != nil {
				t.Fatalf("gen: %v\n%s", err, stderr)
			}
			if got := tt.read(t, stdout); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("gen wrote %d bytes, want gen.Generate's %d", len(got), want.Len())
			}
		})
	}
	for _, sub := range []string{dir, filepath.Join(dir, "sub")} {
		entries, err := os.ReadDir(sub)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("temporary file %s left in %s", e.Name(), sub)
			}
			// Readable by others, as a file os.Create makes (under the usual umask 022).
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Mode().Perm() != 0o644 {
				t.Errorf("%s has mode %v, want -rw-r--r--", e.Name(), info.Mode().Perm())
			}
		}
	}
}

// readCatalogue is the content of a catalogue file, uncompressed when it is gzip (as mediactl
// reads it).
func readCatalogue(t *testing.T, path string) []byte {
	t.Helper()
	rc, err := catalogue.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValidate: a good file passes with its summary; a bad one fails naming each bad line, sets
// them aside with -rejects and reports keys outside the format.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := `{"id":"a","type":"photo","title":"A","colour":"red"}` + "\n"
	bad := `{"id":"b","type":"photo"}` + "\n"
	var licensed string
	for i, r := range []string{`"CC BY 4.0"`, `"Creative Commons Attribution"`, `"© the artist"`, `"CC"`, `"CC"`, `"creativeCommon"`, `"Creative Commons"`, `null`} {
		licensed += fmt.Sprintf(`{"id":"l%d","type":"photo","title":"L","rights":%s}`+"\n", i, r)
	}
	long := `{"id":"c","type":"photo","title":"C","rights":"` + strings.Repeat("x", 70000) + `"}` + "\n"
	tests := []struct {
		name       string
		lines      string
		flags      []string
		rejects    bool
		wantErr    string
		wantOut    []string
		wantStderr string
		wantReject string
	}{
		{name: "good", lines: good, wantOut: []string{"read 1 lines: 1 accepted, 0 rejected", `key "colour" is not in the format: left out of the index (1 lines)`}},
		{name: "bad", lines: good + bad, wantErr: "1 of 2 lines break the format", wantOut: []string{"read 2 lines: 1 accepted, 1 rejected"}, wantStderr: "line 2: "},
		{name: "bad with rejects", lines: bad + good, rejects: true, wantErr: "1 of 2 lines break the format",
			wantOut: []string{"rejected lines written unchanged to"}, wantStderr: "line 1: ", wantReject: bad},
		{name: "licences", lines: licensed, wantOut: []string{
			"licences read from the rights statements: by 2, in-copyright 1, unknown 5 (1 without a statement)\n",
			"most items first:\n       2  \"CC\"\n       1  \"Creative Commons\"\n       1  \"creativeCommon\"\n"}},
		{name: "over the line bound", lines: good + long + bad + strings.Replace(good, `"a"`, `"d"`, 1), flags: []string{"-catalogue-max-line", "65536"}, rejects: true,
			wantErr: "2 of 4 lines break the format", wantOut: []string{"read 4 lines: 2 accepted, 2 rejected",
				"1 lines over the line bound of 65536 bytes (-catalogue-max-line) were refused unread, in no reject file: line 2"},
			wantStderr: "line 2: longer than 65536 bytes", wantReject: bad},
		{name: "at the default bound", lines: long, wantOut: []string{"read 1 lines: 1 accepted, 0 rejected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".ndjson")
			if err := os.WriteFile(path, []byte(tt.lines), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"validate"}, tt.flags...)
			rejects := filepath.Join(dir, tt.name+".rejects")
			if tt.rejects {
				args = append(args, "-rejects", rejects)
			}
			args = append(args, path)
			stdout, stderr, err := mediactl(t, nil, args...)
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantStderr, stderr)
			}
			if tt.rejects {
				if got := string(readFile(t, rejects)); got != tt.wantReject {
					t.Errorf("reject file %q, want %q", got, tt.wantReject)
				}
			}
		})
	}
}

// testCatalogue writes a generated catalogue of n items and returns its path.
func testCatalogue(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.ndjson")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(gen.Generate(f, n, 1), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// openSearchEnv is the settings of the real engine under test (servicetest.TestEngine) under an
// alias of the test's own, whose indices are removed when the test ends.
func openSearchEnv(t *testing.T) map[string]string {
	b := servicetest.OpenEngine(t, func(e servicetest.Engine, url, alias string) (*elastic.Backend, error) {
		return elastic.New(elastic.Config{URLs: []string{url}, Product: elastic.Product(e.Product), Alias: alias})
	})
	e := servicetest.TestEngine(t)
	return map[string]string{"MEDIA_BACKEND": e.Name, e.Var: servicetest.EngineURL(t), e.IndexVar(): b.Alias()}
}

// TestAdminCommands runs load, status and rollback on each backend as operators do, through the
// settings alone: the embedded index in a directory of the test's own, and OpenSearch (the real
// service) under an alias of the test's own.
func TestAdminCommands(t *testing.T) {
	path := testCatalogue(t, 120)
	half := filepath.Join(t.TempDir(), "half.ndjson")
	lines := bytes.SplitAfter(readFile(t, path), []byte("\n"))
	if err := os.WriteFile(half, bytes.Join(lines[:60], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.ndjson")
	bad := filepath.Join(t.TempDir(), "bad.ndjson")
	if err := errors.Join(os.WriteFile(empty, nil, 0o644), os.WriteFile(bad, []byte("{\"bad\":1}\nnot json\n"), 0o644)); err != nil {
		t.Fatal(err)
	}
	rejects := filepath.Join(t.TempDir(), "rejects.ndjson")
	backends := []struct {
		name string
		envs func(t *testing.T) map[string]string
	}{
		{"embedded", func(t *testing.T) map[string]string {
			return map[string]string{"MEDIA_BACKEND": "embedded", "MEDIA_INDEX_DIR": filepath.Join(t.TempDir(), "index")}
		}},
		{"opensearch", func(t *testing.T) map[string]string {
			return openSearchEnv(t)
		}},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			envs := be.envs(t)
			envs["MEDIA_KEEP_INDICES"] = "1"
			steps := []struct {
				args    []string
				wantErr string
				want    []string
				// count is how often a string must appear in the output.
				count map[string]int
			}{
				{args: []string{"status"}, want: []string{"no index yet"}},
				{args: []string{"rollback"}, wantErr: "rollback"},
				{args: []string{"load", path}, want: []string{"read 120 lines: 120 accepted, 0 rejected", "is live with 120 items"}},
				{args: []string{"rollback"}, wantErr: "older than"},
				// A worse catalogue is refused, saying which flag lets it through.
				{args: []string{"load", half}, wantErr: "-allow-shrink"},
				{args: []string{"load", empty}, wantErr: "-allow-empty"},
				{args: []string{"load", "-rejects", rejects, bad}, wantErr: "-max-rejected"},
				{args: []string{"status"}, count: map[string]int{" 120 ": 1, "live": 1, " 60 ": 0, " 0 ": 0}},
				{args: []string{"load", "-allow-shrink", half}, want: []string{"is live with 60 items"}},
				{args: []string{"load", path}, want: []string{"is live with 120 items"}},
				// Keep 1: the first load's index is gone; the half one is kept.
				{args: []string{"status"}, want: []string{"INDEX", "ITEMS", "STATE"}, count: map[string]int{" 60 ": 1, " 120 ": 1, "live": 1}},
				{args: []string{"rollback"}, want: []string{"is live again"}},
				{args: []string{"use", "nope"}, wantErr: "nope"},
				{args: []string{"status"}, count: map[string]int{" 60 ": 1, "live": 1}},
			}
			if e, ok := servicetest.EngineNamed(envs["MEDIA_BACKEND"]); ok {
				// An engine's status names the engine it checked at open.
				steps = append(steps, steps[len(steps)-1])
				steps[len(steps)-1].want = []string{"engine: " + e.Product + " "}
			}
			for i, st := range steps {
				stdout, stderr, err := mediactl(t, envs, st.args...)
				if (st.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), st.wantErr)) {
					t.Fatalf("step %d, %q: error %v, want %q\n%s\n%s", i, st.args, err, st.wantErr, stdout, stderr)
				}
				for _, w := range st.want {
					if !strings.Contains(stdout, w) {
						t.Errorf("step %d, %q: output lacks %q:\n%s", i, st.args, w, stdout)
					}
				}
				for w, n := range st.count {
					if got := strings.Count(stdout, w); got != n {
						t.Errorf("step %d, %q: %q %d times, want %d:\n%s", i, st.args, w, got, n, stdout)
					}
				}
			}
			// The rollback is undone by use of the version it left.
			newer := statusLine(t, envs, " 120 ")
			if out, _, err := mediactl(t, envs, "use", strings.Fields(newer)[0]); err != nil || !strings.Contains(out, "is live") {
				t.Fatalf("use: %v\n%s", err, out)
			}
			if line := statusLine(t, envs, " 120 "); !strings.Contains(line, "live") {
				t.Errorf("after use, status says %q, want the 120 items live", line)
			}
		})
	}
}

// statusLine is the line of mediactl status that holds s.
func statusLine(t *testing.T, envs map[string]string, s string) string {
	t.Helper()
	out, _, err := mediactl(t, envs, "status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(out) {
		if strings.Contains(line, s) {
			return line
		}
	}
	t.Fatalf("status lacks %q:\n%s", s, out)
	return ""
}

// TestLoadMissingFile: a load of a file that does not exist fails before building anything.
func TestLoadMissingFile(t *testing.T) {
	envs := map[string]string{"MEDIA_INDEX_DIR": filepath.Join(t.TempDir(), "index")}
	if _, _, err := mediactl(t, envs, "load", filepath.Join(t.TempDir(), "none.ndjson")); err == nil || !strings.Contains(err.Error(), "open catalogue") {
		t.Errorf("load of a missing file: %v", err)
	}
	if out, _, err := mediactl(t, envs, "status"); err != nil || !strings.Contains(out, "no index yet") {
		t.Errorf("status after it: %v\n%s", err, out)
	}
}

// TestWriteAtomically: a write that fails leaves neither the file nor its temporary file, and an
// existing file is replaced only by a complete one.
func TestWriteAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.ndjson")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tests := []struct {
		name  string
		write func(io.Writer) error
		want  string
		err   error
	}{
		{"fails", func(w io.Writer) error { io.WriteString(w, "part"); return boom }, "old\n", boom},
		{"succeeds", func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }, "new\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := writeAtomically(path, tt.write); !errors.Is(err, tt.err) {
				t.Fatalf("writeAtomically: %v, want %v", err, tt.err)
			}
			if got := string(readFile(t, path)); got != tt.want {
				t.Errorf("file holds %q, want %q", got, tt.want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 1 {
				t.Errorf("directory holds %v, %v; want the file alone", entries, err)
			}
		})
	}
}

func TestLineNumbers(t *testing.T) {
	for _, tt := range []struct {
		lines []int
		total int
		want  string
	}{
		{[]int{3}, 1, "line 3"},
		{[]int{3, 9}, 2, "lines 3, 9"},
		{[]int{3, 9}, 7, "lines 3, 9 and 5 more"},
	} {
		if got := lineNumbers(tt.lines, tt.total); got != tt.want {
			t.Errorf("lineNumbers(%v, %d) = %q, want %q", tt.lines, tt.total, got, tt.want)
		}
	}
}
