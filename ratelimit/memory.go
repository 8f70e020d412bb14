package ratelimit

import (
	"context"
	"hash/maphash"
	"strconv"
	"sync"
	"time"
)

const (
	// shardCount spreads visitors over independently locked maps; a power of two.
	shardCount = 64
	// minSweep is how many visitors a shard holds before it first looks for idle ones.
	minSweep = 1024
	// luaEpoch is the epoch redis_rate's script counts from (2017-01-01 UTC); counting from
	// the same one keeps the floating-point arithmetic, and so the numbers, identical.
	luaEpoch = 1483228800
	// speculateMarginPercent is the share of its policy's limit a visitor must have left, by what
	// this replica knows, for its next request to run before its decision. Other replicas count the
	// visitor too: only one that spends more than this share elsewhere between two of its requests
	// here can have a request refused after it ran (its answer thrown away, the limit holding,
	// engine work lost). A visitor nearing the limit, where refusals begin, waits for its decision,
	// as does one this replica does not know.
	speculateMarginPercent = 10
)

// Memory is a replica's one memory of its visitors, and the in-process GCRA limiter. It computes
// exactly what redis_rate v10 computes for redis_rate.Limit{Rate: Limit, Burst: Limit, Period:
// Window}, step by step in float64 seconds, so a visitor gets the same numbers whether the limit
// is kept here or in Redis. Beside Redis (through Fallback) it holds one state per visitor that
// every in-process reader shares: the TAT Redis last reported (a lower bound of the shared one),
// moved on by the requests decided here while Redis fails; Shadow answers standings and refusals
// from it, and the gateway's speculation reserves requests against it.
//
// A visitor whose theoretical arrival time (TAT) has passed is back at the full limit and is
// indistinguishable from one never seen, so it is dropped: when a new visitor arrives, its shard
// sweeps the idle ones if it has doubled since the last sweep or a window has passed. The maps
// hold the visitors still draining (Window/Limit per request made), not every visitor ever seen,
// and those with a request reserved (Reserve) and not yet decided.
type Memory struct {
	def gcra
	err error
	now func() time.Time

	window float64 // seconds between time-driven sweeps

	seed   maphash.Seed
	shards [shardCount]shard
}

// gcra is a policy with the numbers its script derives from it.
type gcra struct {
	p           Policy
	emission    float64 // seconds between requests at the steady rate (Lua: period / rate)
	burstOffset float64 // Lua: emission_interval * burst
}

func newGCRA(p Policy) gcra {
	g := gcra{p: p, emission: p.Window.Seconds() / float64(p.Limit)}
	g.burstOffset = g.emission * float64(p.Limit)
	return g
}

// under is the policy ctx's call is decided under (WithPolicy), else the limiter's own.
func (m *Memory) under(ctx context.Context) gcra {
	if p := policyOf(ctx, m.def.p); p != m.def.p {
		return newGCRA(p)
	}
	return m.def
}

type shard struct {
	mu sync.Mutex
	// visitors maps a visitor key to what is known of it.
	visitors  map[string]visitor
	nextSweep int      // sweep when the map reaches this many visitors
	peak      int      // most visitors since the map was allocated: Go maps never shrink
	lastSweep float64  // seconds since luaEpoch
	_         [64]byte // keeps neighbouring shards' locks off one cache line
}

// visitor is one visitor's state: its theoretical arrival time in seconds since luaEpoch, and how
// many of its requests run reserved and not yet decided.
type visitor struct {
	tat      float64
	inFlight int
}

// NewMemory returns an in-process limiter for p reading the time from now (time.Now when nil).
// An invalid p makes every Allow return the error of p.Validate. A call whose context names
// another policy (WithPolicy) is decided under that one.
func NewMemory(p Policy, now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{def: gcra{p: p}, err: p.Validate(), now: now, seed: maphash.MakeSeed()}
	if m.err != nil {
		return m
	}
	m.def = newGCRA(p)
	m.window = p.Window.Seconds()
	start := luaNow(now())
	for i := range m.shards {
		m.shards[i].visitors = make(map[string]visitor)
		m.shards[i].nextSweep = minSweep
		m.shards[i].lastSweep = start
	}
	return m
}

// Allow counts one request by the visitor key and says whether it may proceed. It never fails
// for a valid policy; ctx is unused because nothing leaves the process.
func (m *Memory) Allow(ctx context.Context, key string) (Decision, error) {
	if m.err != nil {
		return Decision{}, m.err
	}
	g := m.under(ctx)
	now := luaNow(m.now())
	s := m.shard(key)

	s.mu.Lock()
	v, seen := s.visitors[key]
	tat := v.tat
	// The script's GET of an expired key and math.max(tat, now) both start from now.
	if !seen || tat < now {
		tat = now
	}
	newTAT, remaining, diff := g.script(tat, now, 1)
	if remaining < 0 {
		s.mu.Unlock()
		return decide(g.p, false, 0, luaDuration(-diff), luaDuration(tat-now)), nil
	}
	resetAfter := newTAT - now
	if resetAfter > 0 {
		v.tat = newTAT
		s.visitors[key] = v
		if !seen {
			s.grew(now, m.window)
		}
	}
	s.mu.Unlock()
	// Redis turns the script's number into an integer reply by truncation.
	return decide(g.p, true, int(remaining), 0, luaDuration(resetAfter)), nil
}

// script is redis_rate's GCRA arithmetic for a request of cost 0 or 1 at now, given the visitor's
// TAT (now when it has none or it has passed): the new TAT, the requests remaining (negative when
// refused) and how far now is past the time the request is allowed from.
func (g gcra) script(tat, now, cost float64) (newTAT, remaining, diff float64) {
	// float64() stops the compiler from fusing operations the script rounds one by one.
	newTAT = tat + float64(cost*g.emission)
	allowAt := float64(newTAT - g.burstOffset)
	diff = float64(now - allowAt)
	return newTAT, diff / g.emission, diff
}

// Inspect says where the visitor key stands without counting a request: what redis_rate's script
// answers for a cost of 0. It never adds a visitor; one it does not hold is at the full limit.
func (m *Memory) Inspect(ctx context.Context, key string) (Decision, error) {
	if m.err != nil {
		return Decision{}, m.err
	}
	s := m.shard(key)
	s.mu.Lock()
	v, seen := s.visitors[key]
	s.mu.Unlock()
	return m.standing(ctx, v.tat, seen), nil
}

func (m *Memory) shard(key string) *shard {
	return &m.shards[maphash.String(m.seed, key)&(shardCount-1)]
}

// standing is where a visitor with the TAT tat (when seen) stands now under ctx's policy.
func (m *Memory) standing(ctx context.Context, tat float64, seen bool) Decision {
	g := m.under(ctx)
	now := luaNow(m.now())
	if !seen || tat < now {
		tat = now
	}
	// With a cost of 0 the script SETs the TAT it read back (or nothing when reset_after is 0),
	// so there is nothing to store here.
	_, remaining, diff := g.script(tat, now, 0)
	if remaining < 0 {
		// Only a clock that went backwards gets here; mirrored all the same.
		return decide(g.p, false, 0, luaDuration(-diff), luaDuration(tat-now))
	}
	return standing(g.p, int(remaining), luaDuration(tat-now))
}

// Reserve says whether the visitor's request may run before its decision, and counts it in flight
// if so: the visitor is known here, and what it has left under ctx's policy, less its requests in
// flight, is at least the margin. Counting those in flight means that however many arrive at once,
// no more of them run early than the visitor had left above the margin.
func (m *Memory) Reserve(ctx context.Context, key string) bool {
	if m.err != nil {
		return false
	}
	s := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, seen := s.visitors[key]
	if !seen {
		return false
	}
	d := m.standing(ctx, v.tat, true)
	if d.Remaining-v.inFlight < max(1, d.Limit*speculateMarginPercent/100) {
		return false
	}
	v.inFlight++
	s.visitors[key] = v
	return true
}

// Release ends one reservation of the visitor's.
func (m *Memory) Release(key string) {
	if m.err != nil {
		return
	}
	s := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, seen := s.visitors[key]; seen && v.inFlight > 0 {
		v.inFlight--
		s.visitors[key] = v
	}
}

// Learn sets the visitor's TAT to what the shared limiter reported at the time at (at plus its
// ResetAfter), unless the one held is later already: the memory keeps a lower bound of the shared
// state.
func (m *Memory) Learn(key string, at time.Time, resetAfter time.Duration) {
	if m.err != nil || resetAfter <= 0 {
		return
	}
	tat := luaNow(at) + resetAfter.Seconds()
	s := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, seen := s.visitors[key]
	if v.tat >= tat {
		return
	}
	v.tat = tat
	s.visitors[key] = v
	if !seen {
		s.grew(luaNow(m.now()), m.window)
	}
}

// Len is how many visitors are held right now, idle ones not yet swept included.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.visitors)
		s.mu.Unlock()
	}
	return n
}

// grew runs after a visitor was added: sweeping when the map has doubled keeps the cost
// amortised O(1) per request and the map within twice its live visitors (plus minSweep).
func (s *shard) grew(now, window float64) {
	s.peak = max(s.peak, len(s.visitors))
	if len(s.visitors) < s.nextSweep && now-s.lastSweep < window {
		return
	}
	for k, v := range s.visitors {
		if v.tat <= now && v.inFlight == 0 {
			delete(s.visitors, k)
		}
	}
	// Deleting never returns a Go map's memory; after a burst has passed, copy the survivors
	// into a right-sized map so memory follows the live visitors down again.
	if s.peak > minSweep && len(s.visitors) < s.peak/4 {
		fresh := make(map[string]visitor, 2*len(s.visitors))
		for k, v := range s.visitors {
			fresh[k] = v
		}
		s.visitors = fresh
		s.peak = len(fresh)
	}
	s.nextSweep = max(2*len(s.visitors), minSweep)
	s.lastSweep = now
}

// luaNow is the script's clock: Redis TIME (seconds, microseconds) counted from luaEpoch.
func luaNow(t time.Time) float64 {
	return float64(t.Unix()-luaEpoch) + float64(t.Nanosecond()/1000)/1000000
}

// luaDuration is what redis_rate makes of a number the script returns: Lua 5.1's tostring
// ("%.14g"), parsed back and truncated to nanoseconds.
func luaDuration(seconds float64) time.Duration {
	var buf [32]byte
	f, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], seconds, 'g', 14, 64)), 64)
	return time.Duration(f * float64(time.Second))
}
