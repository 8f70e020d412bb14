package spell

import (
	"context"
	"fmt"
	"sync"
	"time"

	"mediagw/search"
	"mediagw/search/live"
)

// Options tune a Speller. Zero values take the defaults.
type Options struct {
	// Live is the owner of the index version the backend serves (search/live); a new version
	// (not a new set of rules) makes the Speller list its words again, and while it is unknown the
	// words held serve. Nil: the words never change.
	Live *live.Version
	// NoMatches makes Matches give none, for a backend that does not count by them (search/bleve
	// finds a word's matches in its own term dictionaries): listing them costs lookups.
	NoMatches bool
	// LoadTimeout bounds listing the words (default 1m): nobody waits on it once a dictionary is
	// held, and a caller with none waits only until its own deadline.
	LoadTimeout time.Duration
	// Margin is Correct's margin (default DefaultMargin): how many times more items a neighbour
	// must be held by than a word the index holds for the word to look misspelt.
	Margin int
}

// DefaultLoadTimeout is Options.LoadTimeout's default: listing a million items' words takes the
// engine a few seconds.
const DefaultLoadTimeout = time.Minute

// Speller is the did-you-mean at the top of the chain (search/chain): it answers every call of
// search.Backend with the backend it wraps, and corrects a search's misspelt word (Correct) from
// the Dictionary of the words the backend's index holds. It is safe for concurrent use.
type Speller struct {
	search.Backend
	opts Options

	mu sync.Mutex
	// dict holds the words of the index named dictVersion; nil until the first list.
	dict        *Dictionary
	dictVersion string
	// loading is closed when the list in progress ends; nil when none runs. loadErr is the last
	// list's failure.
	loading chan struct{}
	loadErr error
}

// New makes a Speller of next's words, answering the rest with next.
func New(next search.Backend, opts Options) *Speller {
	if opts.LoadTimeout <= 0 {
		opts.LoadTimeout = DefaultLoadTimeout
	}
	if opts.Margin <= 0 {
		opts.Margin = DefaultMargin
	}
	return &Speller{Backend: next, opts: opts}
}

// Correct is the did-you-mean of the search r (see Correct), its alternatives counted by the
// backend the Speller wraps: no call of it when no word of r looks misspelt. A word r.Curation's
// synonyms name is meant as written, never corrected.
func (s *Speller) Correct(ctx context.Context, r *search.Request) (string, error) {
	return Correct(ctx, s.Backend, r, s, s.opts.Margin)
}

// Neighbours is Dictionary.Neighbours of words, from the words of the index the backend serves.
// The first call lists them, and waits until its ctx's deadline for it; after a reindex, the
// words of the index before serve until the new ones are listed, in the background.
func (s *Speller) Neighbours(ctx context.Context, words []string) (map[string][]string, error) {
	d, err := s.dictionary(ctx)
	if err != nil {
		return nil, fmt.Errorf("spell: %w", err)
	}
	return d.Neighbours(words)
}

// Matches is Dictionary.Matches of words, from the words of the index the backend serves, as
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

// Items is Dictionary.Items of words, from the words of the index the backend serves.
func (s *Speller) Items(ctx context.Context, words []string) (map[string]int, error) {
	d, err := s.dictionary(ctx)
	if err != nil {
		return nil, fmt.Errorf("spell: %w", err)
	}
	return d.Items(words), nil
}

// Warm lists the words of the index the backend serves now, unless they are held: a gateway calls
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
	words, err := s.Backend.Words(ctx)
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

// currentVersion is the index the backend serves, as its owner names it (without the rules,
// which change no word); while that is unknown, the one of the words held, or, when none are, the
// one it names when asked now.
func (s *Speller) currentVersion(ctx context.Context) (string, error) {
	if s.opts.Live == nil {
		return "", nil
	}
	if v := s.opts.Live.Named(); v != "" {
		return v, nil
	}
	s.mu.Lock()
	held, v := s.dict != nil, s.dictVersion
	s.mu.Unlock()
	if held {
		return v, nil
	}
	if _, err := s.opts.Live.Ask(ctx); err != nil {
		return "", fmt.Errorf("index version: %w", err)
	}
	return s.opts.Live.Named(), nil
}
