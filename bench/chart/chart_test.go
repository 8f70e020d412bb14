package chart

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mediagw/bench"
)

// svgText checks that raw is one well-formed SVG document and returns the text it shows.
func svgText(t *testing.T, name string, raw []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(raw))
	var text strings.Builder
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", name, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			text.Write(tok)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", name, root)
	}
	return text.String()
}

func TestBarsAndLinesShowTheirSeries(t *testing.T) {
	bars, err := Bars("Two series", "ms", []string{"items", "item"}, []Series{
		{Name: "direct p50", Values: []float64{3, 1.5}}, {Name: "gateway p50", Values: []float64{4, 0}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := Lines("One line", "s", "MiB", []Line{{Name: "cached RSS", X: []float64{0, 0.5, 1}, Y: []float64{30, 40, 35}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		svg  []byte
		want []string
	}{
		{"bars", bars, []string{"Two series", "direct p50", "gateway p50", "items", "item", "ms"}},
		{"lines", lines, []string{"One line", "cached RSS", "MiB"}},
	} {
		text := svgText(t, tc.name, tc.svg)
		for _, w := range tc.want {
			if !slices.Contains(strings.Split(text, "\n"), w) {
				t.Errorf("%s: no text %q in %q", tc.name, w, text)
			}
		}
	}
}

// result is a small fixed result of one target.
func result(target string, rps float64, p50 time.Duration, stats *bench.GatewayStats) *bench.Result {
	r := &bench.Result{Target: target, Requests: 100, Throughput: rps, Gateway: stats}
	r.Latency = bench.Latency{N: 100, P50: p50, P90: 2 * p50, P99: 4 * p50, Mean: p50}
	r.ByKind[bench.KindItems] = bench.Latency{N: 70, P50: p50, P99: 4 * p50}
	r.ByKind[bench.KindItem] = bench.Latency{N: 30, P50: p50 / 2, P99: 2 * p50}
	return r
}

func TestDrawWritesEveryChartOfASmallRun(t *testing.T) {
	own := bench.Histogram{Bounds: []float64{.0005, .001, .002}, Counts: []float64{50, 90, 100}, Count: 100, Sum: .06}
	cached := &bench.GatewayStats{Own: own, Cache: map[string]map[string]float64{"search": {"hit": 60, "miss": 40}}}
	saved := []bench.Saved{
		{Label: "closed loop, caching off", Mode: "mix", Direct: true, Results: []*bench.Result{
			result("opensearch", 200, 30*time.Millisecond, nil), result("gateway", 180, 33*time.Millisecond, &bench.GatewayStats{Own: own})},
			RSS: []bench.RSSReport{{Name: "gateway", Samples: []int64{30000, 40000, 41000}, Every: 500 * time.Millisecond}}},
		{Label: "closed loop, caching on", Mode: "mix", Direct: true, Results: []*bench.Result{
			result("opensearch", 150, 40*time.Millisecond, nil), result("cached", 300, 2*time.Millisecond, cached)}},
		// Gateways only: no throughput or latency against OpenSearch direct.
		{Label: "OpenSearch vs embedded", Mode: "mix", Results: []*bench.Result{
			result("opensearch", 100, 20*time.Millisecond, nil), result("embedded", 90, 24*time.Millisecond, nil)}},
		{Label: "extras", Mode: "extras", Results: []*bench.Result{
			result("opensearch", 100, 20*time.Millisecond, nil), result("opensearch+extras", 90, 24*time.Millisecond, nil),
			result("opensearch+phrase", 95, 22*time.Millisecond, nil)}},
		{Label: "suggest", Mode: "suggest", QPS: 40, Results: []*bench.Result{result("embedded", 40, 2*time.Millisecond, nil)}},
	}
	dir := t.TempDir()
	files, err := Draw(saved, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"throughput.svg":                      {"OpenSearch direct", "through the gateway", "closed loop, caching off", "closed loop, caching on"},
		"latency-closed-loop-caching-off.svg": {"opensearch p50", "gateway p99", "items", "item"},
		"latency-closed-loop-caching-on.svg":  {"cached p50"},
		"cache.svg":                           {"closed loop, caching on: cached", "search"},
		"rss.svg":                             {"closed loop, caching off: gateway"},
		"own.svg":                             {"p50", "p99", "closed loop, caching off: gateway", "closed loop, caching on: cached"},
		"extras.svg":                          {"plain p50", "facets+highlight p50", "opensearch"},
		"suggest.svg":                         {"p50", "suggest: embedded"},
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if len(files) != len(want) {
		t.Errorf("wrote %v, want %d charts", names, len(want))
	}
	for name, texts := range want {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v (wrote %v)", name, err, names)
			continue
		}
		lines := strings.Split(svgText(t, name, raw), "\n")
		for _, w := range texts {
			if !slices.Contains(lines, w) {
				t.Errorf("%s: no text %q", name, w)
			}
		}
		// The phrases' run is no group of the extras' chart, nor their plain searches.
		if name == "extras.svg" && (slices.Contains(lines, "opensearch+extras") || slices.Contains(lines, "opensearch+phrase")) {
			t.Errorf("%s pairs the phrases' run: %q", name, lines)
		}
	}
}
