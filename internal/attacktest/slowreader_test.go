//go:build attack

package attacktest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mediagw/internal/servicetest"
)

// The slow-reader case: one visitor with allowance left, so that Redis decides its requests
// while their handlers run (gateway/speculate.go), opens slowReaders connections, asks each for
// the authors list (over 5 MB) uncompressed with a small receive buffer, and never reads.
const (
	slowReaders = 100
	// slowReaderAuthors authors of slowReaderName runes each make an authors list of about 5.6 MB.
	slowReaderAuthors = 25000
	slowReaderName    = 200
	// maxSlowReaderHeld bounds the live heap the held connections hold (server.liveHeap, so the
	// collector's pacing is not counted): each shares the one encoded list, where a copy each
	// would be 100 times 5.5 MB.
	maxSlowReaderHeld = 16 << 20
	// writeStall is how long the gateway lets a write make no progress (gateway/conns.go).
	writeStall = 10 * time.Second
)

func TestSlowReaders(t *testing.T) {
	raiseFileLimit(t, 1024)
	redis := servicetest.RedisURL(t)
	dir := t.TempDir()
	// The profiler's heap endpoint forces the collections that measure the live heap.
	env := []string{"MEDIA_BACKEND=embedded", "MEDIA_INDEX_DIR=" + dir, "REDIS_URL=" + redis, "MEDIA_PPROF=on"}
	run(t, env, filepath.Join(build(t), "mediactl"), "load", authorsCatalogue(t))
	s := start(t, env)
	r := &report{}

	// Read once in full: the list is encoded and kept, and the visitor known to the replica with
	// plenty left, so its next requests are speculated.
	const visitor, prober = 3, 200
	size := authorsSize(t, s, visitor)
	authorsSize(t, s, prober)
	if size < 5<<20 {
		t.Fatalf("the authors list is %d bytes, want at least 5 MB", size)
	}
	speculated := `mediagw_ratelimit_speculated_total{result="allowed"}`
	speculatedBefore := s.metric(speculated)
	before := s.liveHeap()

	ctx, cancel := context.WithCancel(t.Context())
	normal := s.probe(ctx, prober, "/?resource=items&q=london&per_page=5", 50*time.Millisecond)
	start := time.Now()
	conns := make([]net.Conn, 0, slowReaders)
	for range slowReaders {
		c, err := smallReceiver(s.from(visitor)).Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /?resource=authors HTTP/1.1\r\nHost: a\r\nAccept-Encoding: identity\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// Held: every write has filled what the kernel takes and waits.
	time.Sleep(2 * time.Second)
	held := s.liveHeap()
	// Every connection is closed by the server once its write has stalled for writeStall; the
	// probe keeps one of its own open.
	bound := writeStall + 2*closeSlack
	var closedAfter time.Duration
	for s.metric("mediagw_connections_open") > 1 {
		if closedAfter = time.Since(start); closedAfter > bound {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	closedAfter = time.Since(start)
	cancel()
	normal.wait()
	rss := s.peakRSS()
	// What the connections hold is the heap held less the heap once they are closed: what the
	// replica let go of meanwhile on its own is in neither.
	after := s.liveHeap()
	n := s.metric(speculated) - speculatedBefore - float64(normal.count())
	open := 0
	for _, c := range conns {
		// What the kernel holds of the answer, then the end of the stream, if the server closed it.
		c.SetReadDeadline(time.Now().Add(closeSlack))
		if _, err := io.Copy(io.Discard, c); isTimeout(err) {
			open++
		}
	}

	t.Logf("authors list %d bytes; live heap %.1f MiB before, %.1f MiB with %d slow readers held, %.1f MiB once closed (they held %.1f MiB; bound %d MiB); peak RSS %.1f MiB (pod limit %d MiB); closed within %s; %v speculated",
		size, mib(before), mib(held), slowReaders, mib(after), mib(held-after), maxSlowReaderHeld>>20, mib(float64(rss)), podMemory>>20, closedAfter.Round(time.Millisecond), n)
	// The probe's request cut short by cancel may have been counted by the server, not the probe.
	if n < slowReaders-1 {
		t.Errorf("%v of %d requests speculated: the case needs them decided while their handlers run", n, slowReaders)
	}
	if held-after > maxSlowReaderHeld {
		t.Errorf("the held connections hold %.1f MiB of live heap, want under %d MiB", mib(held-after), maxSlowReaderHeld>>20)
	}
	if rss > podMemory {
		t.Errorf("peak RSS %.1f MiB, want under the pod's limit of %d MiB", mib(float64(rss)), podMemory>>20)
	}
	if open > 0 || closedAfter > bound {
		t.Errorf("%d connections still open %s after they were opened, want all closed within %s", open, closedAfter.Round(time.Millisecond), bound)
	}
	checkProbe(t, "normal searches", normal, normalBound)
	r.add(fmt.Sprintf("%d connections of one visitor (Redis on), each asking for the %s-byte authors list uncompressed, never reading", slowReaders, number(size)),
		fmt.Sprintf("all closed within %s; live heap %.0f MiB while held, %.0f MiB once closed (bound on the difference %d MiB)", ms(closedAfter), mib(held), mib(after), maxSlowReaderHeld>>20),
		fmt.Sprintf("peak RSS %.0f MiB; normal searches meanwhile %s, %s", mib(float64(rss)), codes(normal.statuses), latencies(normal)))
	r.write(t, "embedded index, slow readers")
}

// authorsCatalogue writes a catalogue of slowReaderAuthors items, each by an author of its own
// with a long name: its authors list is over 5 MB, which no catalogue of ours has.
func authorsCatalogue(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "authors.ndjson")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	pad := strings.Repeat("of the slow-reader catalogue, a name made long on purpose ", 4)
	for i := range slowReaderAuthors {
		name := fmt.Sprintf("Author %05d %s", i, pad)[:slowReaderName]
		fmt.Fprintf(w, `{"id":"slow-reader-%05d","type":"document","title":"Slow reader item %d","author":%q}`+"\n", i, i, strings.TrimSpace(name))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// authorsSize reads the authors list from 127.0.0.from, uncompressed, and returns its size.
func authorsSize(t *testing.T, s *server, from int) int {
	t.Helper()
	c := s.client(from)
	defer c.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, s.url("/?resource=authors"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("authors: status %d, %d bytes, %v", resp.StatusCode, n, err)
	}
	return int(n)
}

func mib(b float64) float64 { return b / (1 << 20) }
