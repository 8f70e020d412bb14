// Package live owns the version of the index a backend serves now (search.Backend.Version): one
// owner per backend, read by everything kept per version (search/cache's answers, search/spell's
// words), so that the engine's alias is asked by one watcher under one policy.
package live

import (
	"context"
	"sync"
	"time"

	"mediagw/search"
)

// Options tune a Version. Zero values take the defaults.
type Options struct {
	// Every is how often the version is asked again. 0 asks it at every read, for a backend that
	// knows it without a call (search/bleve, whose reload loop follows its `current` link); an
	// engine's is asked in the background once the last answer is Every old, so no reader waits
	// on it, and a load goes unnoticed for about this long.
	Every time.Duration
	// Timeout bounds a question asked in the background (default search.DefaultTimeout).
	Timeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultEvery is Options.Every for an engine: an alias lookup every two seconds costs the
// engine nothing worth counting.
const DefaultEvery = 2 * time.Second

// Version is the live index version of one backend. It is safe for concurrent use.
//
// The one policy for a question that fails: the version is unknown ("") until one succeeds, and
// so is a version not confirmed for twice Every (a question that hangs confirms nothing). A
// reader keeps nothing new under an unknown version.
type Version struct {
	ask  func(ctx context.Context) (string, error)
	opts Options

	mu sync.Mutex
	// version is the answer of the question asked at, "" when it failed; asking while one runs.
	version string
	at      time.Time
	asking  bool
}

// New makes the owner of the version ask names (a backend's Version).
func New(ask func(ctx context.Context) (string, error), opts Options) *Version {
	if opts.Timeout <= 0 {
		opts.Timeout = search.DefaultTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Version{ask: ask, opts: opts}
}

// Current returns the version served now and when it was last known to be, or "" when it is
// unknown. With Every, it never waits: it starts a question in the background when the answer
// it holds is Every old.
func (v *Version) Current() (string, time.Time) {
	now := v.opts.Now()
	if v.opts.Every <= 0 {
		// A local question: nothing leaves the process, so no deadline is due.
		s, err := v.ask(context.Background())
		if err != nil {
			return "", time.Time{}
		}
		return s, now
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	age := now.Sub(v.at)
	if v.at.IsZero() {
		age = 2 * v.opts.Every
	}
	if !v.asking && age >= v.opts.Every {
		v.asking = true
		go v.refresh()
	}
	if age >= 2*v.opts.Every {
		return "", time.Time{}
	}
	return v.version, v.at
}

// Ask returns the version, asking now unless an answer at most Every old is held: a readiness
// probe or a start learns it before the first readers need it. A failure is returned and leaves
// what is held.
func (v *Version) Ask(ctx context.Context) (string, error) {
	if v.opts.Every <= 0 {
		return v.ask(ctx)
	}
	started := v.opts.Now()
	v.mu.Lock()
	held, fresh := v.version, !v.at.IsZero() && started.Sub(v.at) < v.opts.Every
	v.mu.Unlock()
	if fresh {
		return held, nil
	}
	s, err := v.ask(ctx)
	if err != nil {
		return "", err
	}
	v.mu.Lock()
	if started.After(v.at) {
		v.version, v.at = s, started
	}
	v.mu.Unlock()
	return s, nil
}

func (v *Version) refresh() {
	started := v.opts.Now()
	ctx, cancel := context.WithTimeout(context.Background(), v.opts.Timeout)
	defer cancel()
	s, err := v.ask(ctx)
	if err != nil {
		s = ""
	}
	v.mu.Lock()
	v.version, v.at, v.asking = s, started, false
	v.mu.Unlock()
}

// Asking reports whether a question runs in the background, for a reader that must know when
// the answer has landed (tests).
func (v *Version) Asking() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.asking
}
