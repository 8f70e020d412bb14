package gateway_test

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "write the golden bodies of testdata/lists from the gateway's answers")

// TestPlainListsGolden: without any of the lists' parameters, the lists are the original
// service's answer, byte for byte as the build before the parameters wrote them.
func TestPlainListsGolden(t *testing.T) {
	h := newHarness(t)
	for _, target := range []string{"/?resource=categories", "/?resource=authors",
		// Parameters of other resources, and empty values, are no list query.
		"/?resource=authors&author=x&facets=type&q=&page="} {
		rec := h.get(target)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", target, rec.Code)
		}
		name := filepath.Join("testdata", "lists", map[bool]string{true: "categories", false: "authors"}[target == "/?resource=categories"]+".json")
		if *update && target != "/?resource=authors&author=x&facets=type&q=&page=" {
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, rec.Body.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rec.Body.Bytes(), want) {
			t.Errorf("%s: the body differs from %s (%d bytes, want %d)", target, name, rec.Body.Len(), len(want))
		}
	}
}
