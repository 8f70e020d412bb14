package breaker

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/search"
	"mediagw/search/bleve"
	"mediagw/search/searchtest"
)

// engine is a real (embedded) index presented as a remote engine, which fails every call with the
// error in fail while it is set, and holds every call while hold is open.
type engine struct {
	*bleve.Backend
	fail  atomic.Pointer[error]
	hold  atomic.Pointer[chan struct{}]
	calls atomic.Int64
}

func (e *engine) enter(ctx context.Context) error {
	e.calls.Add(1)
	if h := e.hold.Load(); h != nil {
		select {
		case <-*h:
		case <-ctx.Done():
			return fmt.Errorf("engine: %w", ctx.Err())
		}
	}
	if err := e.fail.Load(); err != nil {
		return *err
	}
	return nil
}

func (e *engine) setFail(err error) {
	if err == nil {
		e.fail.Store(nil)
		return
	}
	e.fail.Store(&err)
}

func (e *engine) Item(ctx context.Context, id string) (search.Item, error) {
	if err := e.enter(ctx); err != nil {
		return search.Item{}, err
	}
	return e.Backend.Item(ctx, id)
}

func (e *engine) Search(ctx context.Context, req *search.Request) (search.Result, error) {
	q := req.Query
	if err := e.enter(ctx); err != nil {
		return search.Result{}, err
	}
	return e.Backend.Search(ctx, search.NewRequest(q))
}

func (e *engine) Ping(ctx context.Context) error {
	if err := e.enter(ctx); err != nil {
		return err
	}
	return e.Backend.Ping(ctx)
}

func (e *engine) Version(ctx context.Context) (string, error) {
	if err := e.enter(ctx); err != nil {
		return "", err
	}
	return e.Backend.Version(ctx)
}

func newEngine(t *testing.T) *engine {
	t.Helper()
	b, err := bleve.NewFromItems(t.Context(), t.TempDir(), searchtest.Fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &engine{Backend: b}
}

func newBreaker(t *testing.T, e *engine, opts Options) (*Backend, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	opts.Log = zap.New(core)
	return New(e, opts), logs
}

var (
	errRefused = fmt.Errorf("opensearch search: %w: dial tcp 127.0.0.1:9200: connection refused", search.ErrUnavailable)
	errTimeout = fmt.Errorf("opensearch search: %w", context.DeadlineExceeded)
)

// engineFault is an engine's answer of status as its backend classifies it: a 5xx the engine's
// fault, a 4xx internal.
func engineFault(status int) error {
	err := fmt.Errorf("opensearch search: status %d", status)
	if status >= 500 {
		return &search.Error{Kind: search.KindEngineFault, Err: err}
	}
	return err
}

func item(b *Backend) error {
	_, err := b.Item(context.Background(), "ph-elan-1")
	return err
}

// eventually polls cond until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting until %s", what)
		}
	}
}

// TestOpensAfterFailures: Failures engine failures in a row, of any kind the engine is to blame
// for, open the breaker; then calls fail at once without reaching the engine, as unavailable with
// a time to retry, and the change is logged once.
func TestOpensAfterFailures(t *testing.T) {
	for _, failure := range []error{errRefused, errTimeout, engineFault(503), engineFault(500)} {
		t.Run(failure.Error(), func(t *testing.T) {
			e := newEngine(t)
			b, logs := newBreaker(t, e, Options{Failures: 3, OpenFor: time.Hour})
			e.setFail(failure)
			for i := range 3 {
				if err := item(b); !errors.Is(err, failure) {
					t.Fatalf("call %d: %v, want the engine's error", i+1, err)
				}
			}
			for _, call := range []func() error{func() error { return item(b) }, func() error { return b.Ping(t.Context()) },
				func() error { _, err := b.Version(t.Context()); return err }} {
				err := call()
				var open *OpenError
				var carried *search.Error
				if !errors.As(err, &open) || !errors.Is(err, search.ErrUnavailable) || !errors.As(err, &carried) ||
					carried.Kind != search.KindUnavailable {
					t.Fatalf("breaker open: %v, want an OpenError wrapping ErrUnavailable, classified unavailable", err)
				}
				if carried.RetryAfter < time.Minute || carried.RetryAfter > time.Hour {
					t.Errorf("RetryAfter %v, want up to OpenFor (1h)", carried.RetryAfter)
				}
			}
			if got := e.calls.Load(); got != 3 {
				t.Errorf("the engine got %d calls, want 3: none once open", got)
			}
			if got := testutil.ToFloat64(b.state); got != 2 {
				t.Errorf("mediagw_breaker_state %v, want 2 (open)", got)
			}
			if got := testutil.ToFloat64(b.rejected); got != 3 {
				t.Errorf("mediagw_breaker_rejected_total %v, want 3", got)
			}
			if n := logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 1 || logs.Len() != 1 {
				t.Errorf("logged %d lines (%d warnings), want one warning", logs.Len(), n)
			}
		})
	}
}

// TestQuestionErrorsNeverCount: not found, a bad cursor, a query the engine refuses (a 4xx, or
// OpenSearch's 500 for too many clauses: search.ErrRefused) and a caller that went away are no failures of the engine, however many come, and an answer of any
// kind ends a run of failures.
func TestQuestionErrorsNeverCount(t *testing.T) {
	e := newEngine(t)
	b, _ := newBreaker(t, e, Options{Failures: 2, OpenFor: time.Hour})
	gone, cancel := context.WithCancel(t.Context())
	cancel()
	questions := []func() error{
		func() error { _, err := b.Item(t.Context(), "no-such-item"); return err },
		func() error {
			_, err := b.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, PerPage: 10, Cursor: "garbage"}))
			return err
		},
		func() error { e.setFail(engineFault(400)); defer e.setFail(nil); return item(b) },
		func() error {
			e.setFail(fmt.Errorf("%w: %w", search.ErrRefused, engineFault(500)))
			defer e.setFail(nil)
			return item(b)
		},
		func() error { _, err := b.Item(gone, "ph-elan-1"); return err },
	}
	for range 5 {
		for i, q := range questions {
			if err := q(); err == nil || errors.Is(err, search.ErrUnavailable) {
				t.Fatalf("question %d: %v, want its own error", i, err)
			}
		}
	}
	for i, q := range questions[:4] {
		e.setFail(errRefused)
		item(b)
		e.setFail(nil)
		q()
		if err := item(b); err != nil {
			t.Fatalf("after one failure and question %d, the breaker opened: %v", i, err)
		}
	}
	if got := testutil.ToFloat64(b.state); got != 0 {
		t.Errorf("mediagw_breaker_state %v, want 0 (closed)", got)
	}
}

// TestProbeCloses: once OpenFor has passed, one call probes the engine while the others still fail
// at once; its answer closes the breaker, its failure opens it again.
func TestProbeCloses(t *testing.T) {
	e := newEngine(t)
	b, logs := newBreaker(t, e, Options{Failures: 1, OpenFor: 50 * time.Millisecond})
	e.setFail(errRefused)
	item(b)
	// The probe fails: open again.
	eventually(t, "a probe reaches the engine", func() bool { item(b); return e.calls.Load() == 2 })
	if err := item(b); !errors.As(err, new(*OpenError)) {
		t.Fatalf("after a failed probe: %v, want the breaker open again", err)
	}

	// The engine is back but slow: the probe waits for it, every other call fails at once.
	e.setFail(nil)
	hold := make(chan struct{})
	e.hold.Store(&hold)
	probed := make(chan error, 100)
	eventually(t, "a probe reaches the engine", func() bool {
		if e.calls.Load() == 3 {
			return true
		}
		go func() {
			if err := item(b); !errors.As(err, new(*OpenError)) {
				probed <- err
			}
		}()
		time.Sleep(10 * time.Millisecond)
		return false
	})
	if err := item(b); !errors.As(err, new(*OpenError)) {
		t.Errorf("while the probe is out: %v, want the breaker's error", err)
	}
	close(hold)
	if err := <-probed; err != nil {
		t.Fatalf("probe: %v", err)
	}
	if err := item(b); err != nil {
		t.Errorf("after the probe's answer: %v, want the breaker closed", err)
	}
	if got := testutil.ToFloat64(b.state); got != 0 {
		t.Errorf("mediagw_breaker_state %v, want 0 (closed)", got)
	}
	var msgs []string
	for _, l := range logs.All() {
		msgs = append(msgs, l.Message)
	}
	want := []string{
		"search engine failing: circuit breaker open, calls fail at once",
		"circuit breaker half-open: probing the search engine",
		"search engine probe failed: circuit breaker open again",
		"circuit breaker half-open: probing the search engine",
		"search engine answers again: circuit breaker closed",
	}
	if fmt.Sprint(msgs) != fmt.Sprint(want) {
		t.Errorf("logged\n%q\nwant one line per change:\n%q", msgs, want)
	}
}
