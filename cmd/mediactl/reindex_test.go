package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"mediagw/search"
	"mediagw/search/elastic/mappings"
)

// loadCatalogue loads a generated catalogue of n items with envs.
func loadCatalogue(t *testing.T, envs map[string]string, n int) {
	t.Helper()
	if out, stderr, err := mediactl(t, envs, "load", testCatalogue(t, n)); err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out, stderr)
	}
}

// liveIndex is the index the reindex's output says is live.
var liveIndex = regexp.MustCompile(`index (\S+) is live with (\d+) items`)

// statusRows are the rows of mediactl status, by index name.
func statusRows(t *testing.T, envs map[string]string) map[string]string {
	t.Helper()
	out, stderr, err := mediactl(t, envs, "status")
	if err != nil {
		t.Fatalf("status: %v\n%s", err, stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		// The engine's name, on an engine, and the table's header are no index.
		if strings.HasPrefix(line, "engine: ") || strings.HasPrefix(line, "INDEX ") {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		// When each was made is the clock's: the rows say the rest.
		rows[name] = strings.Join(strings.Fields(madeColumn.ReplaceAllString(rest, "")), " ")
	}
	return rows
}

// madeColumn is the MADE column of mediactl status.
var madeColumn = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC`)

// reindexPaced runs mediactl reindex of the 300 items loadCatalogue loads at -rate 100, which
// must take about 3 s: at least 2 s whatever the machine.
func reindexPaced(t *testing.T, envs map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	start := time.Now()
	stdout, stderr, err = mediactl(t, envs, append([]string{"reindex", "-rate", "100"}, args...)...)
	if took := time.Since(start); err == nil && took < 2*time.Second {
		t.Errorf("reindex of 300 items at -rate 100 took %v, want at least 2 s", took)
	}
	return stdout, stderr, err
}

func TestReindexEmbedded(t *testing.T) {
	envs := map[string]string{"MEDIA_INDEX_DIR": filepath.Join(t.TempDir(), "index"), "MEDIA_KEEP_INDICES": "1"}
	loadCatalogue(t, envs, 300)
	before := statusRows(t, envs)

	def := filepath.Join(t.TempDir(), "items.json")
	if err := os.WriteFile(def, mappings.Items, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mediactl(t, envs, "reindex", "-mapping", def); err == nil || !strings.Contains(err.Error(), "built into mediagw") {
		t.Errorf("reindex -mapping of the embedded index: %v, want a usage error", err)
	}
	out, stderr, err := reindexPaced(t, envs)
	m := liveIndex.FindStringSubmatch(out)
	if err != nil || m == nil || m[2] != "300" {
		t.Fatalf("reindex: %v\n%s\n%s", err, out, stderr)
	}
	rows := statusRows(t, envs)
	if want := "300 v" + strconv.Itoa(search.IndexVersion) + " live"; len(rows) != 2 || rows[m[1]] != want {
		t.Errorf("status after reindex: %v, want the old index and %s: %s", rows, m[1], want)
	}
	out, _, err = mediactl(t, envs, "rollback")
	for old := range before {
		if err != nil || !strings.Contains(out, old+" is live again") {
			t.Errorf("rollback: %v\n%s; want %s live again", err, out, old)
		}
	}
}

// TestReindexOpenSearch: an operator changes the index definition file, reindexes with it, sees
// in status which index was built from which definition, and rolls back.
func TestReindexOpenSearch(t *testing.T) {
	envs := openSearchEnv(t)
	envs["MEDIA_KEEP_INDICES"] = "1"
	loadCatalogue(t, envs, 300)
	before := statusRows(t, envs)
	hash, err := mappings.Hash(mappings.Items)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := mappings.ReadMeta(mappings.Items)
	if err != nil {
		t.Fatal(err)
	}
	// The mapping column: the definition's version, and its hash.
	v := "v" + strconv.Itoa(meta.Version) + " "
	var old string
	for name, row := range before {
		old = name
		if row != "300 "+v+hash+" live" {
			t.Errorf("status before: %s %s, want 300 %s%s live", name, row, v, hash)
		}
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"settings": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mediactl(t, envs, "reindex", "-mapping", bad); err == nil || !strings.Contains(err.Error(), "no mappings") {
		t.Errorf("reindex with a bad file: %v, want the file's fault", err)
	}
	if rows := statusRows(t, envs); len(rows) != 1 || rows[old] != before[old] {
		t.Errorf("after a reindex with a bad file, status: %v, want it unchanged: %v", rows, before)
	}

	edited := strings.Replace(string(mappings.Items), `"number_of_shards": 1`, `"number_of_shards": 2`, 1)
	if edited == string(mappings.Items) {
		t.Fatal("the built-in definition no longer sets number_of_shards 1")
	}
	def := filepath.Join(dir, "items.json")
	if err := os.WriteFile(def, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	newHash, err := mappings.Hash([]byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := reindexPaced(t, envs, "-mapping", def)
	m := liveIndex.FindStringSubmatch(out)
	if err != nil || m == nil || m[2] != "300" {
		t.Fatalf("reindex: %v\n%s\n%s", err, out, stderr)
	}
	rows := statusRows(t, envs)
	if len(rows) != 2 || rows[m[1]] != "300 "+v+newHash+" live" || rows[old] != "300 "+v+hash {
		t.Errorf("status after reindex: %v, want %s built with %s and live, %s with %s", rows, m[1], newHash, old, hash)
	}
	out, _, err = mediactl(t, envs, "rollback")
	if err != nil || !strings.Contains(out, old+" is live again") {
		t.Errorf("rollback: %v\n%s; want %s live again", err, out, old)
	}
	if rows := statusRows(t, envs); rows[old] != "300 "+v+hash+" live" {
		t.Errorf("status after rollback: %v, want %s live", rows, old)
	}
}
