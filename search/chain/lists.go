package chain

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"mediagw/search"
)

// listsTimeout bounds the counting of one version's whole lists: nobody waits on it, and on a
// large index it takes longer than a visitor would wait.
const listsTimeout = time.Minute

// listsRetry is how long a failed build waits before the next one starts.
const listsRetry = 2 * time.Second

// lists owns the whole lists of the version served, each with its index: built before they are
// served, once at the start and once for each new version, the previous version's lists served
// until the new one's are built, so that no visitor waits on the engine's count of every author.
type lists struct {
	// src answers Categories and Authors: the meter, so that their count is an engine call.
	src search.Backend
	// named is the version served as the backend names it, "" when unknown.
	named func() string
	log   *zap.Logger
	now   func() time.Time

	mu sync.Mutex
	// held is the lists served, nil until the first are built; building while a build runs;
	// failedAt is when the last build failed.
	held     *search.Lists
	building bool
	failedAt time.Time
}

func newLists(src search.Backend, named func() string, log *zap.Logger) *lists {
	if log == nil {
		log = zap.NewNop()
	}
	return &lists{src: src, named: named, log: log, now: time.Now}
}

// get returns the lists held, nil while none are built, and starts a build in the background when
// the version served is not theirs.
func (l *lists) get() *search.Lists {
	return l.notice(l.named())
}

// notice is get for a reader that knows the version served already.
func (l *lists) notice(v string) *search.Lists {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v != "" && (l.held == nil || l.held.Version != v) && !l.building && l.now().Sub(l.failedAt) >= listsRetry {
		l.building = true
		go l.build(v)
	}
	return l.held
}

// build counts the lists of version v and serves them, unless the version served moved while they
// were counted: they may then hold either index's counts, and the next reader starts again.
func (l *lists) build(v string) {
	ctx, cancel := context.WithTimeout(context.Background(), listsTimeout)
	defer cancel()
	started := l.now()
	built, err := l.count(ctx, v)
	if err == nil && l.named() != v {
		built = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.building = false
	if err != nil {
		l.failedAt = l.now()
		l.log.Warn("the whole lists cannot be counted; serving the ones held", zap.String("index", v), zap.Error(err))
		return
	}
	if built != nil {
		l.held = built
		l.log.Info("whole lists built", zap.String("index", v), zap.Int("categories", len(built.Categories)),
			zap.Int("authors", len(built.Authors)), zap.Duration("took", l.now().Sub(started)))
	}
}

// count asks for version v's lists and indexes them.
func (l *lists) count(ctx context.Context, v string) (out *search.Lists, err error) {
	// Asked in the background, where no request's recovery would catch a backend's panic.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("whole lists: panic: %v", r)
		}
	}()
	cats, err := l.src.Categories(ctx, search.Query{})
	if err != nil {
		return nil, fmt.Errorf("whole lists of %s: %w", v, err)
	}
	authors, err := l.src.Authors(ctx, search.Query{})
	if err != nil {
		return nil, fmt.Errorf("whole lists of %s: %w", v, err)
	}
	return &search.Lists{Version: v, Categories: cats, CategoryIndex: search.NewListIndex(cats),
		Authors: authors, AuthorIndex: search.NewListIndex(authors)}, nil
}
