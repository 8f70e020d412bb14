package ratelimit

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
)

// PolicyPollInterval is how often PolicyFile.Watch reads the file again: a change applies within
// a few of them on every replica.
const PolicyPollInterval = time.Second

// PolicyFile is the operator's policies file, read at start and again whenever its content changes.
// It reads through the path every time, so a Kubernetes ConfigMap update (a symlink swapped to a
// new directory) is seen like an edit in place. A file that no longer parses, or cannot be read,
// is logged with its bad lines and counted, and the policies in force are kept. It is a
// prometheus.Collector of
//
//	mediagw_ratelimit_policies_reloads_total{result="loaded|refused"}
//	mediagw_ratelimit_policies  the networks with a policy of their own in force
//
// which the caller registers.
type PolicyFile struct {
	path   string
	logger *zap.Logger
	cur    atomic.Pointer[Policies]

	mu sync.Mutex
	// seen is the digest of the content last parsed, loaded or refused, so each version is parsed
	// and logged once; lastErr is the last failure logged, unreadable says it was a failed read.
	seen       [sha256.Size]byte
	lastErr    string
	unreadable bool

	reloads         *prometheus.CounterVec
	loaded, refused prometheus.Counter
	networksInForce prometheus.Gauge
}

// OpenPolicyFile reads and checks the file at path; its error names every bad line. A nil logger
// logs nothing.
func OpenPolicyFile(path string, logger *zap.Logger) (*PolicyFile, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	f := &PolicyFile{path: path, logger: logger,
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mediagw_ratelimit_policies_reloads_total",
			Help: "Reads of a changed rate-limit policies file, by result: loaded, or refused (the policies in force kept).",
		}, []string{"result"}),
		networksInForce: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mediagw_ratelimit_policies",
			Help: "Networks with a rate-limit policy of their own in force, from the policies file.",
		}),
	}
	f.loaded = f.reloads.WithLabelValues("loaded")
	f.refused = f.reloads.WithLabelValues("refused")
	data, err := f.read()
	if err != nil {
		return nil, err
	}
	ps, err := ParsePolicies(data)
	if err != nil {
		return nil, fmt.Errorf("rate limit policies %s: %w", path, err)
	}
	f.seen = sha256.Sum256(data)
	f.use(ps)
	return f, nil
}

// Current is the policies in force.
func (f *PolicyFile) Current() *Policies { return f.cur.Load() }

// Watch reads the file every interval until ctx ends, putting a changed one in force when it parses.
func (f *PolicyFile) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f.Reload()
		}
	}
}

// Reload reads the file once and, if its content changed, puts it in force or refuses it.
func (f *PolicyFile) Reload() {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, err := f.read()
	if err != nil {
		f.fail(err)
		f.unreadable = true
		return
	}
	if f.unreadable {
		// Readable again: the next failed read is news again.
		f.unreadable, f.lastErr = false, ""
	}
	digest := sha256.Sum256(data)
	if digest == f.seen {
		return
	}
	f.seen = digest
	// Each new version is news, whatever the last failure was.
	f.lastErr = ""
	ps, err := ParsePolicies(data)
	if err != nil {
		f.fail(fmt.Errorf("rate limit policies %s: %w", f.path, err))
		return
	}
	f.use(ps)
	f.loaded.Inc()
	f.logger.Info("rate limit policies loaded", zap.String("path", f.path), zap.Int("policies", len(ps.Networks())))
}

// fail logs and counts a file that cannot be put in force, once per failure in a row: a file
// missing for a minute is one line, not sixty.
func (f *PolicyFile) fail(err error) {
	if msg := err.Error(); msg != f.lastErr {
		f.lastErr = msg
		f.refused.Inc()
		f.logger.Error("rate limit policies refused, the policies in force are kept", zap.String("path", f.path), zap.Error(err))
	}
}

func (f *PolicyFile) use(ps *Policies) {
	f.cur.Store(ps)
	f.networksInForce.Set(float64(len(ps.Networks())))
}

// read reads at most one byte past MaxPoliciesBytes, so a huge file is refused without being held.
func (f *PolicyFile) read() ([]byte, error) {
	file, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("rate limit policies: %w", err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, MaxPoliciesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("rate limit policies %s: %w", f.path, err)
	}
	return data, nil
}

// Describe implements prometheus.Collector.
func (f *PolicyFile) Describe(ch chan<- *prometheus.Desc) {
	f.reloads.Describe(ch)
	f.networksInForce.Describe(ch)
}

// Collect implements prometheus.Collector.
func (f *PolicyFile) Collect(ch chan<- prometheus.Metric) {
	f.reloads.Collect(ch)
	f.networksInForce.Collect(ch)
}

var _ prometheus.Collector = (*PolicyFile)(nil)
