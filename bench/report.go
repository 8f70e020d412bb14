package bench

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Latency summarises the latencies of some requests. Percentiles are exact: every latency is kept.
type Latency struct {
	N                  int
	P50, P90, P99, Max time.Duration
	Mean               time.Duration
}

// Result is what a run measured on one target.
type Result struct {
	Target string
	// Requests counts every request that ended, answered or not.
	Requests int64
	// Elapsed is the measured time (warm-up excluded).
	Elapsed time.Duration
	// Throughput is Requests per second of Elapsed.
	Throughput float64
	// Latency covers every request; ByKind splits it by resource.
	Latency Latency
	ByKind  [numKinds]Latency
	// Status counts answers by HTTP status; 0 counts requests that got no answer.
	Status map[int]int64
	// Bytes is the total size of the answers' bodies as read (after any decompression).
	Bytes int64
	// CPU is the CPU time each watched process (RunOptions.Processes, and the harness) used
	// while this target was measured.
	CPU map[string]time.Duration
	// Elsewhere is the machine's CPU time that went to none of the watched processes while this
	// target was measured (other processes, the kernel's interrupts, a hypervisor's steal), and
	// Idle its CPUs' idle time: what tells a run the machine disturbed from one it saturated.
	// Both are 0 where /proc/stat cannot be read.
	Elsewhere, Idle time.Duration
	// Gateway is what the target's own metrics said over its measured phases (RunOptions.Metrics);
	// nil when they were not read.
	Gateway *GatewayStats `json:",omitempty"`
	// Rounds is the requests per second of each measured round, in order: how far one round
	// strays from the whole is how far a single short run could.
	Rounds []float64 `json:",omitempty"`

	samples [numKinds][]time.Duration
	elapsed time.Duration
	cpu     map[string]time.Duration
}

func newResult(target string) *Result {
	return &Result{Target: target, Status: map[int]int64{}, cpu: map[string]time.Duration{}}
}

func (r *Result) record(k Kind, d time.Duration, status int, n int64) {
	r.samples[k] = append(r.samples[k], d)
	r.Status[status]++
	r.Bytes += n
}

// rate is the requests per second of r's samples over its elapsed time: one round's, before it
// is merged.
func (r *Result) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	var n int
	for k := range r.samples {
		n += len(r.samples[k])
	}
	return float64(n) / r.elapsed.Seconds()
}

func (r *Result) merge(o *Result) {
	for k := range o.samples {
		r.samples[k] = append(r.samples[k], o.samples[k]...)
	}
	for s, n := range o.Status {
		r.Status[s] += n
	}
	r.Bytes += o.Bytes
	r.elapsed += o.elapsed
	r.Elsewhere += o.Elsewhere
	r.Idle += o.Idle
	for p, d := range o.cpu {
		r.cpu[p] += d
	}
}

// finish computes the summary fields from the samples.
func (r *Result) finish() {
	var all []time.Duration
	for k := range r.samples {
		r.ByKind[k] = summarize(r.samples[k])
		all = append(all, r.samples[k]...)
	}
	r.Latency = summarize(all)
	r.Requests = int64(len(all))
	r.Elapsed = r.elapsed
	r.CPU = r.cpu
	if r.Elapsed > 0 {
		r.Throughput = float64(r.Requests) / r.Elapsed.Seconds()
	}
}

func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latency{N: len(ds), P50: quantile(ds, 0.50), P90: quantile(ds, 0.90), P99: quantile(ds, 0.99),
		Max: ds[len(ds)-1], Mean: sum / time.Duration(len(ds))}
}

// quantile is the nearest-rank quantile of sorted ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(ds))+0.999999) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}

// Errors counts the answers that were not 2xx, and the requests that got none.
func (r *Result) Errors() int64 {
	var n int64
	for s, c := range r.Status {
		if s < 200 || s > 299 {
			n += c
		}
	}
	return n
}

// Ratio compares a target with the baseline of the same run.
type Ratio struct {
	Target, Baseline string
	// Throughput is the target's requests per second over the baseline's.
	Throughput float64
	// P50Diff and P99Diff are the target's percentile minus the baseline's.
	P50Diff, P99Diff time.Duration
	// RoundMin and RoundMax are the lowest and highest Throughput of one round against the
	// baseline's round beside it (Run alternates them); 0 when the two were not measured in the
	// same two or more rounds.
	RoundMin, RoundMax float64
}

// Compare returns r against base.
func Compare(base, r *Result) Ratio {
	out := Ratio{Target: r.Target, Baseline: base.Target,
		P50Diff: r.Latency.P50 - base.Latency.P50, P99Diff: r.Latency.P99 - base.Latency.P99}
	if base.Throughput > 0 {
		out.Throughput = r.Throughput / base.Throughput
	}
	if len(r.Rounds) >= 2 && len(r.Rounds) == len(base.Rounds) && !slices.Contains(base.Rounds, 0) {
		out.RoundMin = math.Inf(1)
		for i, t := range r.Rounds {
			x := t / base.Rounds[i]
			out.RoundMin, out.RoundMax = min(out.RoundMin, x), max(out.RoundMax, x)
		}
	}
	return out
}

// ms formats d in milliseconds with enough digits for sub-millisecond latencies.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f < 10:
		return fmt.Sprintf("%.2f", f)
	case f < 100:
		return fmt.Sprintf("%.1f", f)
	}
	return fmt.Sprintf("%.0f", f)
}

func signedMs(d time.Duration) string {
	if d >= 0 {
		return "+" + ms(d)
	}
	return "-" + ms(-d)
}

// statusSummary lists the status counts, e.g. "200:981 429:19".
func statusSummary(st map[int]int64) string {
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(st)) {
		label := fmt.Sprint(s)
		if s == 0 {
			label = "no-answer"
		}
		parts = append(parts, fmt.Sprintf("%s:%d", label, st[s]))
	}
	return strings.Join(parts, " ")
}

// WriteTable prints the results, their split by resource, and each target's ratios against the
// first result, the baseline.
func WriteTable(w io.Writer, results []*Result) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\trequests\treq/s\tp50 ms\tp90 ms\tp99 ms\tmax ms\tKiB/answer\terrors\tstatuses\t")
	for _, r := range results {
		kib := 0.0
		if r.Requests > 0 {
			kib = float64(r.Bytes) / float64(r.Requests) / 1024
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%s\t%s\t%s\t%s\t%.1f\t%d\t%s\t\n", r.Target, r.Requests, r.Throughput,
			ms(r.Latency.P50), ms(r.Latency.P90), ms(r.Latency.P99), ms(r.Latency.Max), kib, r.Errors(), statusSummary(r.Status))
	}
	fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t")
	fmt.Fprint(tw, "by resource: n  p50/p99 ms")
	for k := range numKinds {
		fmt.Fprintf(tw, "\t%s", k)
	}
	fmt.Fprintln(tw, "\t")
	for _, r := range results {
		fmt.Fprint(tw, r.Target)
		for k := range numKinds {
			l := r.ByKind[k]
			if l.N == 0 {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%d  %s/%s", l.N, ms(l.P50), ms(l.P99))
		}
		fmt.Fprintln(tw, "\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if len(r.CPU) == 0 || r.Requests == 0 {
			continue
		}
		perRequest := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(r.Requests) }
		var parts []string
		for _, p := range slices.Sorted(maps.Keys(r.CPU)) {
			parts = append(parts, fmt.Sprintf("%s %.2f", p, perRequest(r.CPU[p])))
		}
		machine := ""
		if r.Elsewhere > 0 || r.Idle > 0 {
			machine = fmt.Sprintf("; the rest of the machine %.2f, idle %.2f", perRequest(r.Elsewhere), perRequest(r.Idle))
		}
		if _, err := fmt.Fprintf(w, "CPU ms per request while measuring %s: %s%s\n", r.Target, strings.Join(parts, ", "), machine); err != nil {
			return err
		}
	}
	for _, r := range results {
		if r.Gateway != nil {
			if err := writeGatewayStats(w, r.Target, r.Gateway); err != nil {
				return err
			}
		}
	}
	if len(results) < 2 {
		return nil
	}
	for _, r := range results[1:] {
		c := Compare(results[0], r)
		spread := ""
		if c.RoundMax > 0 {
			spread = fmt.Sprintf(" (rounds %.2fx to %.2fx)", c.RoundMin, c.RoundMax)
		}
		if _, err := fmt.Fprintf(w, "%s vs %s: throughput ratio %.2fx%s, p50 %s ms, p99 %s ms\n",
			c.Target, c.Baseline, c.Throughput, spread, signedMs(c.P50Diff), signedMs(c.P99Diff)); err != nil {
			return err
		}
	}
	return nil
}
