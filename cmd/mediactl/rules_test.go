package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"mediagw/cmd/internal/backends"
	"mediagw/config"
	"mediagw/gateway"
	"mediagw/internal/servicetest"
	"mediagw/ratelimit"
	"mediagw/redisconn"
	"mediagw/search/curation"
	"mediagw/search/live"
)

// rulesCatalogue: three items say television and none says tv.
const rulesCatalogue = `{"id":"tv-studio","type":"photo","title":"Television studio at night"}
{"id":"tv-set","type":"photo","title":"An old television set in a kitchen, television news on it"}
{"id":"tv-mast","type":"video","title":"Television mast on the hill","description":"The mast of a television station"}
{"id":"radio-mast","type":"photo","title":"Radio mast on the hill"}
`

// servedWithin bounds how long a replica may take to serve an applied set: it reads the set with
// the live version, every live.DefaultEvery, and then answers from it at once.
const servedWithin = 5*live.DefaultEvery + 5*time.Second

// TestRulesOnThreeReplicas: three gateways on one engine alias, sharing Redis as replicas do, each
// wired by backends.Open as mediagw wires one. After `mediactl rules apply` of a synonyms file and
// a pins file, every replica serves the set within seconds: tv finds what television finds, and
// the pinned item comes first for its query. A malformed file is refused with its line numbers,
// and every replica still serves the set applied before.
func TestRulesOnThreeReplicas(t *testing.T) {
	redisURL := servicetest.RedisURL(t)
	envs := openSearchEnv(t)
	envs["REDIS_URL"] = redisURL
	dir := t.TempDir()
	write := writer(t, dir)
	if out, stderr, err := mediactl(t, envs, "load", write("c.ndjson", rulesCatalogue)); err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out, stderr)
	}
	replicas := startReplicas(t, envs, 3)

	before := replicas[0].search(t, "television")
	if len(before) != 3 {
		t.Fatalf("television finds %q, want the 3 items that say it", before)
	}
	pinned := before[len(before)-1]
	for i, r := range replicas {
		if got := r.search(t, "tv"); len(got) != 0 {
			t.Fatalf("replica %d: tv finds %q before any synonym", i, got)
		}
		if _, s := r.searchSuggest(t, "televison"); s != "television" {
			t.Fatalf("replica %d: televison suggests %q before any synonym, want television", i, s)
		}
		if got := r.search(t, "television"); !slices.Equal(got, before) {
			t.Fatalf("replica %d: television finds %q, replica 0 %q", i, got, before)
		}
	}
	// serves reports whether replica r serves the set: tv finds television's items, pinned first,
	// and televison, a synonym the operator named, is meant as written: no did-you-mean.
	serves := func(r replica) error {
		tv, television := r.search(t, "tv"), r.search(t, "television")
		if _, s := r.searchSuggest(t, "televison"); s != "" {
			return fmt.Errorf("televison suggests %q", s)
		}
		if len(television) == 0 || television[0] != pinned {
			return fmt.Errorf("television finds %q, not %s first", television, pinned)
		}
		if !slices.Equal(slices.Sorted(slices.Values(tv)), slices.Sorted(slices.Values(before))) {
			return fmt.Errorf("tv finds %q, television %q", tv, before)
		}
		return nil
	}

	synonyms := write("synonyms.txt", "# what people type => what the catalogue says\ntv, television\ntelevison => television\n")
	pins := write("pins.txt", "Television => "+pinned+"\n")
	out, stderr, err := mediactl(t, envs, "rules", "-synonyms", synonyms, "-pins", pins, "apply")
	if err != nil || !strings.Contains(out, "applied") {
		t.Fatalf("rules apply: %v\n%s\n%s", err, out, stderr)
	}
	applied := time.Now()
	for i, r := range replicas {
		for err := serves(r); err != nil; err = serves(r) {
			if time.Since(applied) > servedWithin {
				t.Fatalf("replica %d, %s after the set was applied: %v", i, time.Since(applied).Round(time.Millisecond), err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Logf("every replica served the set %s after it was applied", time.Since(applied).Round(time.Millisecond))

	// Line 3 of the synonyms and line 2 of the pins are bad; the good pin of line 1 would change
	// television's first item.
	badSynonyms := write("bad-synonyms.txt", "tv, television\n\nbig apple, new york\n")
	badPins := write("bad-pins.txt", "television => "+before[0]+"\nradio =>\n")
	out, stderr, err = mediactl(t, envs, "rules", "-synonyms", badSynonyms, "-pins", badPins, "apply")
	if err == nil {
		t.Fatalf("rules apply of malformed files succeeded:\n%s\n%s", out, stderr)
	}
	for _, want := range []string{"synonyms line 3", "pins line 2", "the served set is unchanged"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("rules apply of malformed files: %q lacks %q", err, want)
		}
	}
	// Each replica reads the stored set again in that time: it is still the one applied.
	time.Sleep(2 * live.DefaultEvery)
	for i, r := range replicas {
		if err := serves(r); err != nil {
			t.Errorf("replica %d after a refused file: %v", i, err)
		}
	}
	out, _, err = mediactl(t, envs, "rules", "show")
	if err != nil || !strings.Contains(out, "tv, television") || !strings.Contains(out, "televison => television") || !strings.Contains(out, "Television => "+pinned) {
		t.Errorf("rules show after a refused file: %v\n%s", err, out)
	}
}

// writer writes files of text into dir, returning their paths.
func writer(t *testing.T, dir string) func(name, text string) string {
	return func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// replica is one gateway's URL.
type replica struct{ url string }

// startReplicas starts n gateways on the settings envs names, each with its own backend chain,
// Redis client and HTTP server, until the test ends.
func startReplicas(t *testing.T, envs map[string]string, n int) []replica {
	t.Helper()
	cfg, _, err := config.Load("mediagw", nil, func(k string) string { return envs[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	policy := ratelimit.Policy{Limit: 1 << 20, Window: time.Minute}
	prefix := fmt.Sprintf("mediagw-test:%s:%d:", t.Name(), time.Now().UnixNano())
	var out []replica
	for range n {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		c, closeBackend, err := backends.Open(ctx, cfg, zap.NewNop(), prometheus.NewRegistry(), 64<<20)
		if err != nil {
			t.Fatalf("open the backend: %v", err)
		}
		t.Cleanup(closeBackend)
		client, err := redisconn.Open(cfg.RedisURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Close() })
		servicetest.WaitForRedis(t, client)
		shared, err := ratelimit.NewRedis(client, policy, ratelimit.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		gcfg := gateway.DefaultConfig()
		gcfg.PublicURL = "https://media.example.org"
		gcfg.RatePolicy = policy
		gw, err := gateway.New(gcfg, c, ratelimit.NewFallback(shared, ratelimit.NewMemory(policy, nil), zap.NewNop()), zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gw)
		t.Cleanup(srv.Close)
		out = append(out, replica{srv.URL})
	}
	return out
}

// search returns the ids of the items the replica finds for q, in its order.
func (r replica) search(t *testing.T, q string) []string {
	t.Helper()
	ids, _ := r.searchSuggest(t, q)
	return ids
}

// searchSuggest is search, with the did-you-mean's suggestion ("" for none).
func (r replica) searchSuggest(t *testing.T, q string) (ids []string, suggestion string) {
	t.Helper()
	resp, err := http.Get(r.url + "/?resource=items&per_page=50&q=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Suggestion *string `json:"suggestion"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("q=%s: %d, %v", q, resp.StatusCode, err)
	}
	ids = make([]string, len(body.Data))
	for i, it := range body.Data {
		ids[i] = it.ID
	}
	if body.Suggestion != nil {
		suggestion = *body.Suggestion
	}
	return ids, suggestion
}

// TestRulesApplyEmbedded: `mediactl rules apply` on the embedded index refuses a file over
// curation.MaxBytes before reading it whole, names the first curation.MaxReported bad lines of a
// refused file and counts the rest, and applies pins to ids the live index does not hold with a
// warning naming them.
func TestRulesApplyEmbedded(t *testing.T) {
	dir := t.TempDir()
	envs := map[string]string{"MEDIA_INDEX_DIR": filepath.Join(dir, "index")}
	write := writer(t, dir)
	if out, stderr, err := mediactl(t, envs, "load", write("c.ndjson", rulesCatalogue)); err != nil {
		t.Fatalf("load: %v\n%s\n%s", err, out, stderr)
	}
	synonyms, pins := write("synonyms.txt", "tv, television\n"), write("pins.txt", "")
	huge := filepath.Join(dir, "huge.txt")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 100<<20); err != nil {
		t.Fatal(err)
	}
	bad := write("bad.txt", strings.Repeat("tv\n", curation.MaxReported+15))
	for _, tt := range []struct {
		name, synonyms, pins string
		want, lacks          []string
	}{
		{"a 100 MB file", huge, pins, []string{huge + " is over 1048576 bytes", "the served set is unchanged"}, nil},
		{"35 bad lines", bad, pins, []string{"synonyms line 20:", "and 15 more bad lines", "the served set is unchanged"}, []string{"line 21:"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := mediactl(t, envs, "rules", "-synonyms", tt.synonyms, "-pins", tt.pins, "apply")
			if err == nil {
				t.Fatalf("applied: %s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			for _, w := range tt.lacks {
				if strings.Contains(err.Error(), w) {
					t.Errorf("%q holds %q", err, w)
				}
			}
		})
	}

	pins = write("pins.txt", "television => tv-studio, gone-1, gone-2\nradio => radio-mast\n")
	out, stderr, err := mediactl(t, envs, "rules", "-synonyms", synonyms, "-pins", pins, "apply")
	if err != nil || !strings.Contains(out, "applied") {
		t.Fatalf("apply with unknown pins: %v\n%s\n%s", err, out, stderr)
	}
	want := "warning: 2 pinned ids are not in the live index, so their pins raise nothing:\n  television => gone-1\n  television => gone-2\n"
	if !strings.Contains(out, want) {
		t.Errorf("apply with unknown pins says\n%s\nwant it to hold\n%s", out, want)
	}
	if out, _, err := mediactl(t, envs, "rules", "show"); err != nil || !strings.Contains(out, "gone-2") {
		t.Errorf("rules show: %v\n%s", err, out)
	}
}
