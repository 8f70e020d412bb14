package elastic

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mediagw/catalogue"
	"mediagw/search"
	"mediagw/search/searchtest"
)

var update = flag.Bool("update", false, "write testdata/documents.sha256 from today's documents")

// documentsDigests is where the digests of the documents of each catalogue a test reads are kept.
var documentsDigests = filepath.Join("testdata", "documents.sha256")

// TestDocumentsUnchanged: the bulk lines a load sends for the real catalogue, a generated one and
// the fixture are byte for byte those recorded, so that a cheaper analysis or encoding indexes
// the same (-update records today's).
func TestDocumentsUnchanged(t *testing.T) {
	sources := []struct {
		name  string
		items func(t *testing.T) ([]search.Item, bool)
	}{
		{"fixture", func(t *testing.T) ([]search.Item, bool) { return searchtest.Fixture(t), true }},
		{"generated-20000-1", func(t *testing.T) ([]search.Item, bool) { return searchtest.Generated(t, 20000, 1), true }},
		{"generated-5000-9", func(t *testing.T) ([]search.Item, bool) { return searchtest.Generated(t, 5000, 9), true }},
		{"real", func(t *testing.T) ([]search.Item, bool) {
			path, ok := searchtest.RealDataPath()
			if !ok {
				return nil, false
			}
			items, _, err := catalogue.ReadAll(path, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			return items, true
		}},
	}
	want := readDigests(t)
	got := map[string]string{}
	for _, src := range sources {
		items, ok := src.items(t)
		if !ok {
			if _, recorded := want[src.name]; recorded && !*update {
				t.Logf("%s: no such catalogue here, not compared", src.name)
			}
			got[src.name] = want[src.name]
			continue
		}
		h := sha256.New()
		var enc bulkEncoder
		enc.reset()
		for _, it := range items {
			if err := enc.add(it); err != nil {
				t.Fatal(err)
			}
			if len(enc.buf) >= maxBatchBytes {
				h.Write(enc.buf)
				enc.reset()
			}
		}
		h.Write(enc.buf)
		got[src.name] = fmt.Sprintf("%d %s", len(items), hex.EncodeToString(h.Sum(nil)))
		if !*update && got[src.name] != want[src.name] {
			t.Errorf("%s: documents are %s, recorded %s: what a load indexes changed", src.name, got[src.name], want[src.name])
		}
	}
	if *update {
		var b strings.Builder
		for _, src := range sources {
			if got[src.name] != "" {
				fmt.Fprintf(&b, "%s %s\n", src.name, got[src.name])
			}
		}
		if err := os.WriteFile(documentsDigests, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readDigests reads documentsDigests: a line per catalogue, its name, its items and the digest.
func readDigests(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(documentsDigests)
	if err != nil {
		if *update && os.IsNotExist(err) {
			return map[string]string{}
		}
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if name, rest, ok := strings.Cut(sc.Text(), " "); ok {
			out[name] = rest
		}
	}
	return out
}
