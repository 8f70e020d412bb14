package chain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mediagw/search"
	"mediagw/search/curation"
	"mediagw/search/searchtest"
)

// TestRulesFromTheSnapshot: the chain hands each query the rules of its owner's snapshot (the
// backend keeps none): a search finds by them and says it was answered under them
// (Result.Curation), which marks the synonym's matches; the did-you-mean leaves a word they name
// alone. A stored set that no longer reads leaves the set held served and the version known, and
// the readiness detail says so.
func TestRulesFromTheSnapshot(t *testing.T) {
	dir := t.TempDir()
	b, c := embedded(t, dir, searchtest.Fixture(t))
	r, err := curation.Parse(curation.Files{Synonyms: "zzqwood => harbour\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ApplyRules(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Live.Ask(t.Context()); err != nil {
		t.Fatal(err)
	}
	q := search.Query{Text: "zzqwood", Highlight: true}
	q.Normalize()
	find := func(what string) {
		t.Helper()
		res, err := c.Search(t.Context(), search.NewRequest(q))
		if err != nil || res.Total == 0 || res.Curation == nil {
			t.Fatalf("%s: zzqwood finds %d items, rules %v, %v", what, res.Total, res.Curation, err)
		}
		hq := search.NewRequest(q)
		hq.Curation = res.Curation
		for _, it := range res.Items {
			if !marked(search.Matched(it, hq)) {
				t.Errorf("%s: zzqwood found %s but marks nothing of it", what, it.ID)
			}
		}
	}
	find("with the set read")
	if fixed, err := c.Correct(t.Context(), search.NewRequest(q)); err != nil || fixed != "" {
		t.Errorf("Correct(zzqwood) = %q, %v; want none: the synonyms name it", fixed, err)
	}
	if d := c.ReadinessDetail(); d != "" {
		t.Errorf("readiness detail %q with the set read", d)
	}

	version, _ := c.Live.Current()
	if err := os.WriteFile(filepath.Join(dir, "rules.json"), []byte(`{"synonyms":"tv"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Live.Ask(t.Context()); err != nil {
		t.Fatal(err)
	}
	if now, _ := c.Live.Current(); now != version {
		t.Errorf("a set that no longer reads: version %q, want %q", now, version)
	}
	find("a stored set that no longer reads")
	if d := c.ReadinessDetail(); !strings.Contains(d, "cannot be read") || !strings.Contains(d, r.Digest()) {
		t.Errorf("readiness detail %q", d)
	}
}

// marked reports whether a matched field holds a mark.
func marked(matched map[string]string) bool {
	for _, s := range matched {
		if strings.Contains(s, "<mark>") {
			return true
		}
	}
	return false
}
