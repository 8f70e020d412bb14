package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// fakeCgroup writes files under a temporary directory, by slash-separated path.
func fakeCgroup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRead(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name  string
		files map[string]string
		want  int64
		file  string // the file the limit comes from, relative to root/
	}{
		{"v2 in a cgroup namespace", map[string]string{
			"self": "0::/\n", "fs/cgroup.controllers": "memory", "fs/memory.max": "268435456\n"},
			256 * mib, "fs/memory.max"},
		{"v2 without a limit", map[string]string{
			"self": "0::/\n", "fs/cgroup.controllers": "memory", "fs/memory.max": "max\n"},
			0, ""},
		{"v2 nested: the parent's lower limit binds", map[string]string{
			"self": "0::/kubepods/pod1/c1\n", "fs/cgroup.controllers": "memory",
			"fs/kubepods/pod1/c1/memory.max": "536870912", "fs/kubepods/pod1/memory.max": "268435456", "fs/kubepods/memory.max": "max"},
			256 * mib, "fs/kubepods/pod1/memory.max"},
		{"v2 without a namespace: the own path is not mounted, the root holds the limit", map[string]string{
			"self": "0::/system.slice/docker-1.scope\n", "fs/cgroup.controllers": "memory", "fs/memory.max": "134217728"},
			128 * mib, "fs/memory.max"},
		{"v1", map[string]string{
			"self": "12:pids:/docker/1\n4:memory:/docker/1\n0::/\n", "fs/memory/docker/1/memory.limit_in_bytes": "268435456"},
			256 * mib, "fs/memory/docker/1/memory.limit_in_bytes"},
		{"v1 with joined controllers, limit at the mount's root", map[string]string{
			"self": "4:memory,hugetlb:/docker/1\n", "fs/memory/memory.limit_in_bytes": "268435456"},
			256 * mib, "fs/memory/memory.limit_in_bytes"},
		{"v1 unlimited", map[string]string{
			"self": "4:memory:/\n", "fs/memory/memory.limit_in_bytes": "9223372036854771712"},
			0, ""},
		{"no cgroup at all", map[string]string{"fs/.keep": ""}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fakeCgroup(t, tt.files)
			got, file, err := Read(filepath.Join(dir, "fs"), filepath.Join(dir, "self"))
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.file != "" {
				want = filepath.Join(dir, filepath.FromSlash(tt.file))
			}
			if got != tt.want || file != want {
				t.Errorf("Read = %d from %q, want %d from %q", got, file, tt.want, want)
			}
		})
	}
}

func TestReadGarbage(t *testing.T) {
	dir := fakeCgroup(t, map[string]string{"self": "0::/\n", "fs/cgroup.controllers": "", "fs/memory.max": "lots"})
	_, _, err := Read(filepath.Join(dir, "fs"), filepath.Join(dir, "self"))
	if err == nil || !strings.Contains(err.Error(), "memory.max") {
		t.Errorf("Read of a bad limit: %v, want an error naming the file", err)
	}
}

func TestApply(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	dir := fakeCgroup(t, map[string]string{"self": "0::/\n", "fs/cgroup.controllers": "", "fs/memory.max": "268435456"})
	root, self := filepath.Join(dir, "fs"), filepath.Join(dir, "self")

	debug.SetMemoryLimit(math.MaxInt64)
	lim, err := Apply(func(string) string { return "" }, root, self)
	cgroup := int64(268435456)
	want := int64(float64(cgroup) * Ratio)
	if err != nil || lim.Bytes != want || lim.Cgroup != cgroup || lim.Source != filepath.Join(root, "memory.max") {
		t.Errorf("Apply = %+v, %v; want %d bytes from the cgroup", lim, err, want)
	}
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("runtime limit %d, want %d", got, want)
	}

	// GOMEMLIMIT set: the runtime read it at start; Apply leaves it and reports it.
	debug.SetMemoryLimit(100 << 20)
	env := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "100MiB"
		}
		return ""
	}
	if lim, err := Apply(env, root, self); err != nil || lim != (Limit{Bytes: 100 << 20, Source: "GOMEMLIMIT"}) {
		t.Errorf("Apply with GOMEMLIMIT = %+v, %v", lim, err)
	}
	if got := debug.SetMemoryLimit(-1); got != 100<<20 {
		t.Errorf("runtime limit %d, want GOMEMLIMIT's", got)
	}

	// No limit anywhere: nothing changes.
	debug.SetMemoryLimit(math.MaxInt64)
	none := fakeCgroup(t, map[string]string{"fs/.keep": ""})
	if lim, err := Apply(func(string) string { return "" }, filepath.Join(none, "fs"), filepath.Join(none, "self")); err != nil || lim != (Limit{}) {
		t.Errorf("Apply without a limit = %+v, %v", lim, err)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("runtime limit %d, want none", got)
	}
}
