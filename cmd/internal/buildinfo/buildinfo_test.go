package buildinfo

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func stamped(modified string) *debug.BuildInfo {
	return &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "mediagw", Version: "v0.0.0-20261124083602-61e76c4e8bb0+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "61e76c4e8bb076ff4e47b6893c70d6efd39615d8"},
			{Key: "vcs.time", Value: "2026-11-24T08:36:02Z"},
			{Key: "vcs.modified", Value: modified},
		},
	}
}

func TestVersionLine(t *testing.T) {
	for _, tt := range []struct {
		name                        string
		bi                          *debug.BuildInfo
		version, revision, modified string // as -ldflags -X sets them
		want                        string
	}{
		{"clean tree", stamped("false"), "", "", "",
			"mediagw v0.0.0-20261124083602-61e76c4e8bb0+dirty revision 61e76c4e8bb076ff4e47b6893c70d6efd39615d8 2026-11-24T08:36:02Z go1.26.8"},
		{"modified tree", stamped("true"), "", "", "",
			"mediagw v0.0.0-20261124083602-61e76c4e8bb0+dirty revision 61e76c4e8bb076ff4e47b6893c70d6efd39615d8 (modified) 2026-11-24T08:36:02Z go1.26.8"},
		{"no VCS (go test, or a build without .git)", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "mediagw", Version: "(devel)"}}, "", "", "",
			"mediagw (devel) revision unknown go1.26.8"},
		{"stamped by ldflags", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "mediagw", Version: "(devel)"}}, "v1.4.0", "0123abc", "false",
			"mediagw v1.4.0 revision 0123abc go1.26.8"},
		{"ldflags win over build info", stamped("false"), "61e76c4-dirty", "61e76c4e8bb076ff4e47b6893c70d6efd39615d8", "true",
			"mediagw 61e76c4-dirty revision 61e76c4e8bb076ff4e47b6893c70d6efd39615d8 (modified) 2026-11-24T08:36:02Z go1.26.8"},
		{"no build info", nil, "", "", "", "mediagw (devel) revision unknown " + runtime.Version()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := from(tt.bi, tt.version, tt.revision, tt.modified).String("mediagw"); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCollector(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(from(stamped("true"), "", "", "").Collector())
	want := `# HELP mediagw_build_info Always 1; the labels say which build this replica runs.
# TYPE mediagw_build_info gauge
mediagw_build_info{goversion="go1.26.8",revision="61e76c4e8bb076ff4e47b6893c70d6efd39615d8-modified",version="v0.0.0-20261124083602-61e76c4e8bb0+dirty"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "mediagw_build_info"); err != nil {
		t.Error(err)
	}
}

func TestRequested(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"-version"}, true},
		{[]string{"--version"}, true},
		{nil, false},
		{[]string{"-version", "-addr", ":1"}, false},
		{[]string{"load", "-version"}, false},
	} {
		if got := Requested(tt.args); got != tt.want {
			t.Errorf("Requested(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestBinariesShowTheirBuild runs `make build` and checks that both binaries' -version names the
// checked-out commit and whether the tree was modified.
func TestBinariesShowTheirBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", args...).Output()
		if err != nil {
			t.Skipf("not a git checkout, so builds record no revision: git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	head, version := git("rev-parse", "HEAD"), git("describe", "--tags", "--always")
	dirty := git("status", "--porcelain") != ""
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	dir := t.TempDir()
	build := exec.Command("make", "-s", "-C", "../../..", "build", "BIN="+dir)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	for _, name := range []string{"mediagw", "mediactl"} {
		out, err := exec.Command(filepath.Join(dir, name), "-version").Output()
		if err != nil {
			t.Fatalf("%s -version: %v", name, err)
		}
		line := strings.TrimSpace(string(out))
		if !strings.HasPrefix(line, name+" "+version+" ") || !strings.Contains(line, " revision "+head+" ") ||
			strings.Contains(line, "(modified)") != dirty || !strings.HasSuffix(line, " "+runtime.Version()) {
			t.Errorf("%s -version: %q, want %s %s revision %s, modified %v, %s", name, line, name, version, head, dirty, runtime.Version())
		}
	}
}
