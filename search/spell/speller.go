package spell

import (
	"context"
	"fmt"
	"sync"
	"time"

	"mediagw/search"
)

// Source lists every word an index holds, folded, in any order (a backend: search/engine,
// search/bleve).
type Source interface {
	Words(ctx context.Context) ([]string, error)
}

// Options tune a Speller. Zero values take the defaults.
type Options struct {
	// Version names the index the source serves now; a new name makes the Speller list its words
	// again. Nil: the words never change.
	Version func(ctx context.Context) (string, error)
	// VersionInterval is how often Version is asked: 0 asks it on every call, for a backend that
	// knows its version without a call (search/bleve); an engine's is asked in the background, so
	// a reindex goes unnoticed for about this long (the words of the index before serve meanwhile).
	VersionInterval time.Duration
	// NoMatches makes Matches give none, for a backend that does not count by them (search/bleve
	// finds a word's matches in its own term dictionaries): listing them costs lookups.
	NoMatches bool
	// LoadTimeout bounds listing the words (default 1m): nobody waits on it once a dictionary is
	// held, and a caller with none waits only until its own deadline.
	LoadTimeout time.Duration
}

// DefaultLoadTimeout is Options.LoadTimeout's default: listing a million items' words takes the
// engine a few seconds.
const DefaultLoadTimeout = time.Minute

// Speller holds the Dictionary of the index a Source serves. It is safe for concurrent use.
type Speller struct {
	src  Source
	opts Options

	mu sync.Mutex
	// dict holds the words of the index named dictVersion; nil until the first list.
	dict        *Dictionary
	dictVersion string
	// version is the index the source serves as last asked, at checkedAt; checking while asked.
	version   string
	checkedAt time.Time
	checking  bool
	// loading is closed when the list in progress ends; nil when none runs. loadErr is the last
	// list's failure.
	loading chan struct{}
	loadErr error
}

// New makes a Speller of src's words.
func New(src Source, opts Options) *Speller {
	if opts.LoadTimeout <= 0 {
		opts.LoadTimeout = DefaultLoadTimeout
	}
	return &Speller{src: src, opts: opts}
}

// Neighbours is Dictionary.Neighbours of text, from the words of the index the source serves.
// The first call lists them, and waits until its ctx's deadline for it; after a reindex, the
// words of the index before serve until the new ones are listed, in the background.
func (s *Speller) Neighbours(ctx context.Context, text string) (map[string][]string, error) {
	d, err := s.dictionary(ctx)
	if err != nil {
		return nil, fmt.Errorf("spell: %w", err)
	}
	return d.Neighbours(text)
}

// Matches is Dictionary.Matches of words, from the words of the index the source serves, as
// Neighbours finds them; none with Options.NoMatches.
func (s *Speller) Matches(ctx context.Context, words []string) (search.Matches, error) {
	if s.opts.NoMatches {
		return nil, nil
	}
	d, err := s.dictionary(ctx)
	if err != nil {
		return nil, fmt.Errorf("spell: %w", err)
	}
	return d.Matches(words)
}

// Warm lists the words of the index the source serves now, unless they are held: a gateway calls
// it as it starts, so that the first correction does not wait for them.
func (s *Speller) Warm(ctx context.Context) error {
	_, err := s.dictionary(ctx)
	return err
}

// dictionary is the Dictionary to answer from: the current index's, or, while that one is being
// listed, the one before it.
func (s *Speller) dictionary(ctx context.Context) (*Dictionary, error) {
	v, err := s.currentVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.dict != nil && s.dictVersion == v {
		d := s.dict
		s.mu.Unlock()
		return d, nil
	}
	if s.loading == nil {
		s.loading = make(chan struct{})
		go s.load(v, s.loading)
	}
	done, held := s.loading, s.dict
	s.mu.Unlock()
	if held != nil {
		return held, nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("words of index %s: %w", v, ctx.Err())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dict == nil {
		return nil, s.loadErr
	}
	return s.dict, nil
}

// load lists the words of index v into the Speller, then closes done.
func (s *Speller) load(v string, done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.LoadTimeout)
	defer cancel()
	words, err := s.src.Words(ctx)
	var d *Dictionary
	if err == nil {
		d, err = NewDictionary(words)
	}
	s.mu.Lock()
	if err != nil {
		s.loadErr = fmt.Errorf("words of index %s: %w", v, err)
	} else {
		s.dict, s.dictVersion, s.loadErr = d, v, nil
	}
	s.loading = nil
	s.mu.Unlock()
	close(done)
}

// currentVersion is the index the source serves: asked now when Options.VersionInterval is 0 or
// it was never asked, and otherwise as last asked, a new question starting in the background when
// that is VersionInterval old.
func (s *Speller) currentVersion(ctx context.Context) (string, error) {
	if s.opts.Version == nil {
		return "", nil
	}
	s.mu.Lock()
	asked := !s.checkedAt.IsZero()
	if asked && s.opts.VersionInterval > 0 {
		if !s.checking && time.Since(s.checkedAt) >= s.opts.VersionInterval {
			s.checking = true
			go s.checkVersion()
		}
		v := s.version
		s.mu.Unlock()
		return v, nil
	}
	s.mu.Unlock()
	v, err := s.opts.Version(ctx)
	if err != nil {
		return "", fmt.Errorf("index version: %w", err)
	}
	s.mu.Lock()
	s.version, s.checkedAt = v, time.Now()
	s.mu.Unlock()
	return v, nil
}

// checkVersion asks the version in the background; a failure keeps the last one known, whose
// words are still the best guess.
func (s *Speller) checkVersion() {
	ctx, cancel := context.WithTimeout(context.Background(), search.DefaultTimeout)
	defer cancel()
	v, err := s.opts.Version(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checking = false
	s.checkedAt = time.Now()
	if err == nil {
		s.version = v
	}
}
