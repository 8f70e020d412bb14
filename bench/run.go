package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"fortio.org/fortio/periodic"
	flog "fortio.org/log"
	"github.com/prometheus/procfs"
)

// RunOptions say how hard and how long to replay a mix.
type RunOptions struct {
	// QPS > 0 runs open-loop: requests start at that total rate, whatever the answers take (as far
	// as Concurrency connections allow). QPS 0 runs closed-loop: Concurrency clients each send
	// the next request as soon as the previous answer is read.
	QPS         float64
	Concurrency int
	// Duration is the measured time per target, split into Rounds phases that alternate between
	// the targets (A B B A ...), so a drift of the machine's load falls on both alike.
	Duration time.Duration
	Rounds   int
	// Requests > 0 measures a count instead of a time, closed loop only: each target answers
	// exactly this many requests, split over the Rounds (a multiple of Rounds, at least Concurrency
	// a round: fortio sends one on every connection), after a warm-up of one round's count if
	// Warmup > 0. Every target then answers the very same requests, where a time lets the faster
	// one go further into the sequence: fairer when few requests fit in the time and their costs
	// vary widely. A round lasts until its slowest connection is done, so its throughput is a
	// little under a timed run's; the CPU per request is not affected.
	Requests int
	// Warmup runs each target unmeasured first, so connections, JIT and caches start warm.
	Warmup time.Duration
	// Timeout bounds one request.
	Timeout time.Duration
	// Progress, when not nil, gets a line as each phase starts.
	Progress io.Writer
	// Processes whose CPU time is charged to the target being measured, phase by phase; the
	// harness itself is always one of them.
	Processes []Process
	// Metrics maps a target's name to its gateway's metrics URL (the admin listener's /metrics),
	// scraped before and after each of its phases: its own time, the limiter's, GC, the cache.
	Metrics map[string]string
}

// Process is a local process whose CPU time a run accounts for.
type Process struct {
	Name string
	PID  int
}

func (o RunOptions) withDefaults() RunOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.Duration <= 0 {
		o.Duration = 20 * time.Second
	}
	if o.Rounds <= 0 {
		o.Rounds = 2
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return o
}

// checkRequests refuses a count that fortio would not send exactly: it sends at least one request
// on every connection, drops a remainder, and paces an open loop by time.
func (o RunOptions) checkRequests() error {
	switch {
	case o.Requests <= 0:
		return nil
	case o.QPS > 0:
		return errors.New("bench: a count of requests measures a closed loop only, not one at a set rate")
	case o.Requests%o.Rounds != 0 || o.Requests/o.Rounds < o.Concurrency:
		return fmt.Errorf("bench: %d requests do not split into %d rounds of at least %d (one a connection)",
			o.Requests, o.Rounds, o.Concurrency)
	}
	return nil
}

var quietFortio sync.Once

// Run replays mix against every target in turn and returns one result per target, in the
// order given. It stops early, with what it measured, when ctx ends.
func Run(ctx context.Context, mix *Mix, targets []Target, opt RunOptions) ([]*Result, error) {
	opt = opt.withDefaults()
	if len(mix.Seq) == 0 || len(targets) == 0 {
		return nil, errors.New("bench: nothing to run")
	}
	if err := opt.checkRequests(); err != nil {
		return nil, err
	}
	quietFortio.Do(func() { flog.SetLogLevelQuiet(flog.Error) })

	// Each target has its own cursors, one per connection, spread over the sequence; they carry
	// on from one phase to the next, so every target replays the same requests.
	cursors := make([][]uint64, len(targets))
	results := make([]*Result, len(targets))
	for i, t := range targets {
		cursors[i] = make([]uint64, opt.Concurrency)
		for c := range cursors[i] {
			cursors[i][c] = uint64(c * len(mix.Seq) / opt.Concurrency)
		}
		results[i] = newResult(t.Name())
	}
	per := span{d: opt.Duration / time.Duration(opt.Rounds)}
	warm := span{d: opt.Warmup}
	if opt.Requests > 0 {
		per = span{n: opt.Requests / opt.Rounds}
		warm = per
	}
	if opt.Warmup > 0 {
		for i, t := range targets {
			progress(opt, "warm-up %s for %s", t.Name(), warm)
			if _, err := phase(ctx, mix, t, cursors[i], opt, warm); err != nil {
				return results, err
			}
		}
	}
	procs := append([]Process{{Name: "harness", PID: os.Getpid()}}, opt.Processes...)
	scraper := NewClient(1, opt.Timeout)
	for round := range opt.Rounds {
		order := make([]int, len(targets))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			progress(opt, "round %d/%d: %s for %s", round+1, opt.Rounds, targets[i].Name(), per)
			url := opt.Metrics[targets[i].Name()]
			var scraped *GatewayStats
			if url != "" {
				var err error
				if scraped, err = Scrape(ctx, scraper, url); err != nil {
					return results, err
				}
			}
			machineBefore, machineOK := machineCPU()
			before := cpuTimes(procs)
			r, err := phase(ctx, mix, targets[i], cursors[i], opt, per)
			after := cpuTimes(procs)
			machineAfter, machineAfterOK := machineCPU()
			if url != "" && err == nil {
				later, serr := Scrape(ctx, scraper, url)
				if serr != nil {
					return results, serr
				}
				results[i].Gateway = results[i].Gateway.Add(later.Sub(scraped))
			}
			var watched time.Duration
			for j, p := range procs {
				if before[j] >= 0 && after[j] >= 0 {
					r.cpu[p.Name] += after[j] - before[j]
					watched += after[j] - before[j]
				}
			}
			if machineOK && machineAfterOK {
				r.Elsewhere = max(machineAfter.busy-machineBefore.busy-watched, 0)
				r.Idle = machineAfter.idle - machineBefore.idle
			}
			results[i].merge(r)
			results[i].Rounds = append(results[i].Rounds, r.rate())
			if err != nil {
				return results, err
			}
		}
	}
	for _, r := range results {
		r.finish()
	}
	return results, nil
}

// cpuTimes reads each process's CPU time; -1 for one that cannot be read.
func cpuTimes(procs []Process) []time.Duration {
	out := make([]time.Duration, len(procs))
	for i, p := range procs {
		d, err := ReadCPU(p.PID)
		if err != nil {
			d = -1
		}
		out[i] = d
	}
	return out
}

// machineTimes are the CPU time all of the machine's CPUs spent busy and idle so far.
type machineTimes struct{ busy, idle time.Duration }

// machineCPU reads machineTimes from /proc/stat; false where it cannot. Busy counts the time
// stolen by a hypervisor, which the machine's processes did not get; idle counts waiting on I/O.
func machineCPU() (machineTimes, bool) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return machineTimes{}, false
	}
	st, err := fs.Stat()
	if err != nil {
		return machineTimes{}, false
	}
	c := st.CPUTotal
	d := func(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
	return machineTimes{busy: d(c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal), idle: d(c.Idle + c.Iowait)}, true
}

func progress(opt RunOptions, format string, args ...any) {
	if opt.Progress != nil {
		fmt.Fprintf(opt.Progress, "bench: "+format+"\n", args...)
	}
}

// worker is one connection's runner: fortio calls Run for each request it paces.
type worker struct {
	mix     *Mix
	target  Target
	cursor  *uint64
	timeout time.Duration
	res     *Result
}

// Run sends the worker's next request and records its latency, size and status.
func (w *worker) Run(context.Context, periodic.ThreadID) (bool, string) {
	seq := *w.cursor
	*w.cursor = seq + 1
	r := w.mix.Seq[seq%uint64(len(w.mix.Seq))]
	ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
	start := time.Now()
	status, n, err := w.target.Do(ctx, r, seq)
	d := time.Since(start)
	cancel()
	if err != nil {
		status = 0
	}
	w.res.record(r.Kind, d, status, n)
	return status >= 200 && status < 300, ""
}

// span is how long a phase runs: n requests in all, or for d when n is 0.
type span struct {
	d time.Duration
	n int
}

func (s span) String() string {
	if s.n > 0 {
		return fmt.Sprintf("%d requests", s.n)
	}
	return s.d.String()
}

// phase runs one target for s and returns what it measured.
func phase(ctx context.Context, mix *Mix, t Target, cursors []uint64, opt RunOptions, s span) (*Result, error) {
	workers := make([]*worker, opt.Concurrency)
	runners := make([]periodic.Runnable, opt.Concurrency)
	for i := range workers {
		workers[i] = &worker{mix: mix, target: t, cursor: &cursors[i], timeout: opt.Timeout, res: newResult(t.Name())}
		runners[i] = workers[i]
	}
	qps := opt.QPS
	if qps <= 0 {
		qps = -1 // fortio's "as fast as the answers come"
	}
	ro := &periodic.RunnerOptions{
		RunType:    "mediagw bench " + t.Name(),
		QPS:        qps,
		Duration:   s.d,
		Exactly:    int64(s.n),
		NumThreads: opt.Concurrency,
		Out:        io.Discard,
		// Connections start staggered rather than in lock-step.
		Uniform: opt.QPS > 0,
	}
	pr := periodic.NewPeriodicRunner(ro)
	// Set after construction: NewPeriodicRunner clears the runners of the options it is given.
	pr.Options().Runners = runners
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			pr.Options().Abort()
		case <-done:
		}
	}()
	rr := pr.Run()
	close(done)
	out := newResult(t.Name())
	for _, w := range workers {
		out.merge(w.res)
	}
	out.elapsed = rr.ActualDuration
	return out, ctx.Err()
}
