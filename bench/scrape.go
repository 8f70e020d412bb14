package bench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// GatewayStats is what a gateway's own metrics say about a stretch of a run: the difference of
// two scrapes of its admin listener's /metrics.
type GatewayStats struct {
	// Own is the gateway's own time per request (mediagw_gateway_own_seconds over every
	// resource): each request's time less its engine calls.
	Own Histogram
	// Limiter is the wait for each rate-limit decision (mediagw_ratelimit_duration_seconds).
	Limiter Histogram
	// GCPauses are the garbage collector's stop-the-world pauses (go_sched_pauses_total_gc_seconds).
	GCPauses Histogram
	// SchedLatency is how long goroutines waited to run once runnable (go_sched_latencies_seconds).
	SchedLatency Histogram
	// Cache counts the cache's answers by operation, then result (mediagw_cache_requests_total);
	// empty when the gateway has no cache.
	Cache map[string]map[string]float64
	// Calls counts the engine calls by operation (mediagw_backend_duration_seconds, metered below
	// the cache), and Requests the requests answered by resource
	// (mediagw_http_request_duration_seconds).
	Calls, Requests map[string]float64
}

// Histogram is a Prometheus histogram: cumulative counts at upper bounds in seconds, +Inf left out.
type Histogram struct {
	Bounds []float64 `json:"bounds,omitempty"`
	Counts []float64 `json:"counts,omitempty"`
	Count  float64   `json:"count"`
	Sum    float64   `json:"sum"`
}

// Scrape reads the metrics a gateway's admin listener serves at url.
func Scrape(ctx context.Context, client *http.Client, url string) (*GatewayStats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: status %d", url, resp.StatusCode)
	}
	return parseStats(resp.Body)
}

func parseStats(r io.Reader) (*GatewayStats, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("read metrics: %w", err)
	}
	s := &GatewayStats{
		Own:          histogram(families["mediagw_gateway_own_seconds"]),
		Limiter:      histogram(families["mediagw_ratelimit_duration_seconds"]),
		GCPauses:     histogram(families["go_sched_pauses_total_gc_seconds"]),
		SchedLatency: histogram(families["go_sched_latencies_seconds"]),
		Cache:        map[string]map[string]float64{},
		Calls:        histogramCounts(families["mediagw_backend_duration_seconds"], "op"),
		Requests:     histogramCounts(families["mediagw_http_request_duration_seconds"], "resource"),
	}
	if f := families["mediagw_cache_requests_total"]; f != nil {
		for _, m := range f.GetMetric() {
			op, res := label(m, "op"), label(m, "result")
			if s.Cache[op] == nil {
				s.Cache[op] = map[string]float64{}
			}
			s.Cache[op][res] += m.GetCounter().GetValue()
		}
	}
	return s, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// histogramCounts is the number of observations of a histogram family by the value of a label.
func histogramCounts(f *dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range f.GetMetric() {
		out[label(m, name)] += float64(m.GetHistogram().GetSampleCount())
	}
	return out
}

// histogram adds up every series of a histogram family; the series share their bounds.
func histogram(f *dto.MetricFamily) Histogram {
	var h Histogram
	for _, m := range f.GetMetric() {
		mh := m.GetHistogram()
		var o Histogram
		for _, b := range mh.GetBucket() {
			if math.IsInf(b.GetUpperBound(), 1) {
				continue // Count is its cumulative count
			}
			o.Bounds = append(o.Bounds, b.GetUpperBound())
			o.Counts = append(o.Counts, float64(b.GetCumulativeCount()))
		}
		o.Count, o.Sum = float64(mh.GetSampleCount()), mh.GetSampleSum()
		h = h.plus(o, 1)
	}
	return h
}

// plus is h + sign×o; a histogram without buckets takes the other's bounds.
func (h Histogram) plus(o Histogram, sign float64) Histogram {
	out := Histogram{Bounds: h.Bounds, Count: h.Count + sign*o.Count, Sum: h.Sum + sign*o.Sum}
	if len(out.Bounds) == 0 {
		out.Bounds = o.Bounds
	}
	out.Counts = make([]float64, len(out.Bounds))
	copy(out.Counts, h.Counts)
	for i := range min(len(o.Counts), len(out.Counts)) {
		out.Counts[i] += sign * o.Counts[i]
	}
	return out
}

// Quantile estimates the q-quantile as Prometheus's histogram_quantile does: linear within the
// bucket it falls in; the largest bound when it falls beyond it; 0 when the histogram is empty.
func (h Histogram) Quantile(q float64) float64 {
	if h.Count <= 0 || len(h.Bounds) == 0 {
		return 0
	}
	rank := q * h.Count
	i, _ := slices.BinarySearchFunc(h.Counts, rank, func(c, r float64) int {
		if c < r {
			return -1
		}
		return 1
	})
	if i >= len(h.Bounds) {
		return h.Bounds[len(h.Bounds)-1]
	}
	lo, below := 0.0, 0.0
	if i > 0 {
		lo, below = h.Bounds[i-1], h.Counts[i-1]
	}
	in := h.Counts[i] - below
	if in <= 0 {
		return h.Bounds[i]
	}
	return lo + (h.Bounds[i]-lo)*(rank-below)/in
}

// Mean is the mean observation, 0 for none.
func (h Histogram) Mean() float64 {
	if h.Count <= 0 {
		return 0
	}
	return h.Sum / h.Count
}

// Over counts the observations above the largest bound at most x, and returns that bound: the
// buckets cannot say more exactly how many exceed x.
func (h Histogram) Over(x float64) (bound, n float64) {
	i := -1
	for j, b := range h.Bounds {
		if b <= x {
			i = j
		}
	}
	if i < 0 {
		return 0, h.Count
	}
	return h.Bounds[i], h.Count - h.Counts[i]
}

// Sub is what happened between an earlier scrape and s.
func (s *GatewayStats) Sub(earlier *GatewayStats) *GatewayStats {
	return s.combine(earlier, -1)
}

// Add is s and o together: two stretches of a run.
func (s *GatewayStats) Add(o *GatewayStats) *GatewayStats {
	if s == nil {
		return o
	}
	return s.combine(o, 1)
}

func (s *GatewayStats) combine(o *GatewayStats, sign float64) *GatewayStats {
	out := &GatewayStats{
		Own:          s.Own.plus(o.Own, sign),
		Limiter:      s.Limiter.plus(o.Limiter, sign),
		GCPauses:     s.GCPauses.plus(o.GCPauses, sign),
		SchedLatency: s.SchedLatency.plus(o.SchedLatency, sign),
		Cache:        map[string]map[string]float64{},
		Calls:        addCounts(s.Calls, o.Calls, sign),
		Requests:     addCounts(s.Requests, o.Requests, sign),
	}
	for _, m := range []map[string]map[string]float64{s.Cache, o.Cache} {
		for op := range m {
			if out.Cache[op] == nil {
				out.Cache[op] = map[string]float64{}
			}
		}
	}
	for op, results := range s.Cache {
		maps.Copy(out.Cache[op], results)
	}
	for op, results := range o.Cache {
		for r, n := range results {
			out.Cache[op][r] += sign * n
		}
	}
	return out
}

// addCounts is a + sign×b.
func addCounts(a, b map[string]float64, sign float64) map[string]float64 {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]float64{}
	}
	for k, n := range b {
		out[k] += sign * n
	}
	return out
}

// CallsPerRequest is the calls that reached the engine (metered below the cache) per request
// answered (the health checks left out), in all and by operation.
func (s *GatewayStats) CallsPerRequest() (all float64, byOp map[string]float64) {
	requests := 0.0
	for r, n := range s.Requests {
		if r != "healthz" && r != "readyz" {
			requests += n
		}
	}
	byOp = map[string]float64{}
	if requests == 0 {
		return 0, byOp
	}
	for op, n := range s.Calls {
		if op != "ping" && n > 0 {
			byOp[op] = n / requests
			all += n / requests
		}
	}
	return all, byOp
}

// HitRate is the share of op's questions the cache answered from memory (hit or shared), and how
// many questions there were.
func (s *GatewayStats) HitRate(op string) (rate, n float64) {
	for _, c := range s.Cache[op] {
		n += c
	}
	if n == 0 {
		return 0, 0
	}
	return (s.Cache[op]["hit"] + s.Cache[op]["shared"]) / n, n
}

// writeGatewayStats prints what the gateway's metrics said while target was measured.
func writeGatewayStats(w io.Writer, target string, s *GatewayStats) error {
	o := s.Own
	var b strings.Builder
	fmt.Fprintf(&b, "gateway's own time while measuring %s (request less engine calls; from the metric's buckets, %.0f requests): p50 %s ms, p90 %s ms, p99 %s ms, mean %s ms\n",
		target, o.Count, msf(o.Quantile(.5)), msf(o.Quantile(.9)), msf(o.Quantile(.99)), msf(o.Mean()))
	if l := s.Limiter; l.Count > 0 {
		share := 0.0
		if o.Sum > 0 {
			share = 100 * l.Sum / o.Sum
		}
		// A speculated request's call overlaps its engine calls, so the share may pass 100%.
		fmt.Fprintf(&b, "  rate-limit call: p50 %s ms, p99 %s ms, mean %s ms: %.0f%% of the gateway's own time (a speculated call overlaps the engine's)\n",
			msf(l.Quantile(.5)), msf(l.Quantile(.99)), msf(l.Mean()), share)
	}
	if g := s.GCPauses; len(g.Bounds) > 0 {
		bound, n := g.Over(0.001)
		fmt.Fprintf(&b, "  GC: %.0f stop-the-world pauses, %s ms in all, %.0f over %s ms\n", g.Count, msf(g.Sum), n, msf(bound))
	}
	if l := s.SchedLatency; l.Count > 0 {
		bound, n := l.Over(0.001)
		fmt.Fprintf(&b, "  scheduler: %.2f%% of %.0f goroutine wake-ups waited over %s ms for a CPU\n", 100*n/l.Count, l.Count, msf(bound))
	}
	if all, byOp := s.CallsPerRequest(); all > 0 {
		var parts []string
		for _, op := range slices.Sorted(maps.Keys(byOp)) {
			parts = append(parts, fmt.Sprintf("%s %.3f", op, byOp[op]))
		}
		fmt.Fprintf(&b, "  engine calls per request (below the cache: what reached admission): %.3f: %s\n", all, strings.Join(parts, ", "))
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(s.Cache)) {
		if rate, n := s.HitRate(op); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f%% of %.0f", op, 100*rate, n))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, "  cache answers from memory (hit or shared) while measured: %s\n", strings.Join(parts, "; "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// msf formats seconds as ms.
func msf(s float64) string { return ms(time.Duration(s * float64(time.Second))) }
