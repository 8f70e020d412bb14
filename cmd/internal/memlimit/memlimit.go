// Package memlimit gives the Go runtime a memory limit where nothing set one (a plain container,
// Compose): 90% of the cgroup's memory limit, so that the garbage collector works harder as the
// heap nears what the container may hold, instead of the kernel ending the process. Kubernetes
// manifests set GOMEMLIMIT themselves (deploy/); that always wins.
package memlimit

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// Ratio is the share of the cgroup's limit the Go runtime is given: the rest is for what the
// runtime does not count (thread stacks, mapped index files, the kernel's own accounting).
const Ratio = 0.9

// Where a process finds its cgroup.
const (
	Root = "/sys/fs/cgroup"
	Self = "/proc/self/cgroup"
)

// Limit is the memory limit in force, and where it came from.
type Limit struct {
	// Bytes is the Go runtime's memory limit; 0 when there is none.
	Bytes int64
	// Source is "GOMEMLIMIT", the cgroup file the limit was derived from, or "" for none.
	Source string
	// Cgroup is the cgroup's limit when it was read; 0 otherwise.
	Cgroup int64
}

// Apply sets the Go runtime's memory limit to Ratio of the cgroup's (root is the cgroup file
// system, self the process' /proc/self/cgroup) unless GOMEMLIMIT is set, and returns the limit in
// force. Without a cgroup limit it changes nothing; err says why a limit could not be read.
func Apply(getenv func(string) string, root, self string) (Limit, error) {
	if getenv("GOMEMLIMIT") != "" {
		return Limit{Bytes: current(), Source: "GOMEMLIMIT"}, nil
	}
	n, file, err := Read(root, self)
	if err != nil || n == 0 {
		return Limit{}, err
	}
	bytes := int64(float64(n) * Ratio)
	debug.SetMemoryLimit(bytes)
	return Limit{Bytes: bytes, Source: file, Cgroup: n}, nil
}

// current is the runtime's memory limit, 0 for none.
func current() int64 {
	n := debug.SetMemoryLimit(-1)
	if n == math.MaxInt64 {
		return 0
	}
	return n
}

// unlimited is where cgroup v1 writes "no limit" (a page-rounded MaxInt64); any limit at or above
// it is none.
const unlimited = 1 << 62

// Read returns the memory limit of the process' cgroup and the file it was read from, or 0 when
// there is none. A limit set higher up the hierarchy binds too, so it returns the lowest of the
// cgroup's and its parents' (cgroup v2: memory.max; v1: memory.limit_in_bytes under the memory
// controller). Directories that do not exist are passed over: without a cgroup namespace the
// process' own path is not mounted, and the container's limit sits at the root.
func Read(root, self string) (int64, string, error) {
	v2 := true
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
		v2 = false
	}
	file := "memory.max"
	if !v2 {
		root, file = filepath.Join(root, "memory"), "memory.limit_in_bytes"
	}
	p, err := cgroupPath(self, v2)
	if err != nil {
		return 0, "", err
	}
	var (
		lowest int64
		from   string
	)
	for dir := path.Clean("/" + p); ; dir = path.Dir(dir) {
		name := filepath.Join(root, filepath.FromSlash(dir), file)
		n, err := readLimit(name)
		if err != nil {
			return 0, "", err
		}
		if n > 0 && (lowest == 0 || n < lowest) {
			lowest, from = n, name
		}
		if dir == "/" {
			break
		}
	}
	return lowest, from, nil
}

// cgroupPath returns the process' cgroup from self: the v2 line ("0::/path"), or the v1 line of
// the memory controller ("4:memory:/path"); "/" when self cannot be read or names none.
func cgroupPath(self string, v2 bool) (string, error) {
	f, err := os.Open(self)
	if errors.Is(err, fs.ErrNotExist) {
		return "/", nil
	}
	if err != nil {
		return "", fmt.Errorf("memory limit: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if (v2 && parts[0] == "0" && parts[1] == "") || (!v2 && slices.Contains(strings.Split(parts[1], ","), "memory")) {
			return parts[2], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("memory limit: %s: %w", self, err)
	}
	return "/", nil
}

// readLimit reads one limit file: 0 when it does not exist or says there is no limit.
func readLimit(name string) (int64, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("memory limit: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("memory limit: %s holds %q, not a number of bytes or max", name, s)
	}
	if n >= unlimited {
		return 0, nil
	}
	return n, nil
}
