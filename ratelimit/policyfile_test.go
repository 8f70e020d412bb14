package ratelimit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

const (
	schoolsFile  = "schools 1200 10m address 198.51.100.0/24\n"
	schoolsEdit  = "schools 2400 10m address 198.51.100.0/24\n"
	brokenSchool = "# edited\nschools 2400 10m adress 198.51.100.0/24\n"
)

// configMapDir lays out a file as the kubelet mounts a ConfigMap: the name a symlink into ..data,
// itself a symlink to a directory of this version; swap replaces the version as the kubelet does.
type configMapDir struct {
	t    *testing.T
	dir  string
	n    int
	path string
}

func newConfigMapDir(t *testing.T, content string) *configMapDir {
	c := &configMapDir{t: t, dir: t.TempDir()}
	c.path = filepath.Join(c.dir, "policies")
	c.swap(content)
	if err := os.Symlink(filepath.Join("..data", "policies"), c.path); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *configMapDir) swap(content string) {
	c.t.Helper()
	c.n++
	version := "..2026_12_01_version_" + string(rune('a'+c.n))
	if err := os.Mkdir(filepath.Join(c.dir, version), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, version, "policies"), []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
	tmp := filepath.Join(c.dir, "..data_tmp")
	if err := os.Symlink(version, tmp); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(c.dir, "..data")); err != nil {
		c.t.Fatal(err)
	}
}

func quota(f *PolicyFile) int {
	if n := f.Current().Networks(); len(n) == 1 {
		return n[0].Policy.Limit
	}
	return 0
}

// TestPolicyFileReload: a changed file is put in force; a broken edit is refused, logged and
// counted naming its line, the policies in force kept; a missing file keeps them too; the next
// good version is put in force. Edited in place and swapped like a ConfigMap alike.
func TestPolicyFileReload(t *testing.T) {
	inPlace := func(t *testing.T) (string, func(string)) {
		path := filepath.Join(t.TempDir(), "policies")
		write := func(s string) {
			if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(schoolsFile)
		return path, write
	}
	configMap := func(t *testing.T) (string, func(string)) {
		c := newConfigMapDir(t, schoolsFile)
		return c.path, c.swap
	}
	for name, setup := range map[string]func(*testing.T) (string, func(string)){"in place": inPlace, "ConfigMap": configMap} {
		t.Run(name, func(t *testing.T) {
			path, write := setup(t)
			core, logs := observer.New(zapcore.InfoLevel)
			f, err := OpenPolicyFile(path, zap.New(core))
			if err != nil {
				t.Fatal(err)
			}
			if quota(f) != 1200 {
				t.Fatalf("quota %d at start, want 1200", quota(f))
			}
			f.Reload()
			if n := testutil.ToFloat64(f.loaded); n != 0 {
				t.Errorf("an unchanged file was loaded again (%v)", n)
			}

			write(schoolsEdit)
			f.Reload()
			if quota(f) != 2400 || testutil.ToFloat64(f.loaded) != 1 {
				t.Fatalf("after an edit: quota %d, loaded %v; want 2400, 1", quota(f), testutil.ToFloat64(f.loaded))
			}

			write(brokenSchool)
			f.Reload()
			f.Reload()
			if quota(f) != 2400 {
				t.Errorf("after a broken edit: quota %d, want the 2400 in force", quota(f))
			}
			if n := testutil.ToFloat64(f.refused); n != 1 {
				t.Errorf("refused %v, want 1 (once per version)", n)
			}
			refusals := logs.FilterMessage("rate limit policies refused, the policies in force are kept").All()
			if len(refusals) != 1 || !strings.Contains(refusals[0].ContextMap()["error"].(string), `line 2: count-by "adress"`) {
				t.Errorf("refusal logged %v, want once naming line 2", refusals)
			}

			write(schoolsFile)
			f.Reload()
			if quota(f) != 1200 {
				t.Errorf("after the fix: quota %d, want 1200", quota(f))
			}
			if n := testutil.ToFloat64(f.networksInForce); n != 1 {
				t.Errorf("policies gauge %v, want 1", n)
			}
		})
	}
}

func TestPolicyFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policies")
	if _, err := OpenPolicyFile(path, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("OpenPolicyFile of a missing file: %v, want an error naming it", err)
	}
	if err := os.WriteFile(path, []byte(schoolsFile), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenPolicyFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	f.Reload()
	f.Reload()
	if quota(f) != 1200 || testutil.ToFloat64(f.refused) != 1 {
		t.Errorf("file gone: quota %d, refused %v; want 1200 kept, 1", quota(f), testutil.ToFloat64(f.refused))
	}
	if err := os.WriteFile(path, []byte(schoolsEdit), 0o644); err != nil {
		t.Fatal(err)
	}
	f.Reload()
	if quota(f) != 2400 {
		t.Errorf("file back: quota %d, want 2400", quota(f))
	}
}

func TestOpenPolicyFileRefusesBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policies")
	if err := os.WriteFile(path, []byte(brokenSchool), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenPolicyFile(path, nil)
	if err == nil || !strings.Contains(err.Error(), path+": ratelimit: invalid policies file: line 2: ") {
		t.Fatalf("OpenPolicyFile: %v, want the path and line 2", err)
	}
}

// TestPolicyFileWatch: Watch puts a swapped ConfigMap's version in force by itself.
func TestPolicyFileWatch(t *testing.T) {
	c := newConfigMapDir(t, schoolsFile)
	f, err := OpenPolicyFile(c.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { f.Watch(ctx, 10*time.Millisecond); close(done) }()
	c.swap(schoolsEdit)
	deadline := time.Now().Add(5 * time.Second)
	for quota(f) != 2400 {
		if time.Now().After(deadline) {
			t.Fatalf("quota %d 5s after the swap, want 2400", quota(f))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}
