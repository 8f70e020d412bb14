// Package buildinfo says which build a binary is, from what the Go toolchain records in it
// (module version, VCS revision and whether the tree was modified, Go version), for both
// binaries' -version and mediagw's build_info metric.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Set with -ldflags "-X mediagw/cmd/internal/buildinfo.version=… -X …revision=… -X …modified=true"
// by `make build` and the image build; they win over build info, which has no VCS revision when
// there is no .git directory to stamp from (a source tree without its history, a git worktree,
// whose .git is a file the go command does not recognise, or -buildvcs=false).
var version, revision, modified string

// Info is one binary's build.
type Info struct {
	Version   string // module version: a tag, a pseudo-version, or "(devel)"
	Revision  string // VCS commit, "unknown" when the build recorded none
	Time      string // commit time (RFC 3339), empty when unknown
	Modified  bool   // the working tree had uncommitted changes
	GoVersion string
}

// Read returns the running binary's build.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return from(bi, version, revision, modified)
}

func from(bi *debug.BuildInfo, version, revision, modified string) Info {
	info := Info{Version: "(devel)", Revision: "unknown", GoVersion: runtime.Version()}
	if bi != nil {
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		info.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		info.Version = version
	}
	if revision != "" {
		info.Revision = revision
		info.Modified = modified == "true"
	}
	return info
}

// String is the -version line: "mediagw v1.4.0 revision 61e76c4e… (modified) 2026-11-24T08:36:02Z go1.26.8".
func (i Info) String(name string) string {
	parts := []string{name, i.Version, "revision", i.Revision}
	if i.Modified {
		parts = append(parts, "(modified)")
	}
	if i.Time != "" {
		parts = append(parts, i.Time)
	}
	return strings.Join(append(parts, i.GoVersion), " ")
}

// Requested reports whether args ask only for the version (-version, --version), which both
// binaries answer before reading any setting.
func Requested(args []string) bool {
	return len(args) == 1 && slices.Contains([]string{"-version", "--version"}, args[0])
}

// Collector is the gauge mediagw_build_info{version,revision,goversion} 1, by which dashboards
// tell which build each replica runs (a dirty tree's revision ends in "-modified").
func (i Info) Collector() prometheus.Collector {
	rev := i.Revision
	if i.Modified {
		rev += "-modified"
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "mediagw_build_info",
		Help:        "Always 1; the labels say which build this replica runs.",
		ConstLabels: prometheus.Labels{"version": i.Version, "revision": rev, "goversion": i.GoVersion},
	})
	g.Set(1)
	return g
}

// Print writes the -version line.
func Print(w io.Writer, name string) {
	fmt.Fprintln(w, Read().String(name))
}
