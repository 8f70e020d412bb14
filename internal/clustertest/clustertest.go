// Package clustertest reaches the 3-node OpenSearch cluster that `make cluster` starts
// (OPENSEARCH_NODES=3 scripts/services.sh start), for the tests of `make cluster-test`: the nodes'
// URLs and pid files, and the index definition that spreads an alias's indices over them.
package clustertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mediagw/search/elastic/mappings"
)

// Shards and Replicas are what the cluster tests' indices get: every node holds a copy of two
// shards, and any one node can go.
const (
	Shards   = 3
	Replicas = 1
)

// URLs are the cluster's nodes, from OPENSEARCH_URL; the test fails without three of them.
func URLs(t testing.TB) []string {
	t.Helper()
	var urls []string
	for _, u := range strings.Split(os.Getenv("OPENSEARCH_URL"), ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) < 3 {
		t.Fatalf("OPENSEARCH_URL=%q: the cluster tests need the three nodes of `make cluster` (eval \"$(OPENSEARCH_NODES=3 scripts/services.sh start)\")",
			os.Getenv("OPENSEARCH_URL"))
	}
	return urls
}

// Pid is the process id of node i (1-based), from its pid file under OPENSEARCH_CLUSTER_DIR.
func Pid(t testing.TB, i int) int {
	t.Helper()
	dir := os.Getenv("OPENSEARCH_CLUSTER_DIR")
	if dir == "" {
		t.Fatal("OPENSEARCH_CLUSTER_DIR is not set: start the cluster with `make cluster` and export what it prints")
	}
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("node-%d", i), "opensearch.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file of node %d: %v", i, err)
	}
	return pid
}

// Mapping is the built-in index definition with Shards shards of Replicas replicas each.
func Mapping(t testing.TB) []byte {
	t.Helper()
	var def map[string]any
	if err := json.Unmarshal(mappings.Items, &def); err != nil {
		t.Fatal(err)
	}
	index := def["settings"].(map[string]any)["index"].(map[string]any)
	index["number_of_shards"], index["number_of_replicas"] = Shards, Replicas
	out, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
