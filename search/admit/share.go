package admit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"mediagw/search"
)

// A visitor is heavy when its recent engine time is more than 1/heavyShare of all visitors' and
// more than heavyFloor; the accounts of that time fade by half every heavyHalfLife. A share, not
// an absolute time: on CPUs slowed by costly searches everyone's calls take longer, so eighty
// visitors at a person's pace each stay a small part of the total, where one sending costly
// searches one after another holds a slot all the time (7.2 s, heavyHalfLife/ln 2) and stays
// above 1/8 until the others' calls are slowed about tenfold. The floor keeps a lone visitor, all
// of a quiet engine's time, anyone.
const (
	heavyShare    = 8 // a visitor is heavy past 1/heavyShare of the total
	heavyFloor    = time.Second
	heavyHalfLife = 5 * time.Second
	// minSweep is how many visitors the account holds before it forgets idle ones.
	minSweep = 1024
)

// shares keeps any one visitor (search.VisitorOf) from filling the slots: a visitor holds at most
// share of them (max(1, Limit/4)), and so does a heavy one, which has lately taken a large share
// of the engine's time, sending costly searches one after another however few at once. Past
// that, a visitor's call runs only on a slot free now that leaves half the slots to the others,
// and is refused at once otherwise (ShareError): two visitors sending the costliest searches one
// after another on two slots hold one, and the others' searches keep answering.
type shares struct {
	limit, share int
	now          func() time.Time

	mu sync.Mutex
	// running counts the calls holding a slot, a visitor's or not.
	running  int
	visitors map[string]*account
	// total is all visitors' engine time, decayed as theirs: the forgotten ones' too.
	total   account
	sweepAt int
}

// account is one visitor's calls running and engine time, decayed to at.
type account struct {
	held int
	busy time.Duration
	at   time.Time
	// freed, when not nil, is closed as soon as held goes down: the visitor's calls past its
	// share wait on it for their turn.
	freed chan struct{}
}

// free counts out one of a's calls and wakes those waiting for it.
func (a *account) free() {
	a.held--
	if a.freed != nil {
		close(a.freed)
		a.freed = nil
	}
}

func newShares(limit int) *shares {
	return &shares{limit: limit, share: max(1, limit/4), now: time.Now, visitors: map[string]*account{}, sweepAt: minSweep}
}

// ShareError is the error of a call refused because its visitor held its share of the slots, or
// had lately kept the engine busy, while the others might need them. It is a search.ErrOverloaded.
type ShareError struct {
	Share int
	Heavy bool
	Retry time.Duration
}

func (e *ShareError) Error() string {
	if e.Heavy {
		return fmt.Sprintf("the visitor's calls kept the engine busy lately: past its share of %d engine calls while the others may need them", e.Share)
	}
	return fmt.Sprintf("the visitor holds its share of %d engine calls in progress", e.Share)
}

// Unwrap makes the error a search.ErrOverloaded.
func (e *ShareError) Unwrap() error { return search.ErrOverloaded }

// RetryAfter is how long a client should wait before asking again.
func (e *ShareError) RetryAfter() time.Duration { return e.Retry }

// decayed is a's engine time as of now.
func (a *account) decayed(now time.Time) time.Duration {
	if !now.After(a.at) {
		return a.busy
	}
	f := math.Exp2(-float64(now.Sub(a.at)) / float64(heavyHalfLife))
	a.busy, a.at = time.Duration(float64(a.busy)*f), now
	return a.busy
}

// enter counts a call of visitor in. Within its share it must take its turn as anyone's (took
// false): the caller then acquires a slot and calls started, or left if it got none. Past its
// share it takes a slot at once with try (took true), if the calls running leave half the slots to
// others; otherwise it is refused (err), and, unless the visitor is heavy, freed is closed when
// one of its own calls ends: a caller that waits on it may enter again (a search box's
// overlapping requests queue behind their own).
func (s *shares) enter(visitor string, try func() bool, retry time.Duration) (took bool, freed <-chan struct{}, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.visitors[visitor]
	if a == nil {
		s.sweep()
		a = &account{at: s.now()}
		s.visitors[visitor] = a
	}
	heavy := s.heavy(a)
	if a.held < s.share && !heavy {
		a.held++
		return false, nil, nil
	}
	if s.running+1 > max(1, s.limit/2) || !try() {
		if !heavy && a.held > 0 {
			if a.freed == nil {
				a.freed = make(chan struct{})
			}
			freed = a.freed
		}
		return false, freed, &ShareError{Share: s.share, Heavy: heavy, Retry: retry}
	}
	a.held++
	s.running++
	return true, nil, nil
}

// started counts a call that took its turn as anyone's and got a slot.
func (s *shares) started() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running++
}

// left counts out a call of visitor that took its turn as anyone's and got no slot.
func (s *shares) left(visitor string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.visitors[visitor].free()
}

// ended counts out a call of visitor that held a slot for took.
func (s *shares) ended(visitor string, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	a := s.visitors[visitor]
	a.free()
	a.decayed(s.now())
	a.busy += took
	s.total.decayed(s.now())
	s.total.busy += took
}

// heavy reports whether a has lately taken more than its share of all visitors' engine time.
func (s *shares) heavy(a *account) bool {
	now := s.now()
	busy := a.decayed(now)
	return busy > heavyFloor && busy*heavyShare > s.total.decayed(now)
}

// sweep forgets the visitors with nothing running and next to no engine time once the account
// holds sweepAt of them, so that it stays as small as the visitors who use the engine.
func (s *shares) sweep() {
	if len(s.visitors) < s.sweepAt {
		return
	}
	now := s.now()
	for v, a := range s.visitors {
		if a.held == 0 && a.decayed(now) < heavyFloor/64 {
			delete(s.visitors, v)
		}
	}
	s.sweepAt = max(minSweep, 2*len(s.visitors))
}

// enterShare enters a call of visitor (shares.enter), waiting up to Options.Wait for one of the
// visitor's own calls to end when it is past its share.
func (b *Backend) enterShare(ctx context.Context, visitor string) (took bool, err error) {
	var timeout <-chan time.Time
	for {
		took, freed, err := b.shares.enter(visitor, func() bool { return b.sem.TryAcquire(1) }, b.opts.RetryAfter)
		if freed == nil {
			return took, err
		}
		if timeout == nil {
			t := time.NewTimer(b.opts.Wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-freed:
		case <-timeout:
			return false, err
		case <-ctx.Done():
			return false, fmt.Errorf("waiting for admission: %w", ctx.Err())
		}
	}
}

// admit takes a slot for a call of ctx's visitor, within its share; the caller must call the
// returned release once the call has ended.
func (b *Backend) admit(ctx context.Context) (release, error) {
	visitor := search.VisitorOf(ctx)
	if visitor == "" {
		// A call of the process's own: no one's share.
		if err := b.acquire(ctx); err != nil {
			return nil, err
		}
		return b.release, nil
	}
	took, err := b.enterShare(ctx, visitor)
	switch {
	case err != nil && ctx.Err() != nil:
		// The caller left or ran out of time while waiting: not a refusal.
		return nil, err
	case err != nil:
		b.admissions.WithLabelValues(resultRefused).Inc()
		return nil, err
	case took:
		b.admissions.WithLabelValues(resultAdmitted).Inc()
		b.inFlight.Inc()
	default:
		if err := b.acquire(ctx); err != nil {
			b.shares.left(visitor)
			return nil, err
		}
		b.shares.started()
	}
	start := b.shares.now()
	return func() {
		b.shares.ended(visitor, b.shares.now().Sub(start))
		b.release()
	}, nil
}
