package admit

import (
	"fmt"
	"math"
	"net/netip"
	"time"

	"mediagw/search"
)

// A visitor is heavy when its recent engine time is more than heavyFloor and either more than
// 1/heavyShare of all visitors' or more than heavyMean times the average visitor's; the accounts
// of that time fade by half every heavyHalfLife. Shares, not an absolute time: on CPUs slowed by
// costly searches everyone's calls take longer, so eighty visitors at a person's pace each stay
// a small part of the total, where one sending costly searches one after another holds a slot
// all the time (7.2 s, heavyHalfLife/ln 2) and stays above 1/8 until the others' calls are slowed
// about tenfold. The average catches many such visitors at once, each under 1/8 of the total but
// far above what the others take. The floor keeps a lone visitor, all of a quiet engine's time,
// anyone.
const (
	heavyShare    = 8 // a visitor is heavy past 1/heavyShare of the total
	heavyMean     = 4 // or past heavyMean times the average visitor's
	heavyFloor    = time.Second
	heavyHalfLife = 5 * time.Second
	// minSweep is how many visitors the accounts hold before they forget idle ones at once,
	// rather than once every heavyHalfLife.
	minSweep = 1024
)

// An IPv6 range is one visitor for the shares once more than rangeVisitors of its /64s are
// known at once (a /56), or more than 4 x rangeVisitors (a /48): a host can take any /64 of
// the range its network was given, and a /56 holds 256 of them.
const rangeVisitors = 4

// accounts keep any one visitor (VisitorOf) from filling the slots and the queue: a
// visitor holds at most share of them together (running or waiting), and so does a heavy one,
// which has lately taken a large share of the engine's time, sending costly searches one after
// another however few at once. Past that, a visitor's call runs only on a slot free now that
// leaves half the slots to the others, and is refused at once otherwise (ShareError): visitors
// sending the costliest searches one after another hold half the slots, and the others'
// searches keep answering. The accounts are the Backend's, under its lock.
type accounts struct {
	visitors map[string]*account
	// ranges are the IPv6 /56 and /48 accounts of the visitors known, for as long as one is.
	ranges map[netip.Prefix]*account
	// total is all visitors' engine time, decayed as theirs: the forgotten ones' too.
	total account
	// The accounts forget idle visitors at sweepAt, or once they hold sweepCount.
	sweepAt    time.Time
	sweepCount int
}

// account is one visitor's (or IPv6 range's) calls and engine time, decayed to at.
type account struct {
	// held counts the calls running or waiting for a slot that count in this account's share.
	held int
	// pending counts the calls past the share waiting for one of held to end.
	pending int
	// freed, when not nil, is closed as soon as held goes down: pending calls wait on it.
	freed chan struct{}
	// busy is the engine time of the calls ended, and of each call refused as much as the
	// average of those (what it asked for: refusals do not make a heavy visitor light), over
	// calls calls, both decayed to at.
	busy  time.Duration
	calls float64
	at    time.Time
	// members is, for a range, how many visitors within it the accounts know.
	members int
	// within are an IPv6 visitor's /56 and /48 accounts (VisitorRanges).
	within []*account
}

func newAccounts() accounts {
	return accounts{visitors: map[string]*account{}, ranges: map[netip.Prefix]*account{}, sweepCount: minSweep}
}

// free counts out one of a's calls and wakes those waiting for it.
func (a *account) free() {
	a.held--
	if a.freed != nil {
		close(a.freed)
		a.freed = nil
	}
}

// waitFree counts in a call waiting for one of a's to end, and is what it waits on.
func (a *account) waitFree() <-chan struct{} {
	if a.freed == nil {
		a.freed = make(chan struct{})
	}
	a.pending++
	return a.freed
}

// decayed is a's engine time as of now.
func (a *account) decayed(now time.Time) time.Duration {
	if !now.After(a.at) {
		return a.busy
	}
	f := math.Exp2(-float64(now.Sub(a.at)) / float64(heavyHalfLife))
	a.busy, a.calls, a.at = time.Duration(float64(a.busy)*f), a.calls*f, now
	return a.busy
}

// charge adds a call's engine time to a.
func (a *account) charge(now time.Time, took time.Duration) {
	a.decayed(now)
	a.busy += took
	a.calls++
}

// average is a's engine time per call lately.
func (a *account) average(now time.Time) time.Duration {
	if a.decayed(now); a.calls <= 0 {
		return 0
	}
	return time.Duration(float64(a.busy) / a.calls)
}

// idle says whether a may be forgotten: nothing counted in it and next to no engine time left.
func (a *account) idle(now time.Time) bool {
	return a.held == 0 && a.pending == 0 && a.members == 0 && a.decayed(now) < heavyFloor/64
}

// lookup is the account visitor's calls count in for the shares, its own or its range's
// (rangeVisitors), and every account their engine time is charged to, the total's last.
func (s *accounts) lookup(visitor string, now time.Time) (share *account, charged []*account) {
	s.sweep(now)
	a := s.visitors[visitor]
	if a == nil {
		a = &account{at: now}
		for _, p := range VisitorRanges(visitor) {
			r := s.ranges[p]
			if r == nil {
				r = &account{at: now}
				s.ranges[p] = r
			}
			r.members++
			a.within = append(a.within, r)
		}
		s.visitors[visitor] = a
	}
	share = a
	// The widest range past its bound: a /48's bound is four times a /56's.
	for i, r := range a.within {
		if r.members > rangeVisitors<<(2*i) {
			share = r
		}
	}
	charged = append(append([]*account{a}, a.within...), &s.total)
	return share, charged
}

// heavy reports whether a has lately taken more than its share of all visitors' engine time.
func (s *accounts) heavy(a *account, now time.Time) bool {
	busy := float64(a.decayed(now))
	total := float64(s.total.decayed(now))
	return busy > float64(heavyFloor) && (busy*heavyShare > total || busy*float64(len(s.visitors)) > heavyMean*total)
}

// sweep forgets the visitors and ranges with nothing running and next to no engine time, once
// every heavyHalfLife or as soon as the accounts hold sweepCount visitors, so that they stay as
// small as the visitors who use the engine and a range's members are the visitors active lately.
func (s *accounts) sweep(now time.Time) {
	if now.Before(s.sweepAt) && len(s.visitors) < s.sweepCount {
		return
	}
	for v, a := range s.visitors {
		if a.idle(now) {
			for _, r := range a.within {
				r.members--
			}
			delete(s.visitors, v)
		}
	}
	for p, r := range s.ranges {
		if r.idle(now) {
			delete(s.ranges, p)
		}
	}
	s.sweepAt = now.Add(heavyHalfLife)
	s.sweepCount = max(minSweep, 2*len(s.visitors))
}

// ShareError is the error of a call refused because its visitor held its share of the slots and
// the queue, or had lately kept the engine busy, while the others might need them. It is a
// search.ErrOverloaded.
type ShareError struct {
	Share int
	Heavy bool
}

func (e *ShareError) Error() string {
	if e.Heavy {
		return fmt.Sprintf("the visitor's calls kept the engine busy lately: past its share of %d engine calls while the others may need them", e.Share)
	}
	return fmt.Sprintf("the visitor holds its share of %d engine calls in progress or waiting", e.Share)
}

// Unwrap makes the error a search.ErrOverloaded.
func (e *ShareError) Unwrap() error { return search.ErrOverloaded }
