//go:build cluster

package clustertest_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/catalogue"
	"mediagw/gateway"
	"mediagw/internal/clustertest"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/breaker"
	"mediagw/search/elastic"
)

// attempts counts the HTTP requests the backend sends to each node, those in flight, and those
// that got no answer or a 502/503 (each of which the client sends again to another node while it
// has retries left).
type attempts struct {
	next http.RoundTripper

	mu       sync.Mutex
	inFlight map[string]int
	sent     int
	failed   int
}

func (a *attempts) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	a.inFlight[r.URL.Host]++
	a.sent++
	a.mu.Unlock()
	resp, err := a.next.RoundTrip(r)
	a.mu.Lock()
	a.inFlight[r.URL.Host]--
	if err != nil || resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable {
		a.failed++
	}
	a.mu.Unlock()
	return resp, err
}

func (a *attempts) snapshot(host string) (inFlight, sent, failed int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inFlight[host], a.sent, a.failed
}

// tally counts the answers of the closed loop.
type tally struct {
	mu       sync.Mutex
	byStatus map[int]int
	errors   []string
}

func (t *tally) add(status int, what string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byStatus[status]++
	if status >= 500 && len(t.errors) < 20 {
		t.errors = append(t.errors, fmt.Sprintf("%d %s", status, what))
	}
}

func (t *tally) counts() (total, fivexx int, byStatus map[int]int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	byStatus = map[int]int{}
	for s, n := range t.byStatus {
		byStatus[s] = n
		total += n
		if s >= 500 {
			fivexx += n
		}
	}
	return total, fivexx, byStatus
}

// TestClusterNodeLoss (make cluster-test): a closed loop of API requests runs through the gateway
// on the cluster while a `mediactl load` builds a new index, and the elected cluster manager is
// killed (SIGKILL). No request fails beyond those in flight on that node when it died; the load
// either completes on the survivors or leaves the live alias as it was; the counts the API gives
// afterwards are exact. The node is started again at the end.
func TestClusterNodeLoss(t *testing.T) {
	urls := clustertest.URLs(t)
	dir := t.TempDir()
	mediactl := filepath.Join(dir, "mediactl")
	if out, err := exec.Command("go", "build", "-o", mediactl, "mediagw/cmd/mediactl").CombinedOutput(); err != nil {
		t.Fatalf("build mediactl: %v\n%s", err, out)
	}
	mapping := filepath.Join(dir, "mapping.json")
	if err := os.WriteFile(mapping, clustertest.Mapping(t), 0o644); err != nil {
		t.Fatal(err)
	}
	alias := "mediagw-cluster-" + strings.ToLower(rand.Text()[:10])
	env := append(os.Environ(), "MEDIA_BACKEND=opensearch", "OPENSEARCH_URL="+strings.Join(urls, ","),
		"OPENSEARCH_INDEX="+alias, "OPENSEARCH_MAPPING="+mapping, "MEDIA_KEEP_INDICES=1", "MEDIA_LOG_LEVEL=warn")
	mediactlCmd := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, mediactl, args...)
		cmd.Env = env
		return cmd
	}
	before, after := filepath.Join(dir, "before.ndjson"), filepath.Join(dir, "after.ndjson")
	for _, gen := range []struct {
		path string
		n    int
		seed string
	}{{before, 8000, "1"}, {after, 12000, "2"}} {
		if out, err := mediactlCmd(t.Context(), "gen", "-n", fmt.Sprint(gen.n), "-seed", gen.seed, "-o", gen.path).CombinedOutput(); err != nil {
			t.Fatalf("mediactl gen: %v\n%s", err, out)
		}
	}
	if out, err := mediactlCmd(t.Context(), "load", before).CombinedOutput(); err != nil {
		t.Fatalf("mediactl load: %v\n%s", err, out)
	}

	tr := &attempts{next: http.DefaultTransport.(*http.Transport).Clone(), inFlight: map[string]int{}}
	engine, err := elastic.New(elastic.Config{URLs: urls, Alias: alias, Transport: tr, DiscoverInterval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := engine.Drop(ctx); err != nil {
			t.Errorf("remove the test's indices: %v", err)
		}
		engine.Close()
	})
	oldIndex, err := engine.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// As mediagw serves OpenSearch, without its cache: every request reaches the engine. The
	// deadline is long: three nodes and a load share two cores with whatever else the machine
	// runs, and a request slow for that reason is not one the node's loss failed.
	cfg := gateway.DefaultConfig()
	cfg.RequestTimeout = 30 * time.Second
	cfg.PublicURL = "http://media.test"
	cfg.RatePolicy = ratelimit.Policy{Limit: 1 << 30, Window: time.Minute}
	core, logs := observer.New(zapcore.ErrorLevel)
	gw, err := gateway.New(cfg, breaker.New(engine, breaker.Options{}), ratelimit.NewMemory(cfg.RatePolicy, nil), zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	defer srv.Close()

	targets := mix(t, before)
	var (
		answers tally
		stop    atomic.Bool
		wg      sync.WaitGroup
	)
	answers.byStatus = map[int]int{}
	client := &http.Client{Timeout: 2 * time.Minute}
	started := time.Now()
	for w := range 4 {
		wg.Go(func() {
			for i := w; !stop.Load(); i++ {
				target := targets[i%len(targets)]
				resp, err := client.Get(srv.URL + target)
				if err != nil {
					answers.add(599, target+": "+err.Error())
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answers.add(resp.StatusCode, target)
			}
		})
	}
	time.Sleep(3 * time.Second)

	loadDone := make(chan error, 1)
	var loadOut strings.Builder
	load := mediactlCmd(context.Background(), "load", after)
	load.Stdout, load.Stderr = &loadOut, &loadOut
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { loadDone <- load.Wait() }()
	// The node dies while the load sends its items to the new index, once that index is complete
	// (its creation, which the cluster manager runs, is over).
	waitIndices(t, urls[0], alias, 2)
	time.Sleep(time.Second)

	victim := clusterManager(t, urls[0])
	host := mustHost(t, urls[victim-1])
	t.Cleanup(func() { restart(t) })
	inFlight, sentBefore, failedBefore := tr.snapshot(host)
	if err := syscall.Kill(clustertest.Pid(t, victim), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	totalAtKill, _, _ := answers.counts()
	time.Sleep(15 * time.Second)
	stop.Store(true)
	wg.Wait()
	loadErr := <-loadDone

	total, fivexx, byStatus := answers.counts()
	_, sent, failed := tr.snapshot(host)
	t.Logf("killed node %d (the elected cluster manager, %s) with %d requests in flight on it, after %d API requests",
		victim, host, inFlight, totalAtKill)
	t.Logf("API requests: %d (%v) in %v, 5xx: %d; engine attempts: %d (%d after the kill), failed attempts sent again: %d (%d after the kill)",
		total, byStatus, time.Since(started).Round(time.Second), fivexx, sent, sent-sentBefore, failed, failed-failedBefore)
	for _, l := range logs.All() {
		t.Logf("5xx: %v", l.ContextMap())
	}
	if fivexx > inFlight {
		t.Errorf("%d 5xx, more than the %d requests in flight on the node that died: %v", fivexx, inFlight, answers.errors)
	}

	// The load completed on the survivors, or left the live alias as it was.
	live, err := engine.Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	liveFile := before
	switch {
	case loadErr == nil:
		t.Logf("mediactl load during the loss completed: %s is live", live)
		liveFile = after
		if live == oldIndex {
			t.Errorf("mediactl load succeeded but the alias still names %s", live)
		}
	default:
		t.Logf("mediactl load during the loss failed (%v); the alias still names %s\n%s", loadErr, live, loadOut.String())
		if live != oldIndex {
			t.Errorf("mediactl load failed, yet the alias moved from %s to %s", oldIndex, live)
		}
	}
	checkCounts(t, srv.URL, liveFile)
}

// mix is the closed loop's requests: searches of several kinds, items, lists, completions and
// related items of the catalogue in path.
func mix(t *testing.T, path string) []string {
	t.Helper()
	items, err := catalogue.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, it := range items[:40] {
		id := url.QueryEscape(it.ID)
		word := url.QueryEscape(strings.Fields(it.Title)[0])
		out = append(out,
			"/?resource=items&q="+word+"&per_page=10",
			"/?resource=items&type="+it.Type+"&sort=newest&page="+fmt.Sprint(1+i%5)+"&facets=type,category,language,year",
			"/?resource=item&id="+id,
			"/?resource=suggest&q="+url.QueryEscape(string([]rune(it.Title)[:3])),
			"/?resource=related&id="+id,
		)
		if i%10 == 0 {
			out = append(out, "/?resource=categories", "/?resource=authors", "/?resource=items&cursor=*&per_page=50")
		}
	}
	return out
}

// checkCounts: the API's categories and totals are exactly those of the catalogue in path.
func checkCounts(t *testing.T, base, path string) {
	t.Helper()
	items, err := catalogue.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	model, err := bleve.NewFromItems(t.Context(), t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	want, err := model.Categories(t.Context(), search.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var cats struct {
		Data []struct {
			Slug  string `json:"slug"`
			Count int    `json:"count"`
		} `json:"data"`
	}
	get(t, base+"/?resource=categories", &cats)
	var got []search.Category
	for _, c := range cats.Data {
		got = append(got, search.Category{Slug: c.Slug, Count: c.Count})
	}
	if !slices.EqualFunc(got, want, func(a, b search.Category) bool { return a.Slug == b.Slug && a.Count == b.Count }) {
		t.Errorf("after the loss, %d categories differ from the catalogue's %d", len(got), len(want))
	}
	for _, typ := range []string{"", search.TypePhoto, search.TypeVideo, search.TypeDocument} {
		res, err := model.Search(t.Context(), search.NewRequest(search.Query{Type: search.ListOf(typ), Sort: search.SortNewest, Page: 1, PerPage: 1}))
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Pagination struct {
				Total int `json:"total"`
			} `json:"pagination"`
		}
		get(t, base+"/?resource=items&per_page=1&type="+typ, &page)
		if page.Pagination.Total != res.Total {
			t.Errorf("after the loss, type %q: total %d, want %d", typ, page.Pagination.Total, res.Total)
		}
	}
	t.Logf("after the loss: %d categories and the totals of every type exact (%d items)", len(want), len(items))
}

func get(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// waitIndices waits until the alias's versions number n.
func waitIndices(t *testing.T, node, alias string, n int) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(node + "/_cat/indices/" + alias + "-*?h=index&health=green")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(strings.Fields(string(b))) >= n {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the load did not create its index within 2 minutes: %s", b)
		}
	}
}

// clusterManager is the number of the elected cluster manager (node mediagw-cluster-N).
func clusterManager(t *testing.T, node string) int {
	t.Helper()
	resp, err := http.Get(node + "/_cat/cluster_manager?h=node")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "mediagw-cluster-%d", &n); err != nil {
		t.Fatalf("cluster manager %q: %v", b, err)
	}
	return n
}

func mustHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// restart starts the node that was killed, so the cluster is whole for the next run.
func restart(t *testing.T) {
	cmd := exec.Command("../../scripts/services.sh", "start")
	cmd.Env = append(os.Environ(), "OPENSEARCH_NODES=3")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("restart the killed node: %v\n%s", err, out)
	}
}
