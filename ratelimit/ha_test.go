package ratelimit

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"mediagw/internal/servicetest"
	"mediagw/redisconn"
)

// The tests in this file run on the highly available setups of scripts/redis-ha.sh: a Redis
// Cluster of three primaries, and a primary with one replica under three sentinels, whose primary
// TestSentinelFailover kills and starts again.

// haURL is the URL in the variable name, which scripts/redis-ha.sh exports; without it the test
// skips, or fails in CI.
func haURL(t testing.TB, name string) string {
	t.Helper()
	u := os.Getenv(name)
	if u == "" {
		servicetest.Missing(t, name+" not set: start the setups with `make redis-ha` and export what it prints")
	}
	return u
}

// TestClusterReplicasShareOneLimit is TestRedisReplicasShareOneLimit on a Redis Cluster, and
// visitors' keys spread over all its primaries: the limiter's script touches one key, so it needs
// no hash tags to run on any slot.
func TestClusterReplicasShareOneLimit(t *testing.T) {
	raw := haURL(t, "REDIS_CLUSTER_URL")
	prefix := replicasShareOneLimit(t, raw)

	c, ok := newRedisClient(t, raw).(*redis.ClusterClient)
	if !ok {
		t.Fatalf("REDIS_CLUSTER_URL %s made no cluster client", raw)
	}
	r := newTestRedis(t, c, prefix)
	const visitors = 30
	for i := range visitors {
		if d, err := r.Allow(t.Context(), fmt.Sprintf("198.51.100.%d", i)); err != nil || d.Remaining != contract.Limit-1 {
			t.Fatalf("visitor %d: %+v, %v; want allowed with %d remaining", i, d, err, contract.Limit-1)
		}
	}
	var mu sync.Mutex
	held := map[string]int{}
	err := c.ForEachMaster(t.Context(), func(ctx context.Context, node *redis.Client) error {
		n := 0
		iter := node.Scan(ctx, 0, "rate:"+prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			n++
		}
		mu.Lock()
		held[node.Options().Addr] = n
		mu.Unlock()
		return iter.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for addr, n := range held {
		total += n
		if n == 0 {
			t.Errorf("primary %s holds none of the keys", addr)
		}
	}
	// The three visitors of replicasShareOneLimit, and these.
	if len(held) != 3 || total != visitors+3 {
		t.Errorf("keys per primary %v, want %d on 3 primaries", held, visitors+3)
	}
}

// sentinelSetup is a primary with its replica under sentinels, seen through the sentinels.
type sentinelSetup struct {
	t         *testing.T
	name      string
	sentinels []*redis.SentinelClient
}

func newSentinelSetup(t *testing.T, raw string) *sentinelSetup {
	t.Helper()
	cfg, err := redisconn.ParseURL(raw)
	if err != nil || cfg.Sentinel == nil {
		t.Fatalf("REDIS_SENTINEL_URL %s: %v; want a Sentinel URL (master_name)", raw, err)
	}
	s := &sentinelSetup{t: t, name: cfg.Sentinel.MasterName}
	for _, addr := range cfg.Sentinel.SentinelAddrs {
		c := redis.NewSentinelClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: testTimeout})
		t.Cleanup(func() { c.Close() })
		s.sentinels = append(s.sentinels, c)
	}
	return s
}

// primary is the primary's address, as every sentinel names it; "" while they disagree.
func (s *sentinelSetup) primary(ctx context.Context) (string, error) {
	var addr string
	for _, c := range s.sentinels {
		hp, err := c.GetMasterAddrByName(ctx, s.name).Result()
		if err != nil {
			return "", fmt.Errorf("sentinel %s: %w", c, err)
		}
		a := net.JoinHostPort(hp[0], hp[1])
		if addr != "" && a != addr {
			return "", fmt.Errorf("the sentinels name %s and %s", addr, a)
		}
		addr = a
	}
	return addr, nil
}

// info is one INFO section of the server at addr.
func info(ctx context.Context, addr, section string) (map[string]string, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: testTimeout, MaxRetries: -1})
	defer c.Close()
	s, err := c.Info(ctx, section).Result()
	if err != nil {
		return nil, fmt.Errorf("INFO %s from %s: %w", section, addr, err)
	}
	m := map[string]string{}
	for line := range strings.Lines(s) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			m[k] = v
		}
	}
	return m, nil
}

// healthy says what keeps the setup from failing over, if anything: every sentinel must reach
// a quorum, and the primary they name must have its replica online.
func (s *sentinelSetup) healthy(ctx context.Context) (primary string, err error) {
	for _, c := range s.sentinels {
		if err := c.CkQuorum(ctx, s.name).Err(); err != nil {
			return "", fmt.Errorf("sentinel %s: %w", c, err)
		}
	}
	if primary, err = s.primary(ctx); err != nil {
		return "", err
	}
	repl, err := info(ctx, primary, "replication")
	if err != nil {
		return "", err
	}
	if repl["role"] != "master" || !strings.Contains(repl["slave0"], "state=online") {
		return "", fmt.Errorf("%s: role %s, replica %q; want a primary with its replica online", primary, repl["role"], repl["slave0"])
	}
	return primary, nil
}

// waitHealthy waits a bounded time for the setup to be able to fail over, and returns its primary.
func (s *sentinelSetup) waitHealthy() string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		primary, err := s.healthy(ctx)
		cancel()
		if err == nil {
			return primary
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("Sentinel setup not whole after 30s (scripts/redis-ha.sh start sentinel brings it back): %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitReplicated waits until the replica has acknowledged every write the primary had taken.
func (s *sentinelSetup) waitReplicated(primary string) {
	s.t.Helper()
	ctx := s.t.Context()
	repl, err := info(ctx, primary, "replication")
	if err != nil {
		s.t.Fatal(err)
	}
	want, _ := strconv.ParseInt(repl["master_repl_offset"], 10, 64)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if repl, err = info(ctx, primary, "replication"); err != nil {
			s.t.Fatal(err)
		}
		for field := range strings.SplitSeq(repl["slave0"], ",") {
			if v, ok := strings.CutPrefix(field, "offset="); ok {
				if got, _ := strconv.ParseInt(v, 10, 64); got >= want {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("replica at %q after 10s, primary at offset %d", repl["slave0"], want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill ends the Redis server at addr with SIGKILL, as a crashed host would, and returns its
// configuration file.
func (s *sentinelSetup) kill(addr string) string {
	s.t.Helper()
	server, err := info(s.t.Context(), addr, "server")
	if err != nil {
		s.t.Fatal(err)
	}
	pid, err := strconv.Atoi(server["process_id"])
	if err != nil || server["config_file"] == "" {
		s.t.Fatalf("%s: process_id %q, config_file %q; want a server started from a file", addr, server["process_id"], server["config_file"])
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		s.t.Fatalf("kill the primary %s (pid %d): %v", addr, pid, err)
	}
	return server["config_file"]
}

// restart starts the server of config at addr again (it daemonizes, as scripts/redis-ha.sh starts
// it), makes it a replica of the primary at once rather than in the sentinels' ten seconds, and
// waits until the setup can fail over again.
func (s *sentinelSetup) restart(config, addr string) {
	s.t.Helper()
	if out, err := exec.Command("redis-server", config).CombinedOutput(); err != nil {
		s.t.Fatalf("start %s again: %v: %s", addr, err, out)
	}
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: testTimeout})
	defer c.Close()
	servicetest.WaitForRedis(s.t, c)
	primary, err := s.primary(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(primary)
	if err := c.ReplicaOf(context.Background(), host, port).Err(); err != nil {
		s.t.Fatalf("REPLICAOF %s on %s: %v", primary, addr, err)
	}
	s.waitHealthy()
}

// steadyLoad has four goroutines decide requests of visitors of their own on the limiters in turn,
// one every 2ms each, until stop, failing the test on any error.
type steadyLoad struct {
	calls   atomic.Int64
	slowest atomic.Int64 // nanoseconds
	done    chan struct{}
	stop    func()
}

func startLoad(t *testing.T, limiters []*Fallback) *steadyLoad {
	l := &steadyLoad{done: make(chan struct{})}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			lim := limiters[g%len(limiters)]
			for n := 0; ; n++ {
				select {
				case <-l.done:
					return
				default:
				}
				start := time.Now()
				_, err := lim.Allow(context.Background(), fmt.Sprintf("load-%d-%d", g, n%100))
				took := int64(time.Since(start))
				if err != nil {
					t.Errorf("limiter %d: %v", g%len(limiters), err)
					return
				}
				l.calls.Add(1)
				for cur := l.slowest.Load(); took > cur && !l.slowest.CompareAndSwap(cur, took); cur = l.slowest.Load() {
				}
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	l.stop = sync.OnceFunc(func() {
		close(l.done)
		wg.Wait()
	})
	t.Cleanup(l.stop)
	return l
}

// TestSentinelFailover kills the primary (SIGKILL) while two replicas of the gateway's limiter,
// each a Fallback over its own client as cmd/mediagw builds one, decide requests without pause.
// No decision fails or waits long; while the sentinels promote the replica each replica keeps the
// limit in process; afterwards they share one limit again on the new primary, which kept the counts
// written before the kill. The timeouts are the tests' (a loaded machine must not fall back while
// the counts are checked); a killed server refuses at once, so they play no part in the switch.
func TestSentinelFailover(t *testing.T) {
	raw := haURL(t, "REDIS_SENTINEL_URL")
	s := newSentinelSetup(t, raw)
	old := s.waitHealthy()

	// One request drains every 6 minutes: the counts are exact however slow the machine.
	policy := Policy{Limit: 10, Window: time.Hour}
	prefix := uniquePrefix(t)
	logger, logs := observed()
	rs := fallbackReplicas{t: t, p: policy}
	var locals [2]*Memory
	for i := range locals {
		r, err := NewRedis(newRedisClient(t, raw), policy, WithPrefix(prefix), WithTimeout(testTimeout))
		if err != nil {
			t.Fatal(err)
		}
		locals[i] = NewMemory(policy, nil)
		rs.fbs = append(rs.fbs, NewFallback(r, locals[i], logger.With(zap.Int("replica", i))))
	}
	rs.shared("before")
	s.waitReplicated(old)

	// The sentinels announce the promotion on +switch-master.
	sub := s.sentinels[0].Subscribe(t.Context(), "+switch-master")
	t.Cleanup(func() { sub.Close() })
	if _, err := sub.Receive(t.Context()); err != nil {
		t.Fatal(err)
	}
	switched := make(chan time.Time, 1)
	go func() {
		if _, err := sub.ReceiveMessage(context.Background()); err == nil {
			switched <- time.Now()
		}
	}()

	// Visitors of their own decided without pause on both replicas, before, during and after.
	load := startLoad(t, rs.fbs)
	time.Sleep(200 * time.Millisecond)

	killed := time.Now()
	config := s.kill(old)
	t.Cleanup(func() {
		load.stop()
		s.restart(config, old)
	})

	waitFor := func(what string, within time.Duration, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(within)
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after %s", what, within)
			}
			time.Sleep(time.Millisecond)
		}
	}
	active := func(i int) bool { return testutil.ToFloat64(rs.fbs[i].active) == 1 }
	waitFor("replica 0 keeps the limit in process", 10*time.Second, func() bool { return active(0) })
	fellBack := time.Since(killed)

	// During the switch replica 0 keeps the limit on its own: a visitor new to it gets Limit
	// requests, counted in its own memory, then a refusal.
	for n := range policy.Limit {
		if d := rs.allow(0, "during"); !d.Allowed || d.Remaining != policy.Limit-1-n {
			t.Fatalf("during, request %d: %+v; want allowed with %d remaining", n+1, d, policy.Limit-1-n)
		}
	}
	if d := rs.allow(0, "during"); d.Allowed {
		t.Fatalf("during, request %d: %+v; want limited", policy.Limit+1, d)
	}
	if d, _ := locals[0].Inspect(t.Context(), "during"); d.Remaining != 0 {
		t.Fatalf("replica 0's own limiter has %d remaining for during, want 0: the requests were not decided in process", d.Remaining)
	}

	var promoted time.Duration
	select {
	case at := <-switched:
		promoted = at.Sub(killed)
	case <-time.After(30 * time.Second):
		t.Fatal("no +switch-master within 30s of the kill")
	}
	waitFor("both replicas back on Redis", 30*time.Second, func() bool { return !active(0) && !active(1) })
	back := time.Since(killed)
	// Go on a moment on the new primary, then stop the visitors of their own.
	time.Sleep(200 * time.Millisecond)
	load.stop()

	primary, err := s.primary(t.Context())
	if err != nil || primary == old {
		t.Fatalf("primary %s, %v; want the promoted replica", primary, err)
	}
	var downFor []string
	for _, e := range logs.FilterMessageSnippet("answers again").All() {
		downFor = append(downFor, fmt.Sprintf("replica %v %v", e.ContextMap()["replica"], e.ContextMap()["down_for"]))
	}
	t.Logf("primary %s killed, %s promoted: the limit kept in process from %s after the kill; +switch-master at %s; both replicas back on Redis at %s (%s); %v of %d decisions in process (replicas 0, 1); slowest decision %s",
		old, primary, fellBack.Round(time.Millisecond), promoted.Round(time.Millisecond), back.Round(time.Millisecond),
		strings.Join(downFor, ", "), []float64{rs.fallbacks(0), rs.fallbacks(1)}, load.calls.Load()+int64(policy.Limit)+1, time.Duration(load.slowest.Load()).Round(time.Millisecond))
	if rs.fallbacks(0) == 0 || rs.fallbacks(1) == 0 {
		t.Errorf("in-process decisions %v, %v; want some on both replicas", rs.fallbacks(0), rs.fallbacks(1))
	}
	if d := time.Duration(load.slowest.Load()); d > time.Second {
		t.Errorf("slowest decision took %s, want well under a second", d)
	}

	// Shared again, on the new primary, which kept what was written before the kill.
	rs.shared("after")
	for i := range rs.fbs {
		if d := rs.allow(i, "before"); d.Allowed {
			t.Errorf("replica %d allowed a visitor limited before the failover: %+v", i, d)
		}
	}
	// Replica 0 decides in Redis again, which never saw what it counted on its own.
	if d := rs.allow(0, "during"); !d.Allowed || d.Remaining != policy.Limit-1 {
		t.Errorf("during, after the failover: %+v; want allowed with %d remaining, from Redis", d, policy.Limit-1)
	}
}
