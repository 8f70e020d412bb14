// Package live owns what a backend serves now: the version of its index (search.Backend.Version)
// and the operators' synonyms and pins stored beside it (search/curation), as one snapshot. One
// owner per backend, read by everything kept per version (search/cache's answers, search/spell's
// words), by the chain that hands the rules to each query (search/chain) and by the backend
// itself (search.VersionReader), so that the engine is asked by one watcher under one policy.
package live

import (
	"context"
	"sync"
	"time"

	"mediagw/search"
	"mediagw/search/curation"
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
	// Rules, when not nil, reads the operators' rules stored beside the version
	// (curation.Store.Rules, given the set held): beside each background question of the
	// version, and with Every 0 in the background every DefaultEvery. A failed read keeps the set
	// held and leaves the version known.
	Rules func(ctx context.Context, held *curation.Rules) (*curation.Rules, error)
	// RulesRead, when not nil, hears the outcome of each read of the rules (nil when it
	// succeeded): the chain logs and counts the failures.
	RulesRead func(err error)
	// Languages, when not nil, asks which languages with a stemmer the index served holds: once
	// per version, in the background after the question that names a new one, and again
	// DefaultEvery after a failure.
	Languages func(ctx context.Context) ([]string, error)
}

// DefaultEvery is Options.Every for an engine: an alias lookup every two seconds costs the
// engine nothing worth counting. It is also how often an embedded backend's rules are read.
const DefaultEvery = 2 * time.Second

// Snapshot is what a backend serves at one time.
type Snapshot struct {
	// Named is the version as the backend names it, "" when it is unknown.
	Named string
	// Version is Named with the rules' digest, "" when it is unknown: what readers keep answers
	// by, so that a new set is served at once.
	Version string
	// At is when the version was last known to be.
	At time.Time
	// Rules is the set served: the last one read (none before the first read).
	Rules *curation.Rules
	// RulesErr is the last read's failure, nil when it succeeded; RulesFailing is since when reads
	// fail.
	RulesErr     error
	RulesFailing time.Time
	// Languages are the languages with a stemmer the version holds (Options.Languages), as a
	// search carries them (search.Request.Held); empty while they are not known of it.
	Languages search.List
}

// Curation is the set as a search carries it (search.Request.Curation).
func (s Snapshot) Curation() search.Curation { return s.Rules.Served() }

// Version is the live index version of one backend with its rules. It is safe for concurrent use.
//
// The one policy for a question that fails: the version is unknown ("") until one succeeds, and
// so is a version not confirmed for twice Every (a question that hangs confirms nothing). A
// reader keeps nothing new under an unknown version. A read of the rules that fails keeps the
// set held: the version stays known.
type Version struct {
	ask  func(ctx context.Context) (string, error)
	opts Options

	mu sync.Mutex
	// named is the answer of the question asked at, "" when it failed; asking while a question
	// runs.
	named  string
	at     time.Time
	asking bool
	// rules is the set held, read at rulesAt; rulesErr the last read's failure, since failing;
	// readingRules while a read runs in the background.
	rules            *curation.Rules
	rulesAt, failing time.Time
	rulesErr         error
	readingRules     bool
	// langs are the languages held by the version langsOf; langsTried is when they were last
	// asked, readingLangs while they are asked in the background.
	langs        search.List
	langsOf      string
	langsTried   time.Time
	readingLangs bool
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

// Current returns the version served now, with its rules' digest, and when it was last known to
// be, or "" when it is unknown. With Every, it never waits: it starts a question in the
// background when the answer it holds is Every old.
func (v *Version) Current() (string, time.Time) {
	s := v.Snapshot()
	return s.Version, s.At
}

// Named returns the version as the backend names it, without the rules' digest, or "" when
// Current's is unknown: for the backend itself, which matches it against the names of its own
// indices (search.LiveVersion). Like Current, it never waits.
func (v *Version) Named() string { return v.Snapshot().Named }

// Snapshot is what the backend serves now. Like Current, it never waits, but with Every 0 on the
// backend's own question of its version, which leaves the process for nothing.
func (v *Version) Snapshot() Snapshot {
	now := v.opts.Now()
	if v.opts.Every <= 0 {
		// A local question: nothing leaves the process, so no deadline is due.
		named, err := v.ask(context.Background())
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.opts.Rules != nil && !v.readingRules && now.Sub(v.rulesAt) >= DefaultEvery {
			v.readingRules = true
			go v.refreshRules()
		}
		if err == nil && v.wantLanguages(named, now) {
			v.langsTried, v.readingLangs = now, true
			go v.askLanguages(named)
		}
		if err != nil {
			return v.snapshot("", time.Time{})
		}
		return v.snapshot(named, now)
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
		return v.snapshot("", time.Time{})
	}
	return v.snapshot(v.named, v.at)
}

// snapshot is named, known at, with the rules held. v.mu is held.
func (v *Version) snapshot(named string, at time.Time) Snapshot {
	s := Snapshot{Named: named, At: at, Rules: v.rules, RulesErr: v.rulesErr, RulesFailing: v.failing}
	if named != "" && named == v.langsOf {
		s.Languages = v.langs
	}
	if named != "" {
		s.Version = named
		if d := v.rules.Digest(); d != "" {
			s.Version += "+rules-" + d
		}
	}
	return s
}

// Ask returns the version with its rules' digest, asking now (the rules too) unless an answer at
// most Every old is held: a readiness probe or a start learns it before the first readers need
// it. A failed question of the version is returned and leaves what is held.
func (v *Version) Ask(ctx context.Context) (string, error) {
	started := v.opts.Now()
	if v.opts.Every > 0 {
		v.mu.Lock()
		// A failed question ("") is no answer to hold: it is asked again.
		fresh := v.named != "" && started.Sub(v.at) < v.opts.Every
		s := v.snapshot(v.named, v.at)
		v.mu.Unlock()
		if fresh {
			return s.Version, nil
		}
	}
	named, err := v.ask(ctx)
	if err != nil {
		return "", err
	}
	v.readRules(ctx, started)
	v.readLanguages(named, started)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.opts.Every > 0 && started.After(v.at) {
		v.named, v.at = named, started
	}
	return v.snapshot(named, started).Version, nil
}

// refresh asks the version in the background, and reads the rules beside it.
func (v *Version) refresh() {
	started := v.opts.Now()
	ctx, cancel := context.WithTimeout(context.Background(), v.opts.Timeout)
	defer cancel()
	named, err := v.ask(ctx)
	if err != nil {
		named = ""
	} else {
		v.readRules(ctx, started)
		v.readLanguages(named, started)
	}
	v.mu.Lock()
	v.named, v.at, v.asking = named, started, false
	v.mu.Unlock()
}

// refreshRules reads the rules in the background, for a version asked at every read.
func (v *Version) refreshRules() {
	ctx, cancel := context.WithTimeout(context.Background(), v.opts.Timeout)
	defer cancel()
	v.readRules(ctx, v.opts.Now())
	v.mu.Lock()
	v.readingRules = false
	v.mu.Unlock()
}

// wantLanguages reports whether the languages of the version named are still to be asked at now:
// not known of it, not being asked, and not asked within DefaultEvery. v.mu is held.
func (v *Version) wantLanguages(named string, now time.Time) bool {
	return v.opts.Languages != nil && named != v.langsOf && !v.readingLangs && now.Sub(v.langsTried) >= DefaultEvery
}

// readLanguages asks the languages the version named holds in the background, unless they are
// known or were asked lately: a slow question delays neither the version nor a readiness probe.
func (v *Version) readLanguages(named string, started time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.wantLanguages(named, started) {
		v.langsTried, v.readingLangs = started, true
		go v.askLanguages(named)
	}
}

// askLanguages asks the languages held and keeps them as those of the version named if it is
// still the one served once they are known: a load between the two questions would give one
// version the other's languages.
func (v *Version) askLanguages(named string) {
	ctx, cancel := context.WithTimeout(context.Background(), v.opts.Timeout)
	defer cancel()
	langs, err := v.opts.Languages(ctx)
	kept := false
	if err == nil {
		again, err := v.ask(ctx)
		kept = err == nil && again == named
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.readingLangs = false
	if kept {
		v.langs, v.langsOf = search.ListOf(langs...), named
	}
}

// readRules reads the rules stored now into the set held, or keeps it when the read fails.
func (v *Version) readRules(ctx context.Context, started time.Time) {
	if v.opts.Rules == nil {
		return
	}
	v.mu.Lock()
	held := v.rules
	v.mu.Unlock()
	r, err := v.opts.Rules(ctx, held)
	v.mu.Lock()
	if started.After(v.rulesAt) || v.rulesAt.IsZero() {
		v.rulesAt = started
		switch {
		case err != nil && v.rulesErr == nil:
			v.rulesErr, v.failing = err, started
		case err != nil:
			v.rulesErr = err
		default:
			v.rules, v.rulesErr, v.failing = r, nil, time.Time{}
		}
	}
	v.mu.Unlock()
	if v.opts.RulesRead != nil {
		v.opts.RulesRead(err)
	}
}

// Asking reports whether a question runs in the background, for a reader that must know when
// the answer has landed (tests).
func (v *Version) Asking() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.asking || v.readingRules || v.readingLangs
}

var _ search.LiveVersion = (*Version)(nil)
