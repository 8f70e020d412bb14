package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mediagw/catalogue"
)

// mediactl runs one command with the given environment and returns its output and error.
func mediactl(t *testing.T, envs map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, func(k string) string { return envs[k] }, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestGenValidateLoadStatusRollback(t *testing.T) {
	dir := t.TempDir()
	envs := map[string]string{"MEDIA_INDEX_DIR": filepath.Join(dir, "index"), "MEDIA_KEEP_INDICES": "2"}
	gz := filepath.Join(dir, "c.ndjson.gz")
	if _, stderr, err := mediactl(t, envs, "gen", "-n", "300", "-seed", "7", "-o", gz); err != nil {
		t.Fatalf("gen: %v\n%s", err, stderr)
	}
	items, err := catalogue.ReadFile(gz)
	if err != nil || len(items) != 300 {
		t.Fatalf("generated file: %d items, %v", len(items), err)
	}
	out, _, err := mediactl(t, envs, "validate", gz)
	if err != nil || !strings.Contains(out, "read 300 lines: 300 accepted, 0 rejected") {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	for i := 0; i < 2; i++ {
		out, stderr, err := mediactl(t, envs, "load", gz)
		if err != nil || !strings.Contains(out, "is live with 300 items") {
			t.Fatalf("load %d: %v\n%s\n%s", i, err, out, stderr)
		}
	}
	out, _, err = mediactl(t, envs, "status")
	if err != nil || strings.Count(out, " 300 ") != 2 || strings.Count(out, "live") != 1 {
		t.Fatalf("status: %v\n%s", err, out)
	}
	out, _, err = mediactl(t, envs, "rollback")
	if err != nil || !strings.Contains(out, "is live again") {
		t.Fatalf("rollback: %v\n%s", err, out)
	}
}

func TestLoadBadLine(t *testing.T) {
	dir := t.TempDir()
	envs := map[string]string{"MEDIA_INDEX_DIR": filepath.Join(dir, "index")}
	good := `{"id":"a","type":"photo","title":"A"}` + "\n"
	bad := `{"id":"b","type":"sound","title":"B"}` + "\n"
	path := filepath.Join(dir, "c.ndjson")
	if err := os.WriteFile(path, []byte(good+bad+good[:0]+`{"id":"c","type":"video","title":"C"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	_, _, err := mediactl(t, envs, "load", path)
	if err == nil || !strings.Contains(err.Error(), "line 2: type:") || !strings.Contains(err.Error(), "nothing went live") {
		t.Fatalf("strict load error = %v, want line 2 reported and nothing live", err)
	}
	if out, _, _ := mediactl(t, envs, "status"); !strings.Contains(out, "no index yet") {
		t.Errorf("after a failed load, status says:\n%s", out)
	}

	_, stderr, err := mediactl(t, envs, "validate", path)
	if err == nil || !strings.Contains(stderr, "line 2: type:") {
		t.Errorf("validate: %v\n%s", err, stderr)
	}

	rejects := filepath.Join(dir, "rejects.ndjson")
	// One line in three is over the share of refused lines a load lets go live by default.
	out, _, err := mediactl(t, envs, "load", "-rejects", rejects, "-max-rejected", "50", path)
	if err != nil || !strings.Contains(out, "read 3 lines: 2 accepted, 1 rejected") || !strings.Contains(out, "is live with 2 items") {
		t.Fatalf("load -rejects: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(rejects); string(got) != bad {
		t.Errorf("reject file = %q, want the bad line unchanged", got)
	}

	// A reject file that cannot be written stops the load: a bad line is never lost.
	if _, err := os.Stat("/dev/full"); err == nil {
		_, _, err := mediactl(t, envs, "load", "-rejects", "/dev/full", path)
		if err == nil || !strings.Contains(err.Error(), "write reject file") || !strings.Contains(err.Error(), "the live index is unchanged") {
			t.Errorf("load -rejects /dev/full: %v, want the write error and the live index unchanged", err)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{},
		{"frobnicate"},
		{"load"},
		{"load", "a", "b"},
		{"gen", "-n", "5", "-o", "x"},
		{"gen", "-n", "100"},
		{"status", "-rate-limit", "0"},
	}
	for _, args := range tests {
		if _, _, err := mediactl(t, nil, args...); err == nil {
			t.Errorf("mediactl %q: no error", args)
		}
	}
}
