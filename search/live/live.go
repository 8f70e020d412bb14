// Package live owns the version of the index a backend serves now (search.Backend.Version): one
// owner per backend, read by everything kept per version (search/cache's answers, search/spell's
// words) and by the backend itself (search.VersionReader), so that the engine's alias is asked by
// one watcher under one policy.
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
	// Tag, when not nil, names what else the backend serves with the version (search/chain: the
	// operators' rules), read right after each answer and added to it in Current and Ask, so that
	// what readers keep per version is kept per tag too. Named leaves it out.
	Tag func() string
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
	// named is the answer of the question asked at, "" when it failed; version is named with its
	// tag; asking while a question runs.
	named, version string
	at             time.Time
	asking         bool
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

// Current returns the version served now, with its tag, and when it was last known to be, or ""
// when it is unknown. With Every, it never waits: it starts a question in the background when
// the answer it holds is Every old.
func (v *Version) Current() (string, time.Time) {
	_, version, at := v.read()
	return version, at
}

// Named returns the version as the backend names it, without Current's tag, or "" when Current's
// is unknown: for the backend itself, which matches it against the names of its own indices
// (search.LiveVersion). Like Current, it never waits.
func (v *Version) Named() string {
	named, _, _ := v.read()
	return named
}

// read is the version held, as named and with its tag, and when it was known to be.
func (v *Version) read() (named, version string, at time.Time) {
	now := v.opts.Now()
	if v.opts.Every <= 0 {
		// A local question: nothing leaves the process, so no deadline is due.
		named, version, err := v.answer(context.Background())
		if err != nil {
			return "", "", time.Time{}
		}
		return named, version, now
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
		return "", "", time.Time{}
	}
	return v.named, v.version, v.at
}

// Ask returns the version with its tag, asking now unless an answer at most Every old is held: a
// readiness probe or a start learns it before the first readers need it. A failure is returned
// and leaves what is held.
func (v *Version) Ask(ctx context.Context) (string, error) {
	if v.opts.Every <= 0 {
		_, version, err := v.answer(ctx)
		return version, err
	}
	started := v.opts.Now()
	v.mu.Lock()
	// A failed question ("") is no answer to hold: it is asked again.
	held, fresh := v.version, v.version != "" && started.Sub(v.at) < v.opts.Every
	v.mu.Unlock()
	if fresh {
		return held, nil
	}
	named, version, err := v.answer(ctx)
	if err != nil {
		return "", err
	}
	v.mu.Lock()
	if started.After(v.at) {
		v.named, v.version, v.at = named, version, started
	}
	v.mu.Unlock()
	return version, nil
}

// answer asks the version now: as the backend names it, and with its tag.
func (v *Version) answer(ctx context.Context) (named, version string, err error) {
	named, err = v.ask(ctx)
	if err != nil {
		return "", "", err
	}
	if v.opts.Tag == nil {
		return named, named, nil
	}
	return named, named + v.opts.Tag(), nil
}

func (v *Version) refresh() {
	started := v.opts.Now()
	ctx, cancel := context.WithTimeout(context.Background(), v.opts.Timeout)
	defer cancel()
	named, version, _ := v.answer(ctx)
	v.mu.Lock()
	v.named, v.version, v.at, v.asking = named, version, started, false
	v.mu.Unlock()
}

// Asking reports whether a question runs in the background, for a reader that must know when
// the answer has landed (tests).
func (v *Version) Asking() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.asking
}

var _ search.LiveVersion = (*Version)(nil)
