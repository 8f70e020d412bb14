//go:build attack

package attacktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mediagw/internal/servicetest"
)

// The bounds of a 1 MiB rules set applied: what the idle gateway may use of a core, and how many
// times an ordinary search's p50 without rules it may take.
const (
	idleCPUBound = 0.10
	rulesP50x    = 3.0
)

// idleFor is how long the idle gateway's CPU is measured: a few of its reads of the rules.
const idleFor = 6 * time.Second

// TestAttackRules: a synonyms file of 1 MiB (lines of 16 random seven-letter words, and one line
// sending zzqwood to london) applied with `mediactl rules apply`, or refused with its reason, on
// the embedded index and on the engine under test: the idle gateway (probed by /readyz) then uses
// under idleCPUBound of a core, an ordinary search's p50 stays under rulesP50x times the one
// without the set, and the gateway within the pod's memory.
func TestAttackRules(t *testing.T) {
	cat, catName := catalogue(t)
	t.Run("embedded", func(t *testing.T) {
		env := []string{"MEDIA_BACKEND=embedded", "MEDIA_INDEX_DIR=" + t.TempDir()}
		run(t, env, filepath.Join(build(t), "mediactl"), "load", cat)
		rulesSet(t, env, "embedded index, "+catName)
	})
	e := servicetest.TestEngine(t)
	t.Run(e.Name, func(t *testing.T) { rulesSet(t, engineLoaded(t, e, cat), e.Product+", "+catName) })
}

// rounds is how many times the set is applied and taken away again: the searches of each phase
// interleave with the other's, so that the machine's own load, which drifts, weighs on both alike.
const rounds = 3

// rulesSet measures a gateway of env without the 1 MiB set and with it, in turns.
func rulesSet(t *testing.T, env []string, title string) {
	s := start(t, env)
	r := &report{}
	// The first searches wait for what a gateway learns once (the did-you-mean's words).
	ordinarySearches(t, s, 1000, &samples{})
	synonyms, size := bigSynonyms(t)
	dir := t.TempDir()
	none, pins := filepath.Join(dir, "none.txt"), filepath.Join(dir, "pins.txt")
	for _, p := range []string{none, pins} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	without, with := &samples{}, &samples{}
	var outcome string
	var took, idle time.Duration
	var idleShare float64
	for round := range rounds {
		ordinarySearches(t, s, uint64(2*round), without)
		started := time.Now()
		out, err := rulesApply(env, synonyms, pins)
		took = time.Since(started)
		if err != nil {
			// Refused: the set in force, none, stays; the searches after say what it costs.
			outcome = "refused: " + strings.TrimSpace(out)
		} else {
			outcome = "applied"
			waitServed(t, s, true)
		}
		if round == 0 {
			t.Logf("the set of %d bytes: %s in %v: %s", size, outcome, took.Round(time.Millisecond), out)
			idleShare, idle = idleCPU(t, s), idleFor
		}
		ordinarySearches(t, s, uint64(2*round+1), with)
		if out, err := rulesApply(env, none, pins); err != nil {
			t.Fatalf("rules apply of no rules: %v\n%s", err, out)
		}
		waitServed(t, s, false)
	}
	ratio := float64(with.pct(50)) / float64(max(without.pct(50), time.Microsecond))
	rss := s.peakRSS()
	t.Logf("idle gateway: %.1f%% of a core over %v; ordinary searches without the set: %s; with it: %s (p50 %.2fx); peak RSS %d MiB",
		100*idleShare, idle, without, with, ratio, rss>>20)
	if idleShare >= idleCPUBound {
		t.Errorf("the idle gateway uses %.1f%% of a core with the set, want under %.0f%%", 100*idleShare, 100*idleCPUBound)
	}
	if ratio >= rulesP50x {
		t.Errorf("an ordinary search's p50 is %.2fx the one without the set, want under %.0fx", ratio, rulesP50x)
	}
	if rss >= podMemory {
		t.Errorf("the gateway's peak RSS is %d MiB, past the pod's %d MiB", rss>>20, podMemory>>20)
	}
	if !with.only(200) || !without.only(200) {
		t.Errorf("ordinary searches: with the set %v, without %v", with.statuses, without.statuses)
	}
	r.add(fmt.Sprintf("a synonyms file of %d bytes (lines of 16 words), `mediactl rules apply`, %d times in turn with none", size, rounds),
		fmt.Sprintf("%s in %s; idle gateway %.1f%% of a core; ordinary search p50 %.2fx; peak RSS %d MiB", outcome, ms(took), 100*idleShare, ratio, rss>>20),
		fmt.Sprintf("ordinary searches without the set: %s; with it: %s", latencies(without), latencies(with)))
	r.write(t, title)
}

// rulesApply runs `mediactl rules apply` of the files with env.
func rulesApply(env []string, synonyms, pins string) (string, error) {
	cmd := exec.Command(filepath.Join(binaries.dir, "mediactl"), "rules", "-synonyms", synonyms, "-pins", pins, "apply")
	cmd.Env = append(cleanEnv(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// bigSynonyms writes a synonyms file just under the largest one accepted: a line sending zzqwood
// to london, then lines of 16 random seven-letter words.
func bigSynonyms(t *testing.T) (string, int) {
	rng := rand.New(rand.NewPCG(55, 2))
	var b bytes.Buffer
	b.WriteString("zzqwood => london\n")
	for {
		words := make([]string, 16)
		for i := range words {
			words[i] = randomWord(rng, 7)
		}
		line := strings.Join(words, ", ") + "\n"
		if b.Len()+len(line) > 1<<20 {
			break
		}
		b.WriteString(line)
	}
	path := filepath.Join(t.TempDir(), "synonyms.txt")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b.Len()
}

// waitServed waits until the gateway serves the set (zzqwood finds what london finds), or, when
// not served, serves none.
func waitServed(t *testing.T, s *server, served bool) {
	c := s.client(3)
	defer c.CloseIdleConnections()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		resp, err := c.Get(s.url("/?resource=items&q=zzqwood&per_page=1"))
		if err == nil {
			var page struct{ Pagination struct{ Total int } }
			err = json.NewDecoder(resp.Body).Decode(&page)
			resp.Body.Close()
			if err == nil && (page.Pagination.Total > 0) == served {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway did not serve the set (%v) within a minute:\n%s", served, s.logTail())
		}
	}
}

// ordinarySearches sends 50 searches no one made before (a common word and a random one), one
// after another from 127.0.0.4, into out.
func ordinarySearches(t *testing.T, s *server, seed uint64, out *samples) {
	rng := rand.New(rand.NewPCG(seed, 9))
	common := []string{"river", "portrait", "london", "history", "night", "garden", "music", "letters", "city", "war"}
	c := s.client(4)
	defer c.CloseIdleConnections()
	for range 50 {
		q := common[rng.IntN(len(common))] + " " + randomWord(rng, 5)
		out.add(get(t.Context(), c, s.url("/?resource=items&q="+url.QueryEscape(q))))
	}
}

// idleCPU is the share of a core the server uses over idleFor with no request but /readyz once a
// second, as a kubelet's probe at its fastest: each has the server read the rules again.
func idleCPU(t *testing.T, s *server) float64 {
	ctx, cancel := context.WithCancel(t.Context())
	from, start := cpuTime(t, s.cmd.Process.Pid), time.Now()
	probes := s.probe(ctx, 5, "/readyz", time.Second)
	time.Sleep(idleFor)
	used := float64(cpuTime(t, s.cmd.Process.Pid)-from) / float64(time.Since(start))
	cancel()
	if !probes.wait().only(200) {
		t.Errorf("/readyz while idle: %s", probes)
	}
	return used
}

// cpuTime is the CPU time, user and system, process pid has used (/proc/PID/stat, in clock ticks
// of 1/100 s).
func cpuTime(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
