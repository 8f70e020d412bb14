package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prometheus/procfs"
)

// ProbeResult is the latency of one resource on one target: its first answer, which found every
// cache cold, and the ones after it.
type ProbeResult struct {
	Target string
	Kind   Kind
	// Query is what the request asks of the list beside its resource; "" for the whole list.
	Query string
	Cold  time.Duration
	Warm  Latency
	// Status counts the answers by status, 0 for none.
	Status map[int]int64
	Bytes  int64
}

// ListQueries are the list queries Probe times beside the whole lists: pages a picker shows, by
// name and by count, name searches as a person types, and a page counted within a filter.
var ListQueries = []struct {
	Kind  Kind
	Query string
}{
	{KindAuthors, "per_page=50"},
	{KindAuthors, "per_page=50&sort=count"},
	{KindAuthors, "per_page=50&q=mar"},
	{KindAuthors, "per_page=50&q=maria+s"},
	{KindAuthors, "page=200&per_page=50"},
	{KindAuthors, "per_page=50&sort=count&type=video"},
	{KindCategories, "per_page=50&sort=count"},
}

// Probe asks each target for categories and authors, whole and as ListQueries asks, each once
// cold, then n times more, one request at a time; a target that answers lists only whole (the
// engine) answers the whole list's exchange for each. Before each target's first request, clear (when not nil) empties the engine's own
// caches, so "cold" means what the first visitor after a reindex meets.
func Probe(ctx context.Context, targets []Target, alias string, n int, timeout time.Duration, clear func(context.Context) error) ([]ProbeResult, error) {
	var out []ProbeResult
	if alias == "" {
		alias = MixOptions{}.withDefaults().Alias
	}
	m := &mixer{alias: alias}
	for _, t := range targets {
		if clear != nil {
			if err := clear(ctx); err != nil {
				return out, err
			}
		}
		for _, r := range m.probes() {
			pr := ProbeResult{Target: t.Name(), Kind: r.Kind, Query: listQuery(r), Status: map[int]int64{}}
			var warm []time.Duration
			for i := 0; i <= n; i++ {
				if err := ctx.Err(); err != nil {
					return out, err
				}
				rctx, cancel := context.WithTimeout(ctx, timeout)
				start := time.Now()
				status, size, err := t.Do(rctx, r, uint64(i))
				d := time.Since(start)
				cancel()
				if err != nil {
					status = 0
				}
				pr.Status[status]++
				pr.Bytes = size
				if i == 0 {
					pr.Cold = d
				} else {
					warm = append(warm, d)
				}
			}
			pr.Warm = summarize(warm)
			out = append(out, pr)
		}
	}
	return out, nil
}

// probes are the requests Probe times: the whole lists, then ListQueries.
func (m *mixer) probes() []*Request {
	out := []*Request{m.listRequest(KindCategories), m.listRequest(KindAuthors)}
	for _, lq := range ListQueries {
		r := m.listRequest(lq.Kind)
		r.Query += "&" + lq.Query
		out = append(out, r)
	}
	return out
}

// listQuery is what r asks of its list beside the resource.
func listQuery(r *Request) string {
	_, q, _ := strings.Cut(r.Query, "&")
	return q
}

// WriteProbeTable prints probe results.
func WriteProbeTable(w io.Writer, results []ProbeResult) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tresource\tquery\tcold ms\tcached n\tp50 ms\tp99 ms\tmax ms\tKiB\tstatuses\t")
	for _, r := range results {
		query := r.Query
		if query == "" {
			query = "(whole)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%.1f\t%s\t\n", r.Target, r.Kind, query, ms(r.Cold), r.Warm.N,
			ms(r.Warm.P50), ms(r.Warm.P99), ms(r.Warm.Max), float64(r.Bytes)/1024, statusSummary(r.Status))
	}
	return tw.Flush()
}

// RSSWatch samples a process's resident memory (VmRSS) until stopped.
type RSSWatch struct {
	Name  string
	PID   int
	every time.Duration
	stop  chan struct{}
	done  chan struct{}
	// samples in KiB, written by the sampling goroutine until done closes.
	samples []int64
	err     error
}

// WatchRSS samples pid's VmRSS every interval, starting now.
func WatchRSS(name string, pid int, every time.Duration) *RSSWatch {
	w := &RSSWatch{Name: name, PID: pid, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			kib, err := ReadRSS(pid)
			if err != nil {
				w.err = err
				return
			}
			w.samples = append(w.samples, kib)
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// RSSReport summarises the samples of a watch, in KiB.
type RSSReport struct {
	Name                      string
	PID                       int
	N                         int
	First, Min, Max, Last     int64
	FirstQuarter, LastQuarter int64 // mean of the first and the last quarter of the samples
	Err                       error `json:"-"`
	// Samples are every sample in order, Every apart: RSS over time.
	Samples []int64
	Every   time.Duration
}

// Stop ends the watch and summarises it.
func (w *RSSWatch) Stop() RSSReport {
	close(w.stop)
	<-w.done
	r := RSSReport{Name: w.Name, PID: w.PID, N: len(w.samples), Err: w.err, Samples: w.samples, Every: w.every}
	if r.N == 0 {
		return r
	}
	s := w.samples
	r.First, r.Last, r.Min, r.Max = s[0], s[len(s)-1], s[0], s[0]
	for _, v := range s {
		r.Min, r.Max = min(r.Min, v), max(r.Max, v)
	}
	q := max(len(s)/4, 1)
	r.FirstQuarter, r.LastQuarter = mean(s[:q]), mean(s[len(s)-q:])
	return r
}

func mean(s []int64) int64 {
	var sum int64
	for _, v := range s {
		sum += v
	}
	return sum / int64(len(s))
}

// ReadRSS returns pid's resident set size in KiB (VmRSS of /proc/<pid>/status).
func ReadRSS(pid int) (int64, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, fmt.Errorf("read rss: %w", err)
	}
	st, err := p.NewStatus()
	if err != nil {
		return 0, fmt.Errorf("read rss: %w", err)
	}
	return int64(st.VmRSS / 1024), nil
}

// ReadCPU returns the CPU time (user and system) pid has used so far (/proc/<pid>/stat).
func ReadCPU(pid int) (time.Duration, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, fmt.Errorf("read cpu: %w", err)
	}
	st, err := p.Stat()
	if err != nil {
		return 0, fmt.Errorf("read cpu: %w", err)
	}
	return time.Duration(math.Round(st.CPUTime() * float64(time.Second))), nil
}

// WriteRSSTable prints RSS reports in MiB.
func WriteRSSTable(w io.Writer, reports []RSSReport) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "process\tpid\tsamples\tfirst MiB\tmin\tmax\tlast\tfirst-quarter mean\tlast-quarter mean\t")
	mib := func(k int64) string { return fmt.Sprintf("%.1f", float64(k)/1024) }
	for _, r := range reports {
		if r.Err != nil && r.N == 0 {
			fmt.Fprintf(tw, "%s\t%d\t0\t%v\t\t\t\t\t\t\n", r.Name, r.PID, r.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, r.PID, r.N, mib(r.First), mib(r.Min),
			mib(r.Max), mib(r.Last), mib(r.FirstQuarter), mib(r.LastQuarter))
	}
	return tw.Flush()
}
