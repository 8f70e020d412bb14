//go:build attack

package attacktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// costlyFor is how long the costly visitors search: the review's two visitors sent 28 such
// searches in 15 s, well inside their allowance.
const costlyFor = 15 * time.Second

// othersAim is the share of the other visitors' uncached searches that must answer 200 meanwhile.
const othersAim = 0.95

// costlyVisitors: two visitors send searches of 28 random six-letter words (the most q's 200
// characters hold, every word a typo clause but for the typo budget) one after another, while
// other visitors, each from its own address, send uncached searches of two words: the others' get
// 200 for othersAim of them (admission shares the slots out by visitor, search/admit).
func costlyVisitors(t *testing.T, s *server, r *report) {
	ctx, cancel := context.WithTimeout(t.Context(), costlyFor)
	defer cancel()
	logFrom := s.logSize()
	var wg sync.WaitGroup
	costly := make([]*samples, 2)
	for i := range costly {
		costly[i] = &samples{}
		wg.Go(func() { costlySearches(ctx, s.client(150+i), s, costlyEvery, int64(i), costly[i]) })
	}
	others := &samples{}
	for i := range 2 {
		wg.Go(func() { otherSearches(ctx, s, 160+40*i, 40, 100*time.Millisecond, int64(100+i), others) })
	}
	wg.Wait()

	ok := others.statuses[http.StatusOK]
	share := float64(ok) / float64(max(others.count(), 1))
	t.Logf("costly visitors: %s; %s", costly[0], costly[1])
	t.Logf("others' uncached searches: %s: %.1f%% 200", others, 100*share)
	if others.count() < 50 {
		t.Errorf("only %d other searches in %v", others.count(), costlyFor)
	}
	if share < othersAim {
		t.Logf("the refusals' causes, as logged: %s", refusals(t, s, logFrom))
		t.Errorf("others' uncached searches %.1f%% 200, want at least %.0f%%", 100*share, 100*othersAim)
	}
	r.add(fmt.Sprintf("two visitors sending searches of 28 random six-letter words one after another for %v", costlyFor),
		fmt.Sprintf("others' uncached searches %.1f%% 200 (%s)", 100*share, codes(others.statuses)),
		fmt.Sprintf("others: %s; costly visitors: %s, %s", latencies(others), codes(costly[0].statuses), codes(costly[1].statuses)))
}

// costlyEvery is the pace of a costly visitor at most: twice the review's (28 searches in 15 s
// between two). Faster, it is a flood of requests, which the rate limit bounds, not admission.
const costlyEvery = 500 * time.Millisecond

// costlySearches sends searches of 28 random six-letter words through c, each once the last has
// answered and every has passed since it was sent, until ctx ends.
func costlySearches(ctx context.Context, c *http.Client, s *server, every time.Duration, seed int64, out *samples) {
	rng := rand.New(rand.NewPCG(uint64(seed), 43))
	defer c.CloseIdleConnections()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for ; ctx.Err() == nil; <-tick.C {
		words := make([]string, 28)
		for i := range words {
			words[i] = randomWord(rng, 6)
		}
		out.add(get(ctx, c, s.url("/?resource=items&q="+url.QueryEscape(strings.Join(words, " ")))))
	}
}

// otherSearches sends, every so often, a search no one made before (a common word and a random
// one) from the next of n addresses from 127.0.0.from, until ctx ends.
func otherSearches(ctx context.Context, s *server, from, n int, every time.Duration, seed int64, out *samples) {
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	common := []string{"river", "portrait", "london", "history", "night", "garden", "music", "letters", "city", "war"}
	clients := make([]*http.Client, n)
	for i := range clients {
		clients[i] = s.client(from + i)
		defer clients[i].CloseIdleConnections()
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		q := common[rng.IntN(len(common))] + " " + randomWord(rng, 5)
		d, status := get(ctx, clients[i%len(clients)], s.url("/?resource=items&q="+url.QueryEscape(q)))
		if ctx.Err() == nil {
			out.add(d, status)
		}
	}
}

// manyCostlyEnv are the settings of the server manyCostly is sent to: the review's wait for a
// slot, and the suite's own proxy, through which the visitors of one IPv6 /56 come.
var manyCostlyEnv = []string{"MEDIA_ADMIT_WAIT=250ms", fmt.Sprintf("MEDIA_TRUSTED_PROXIES=127.0.0.%d", proxyFrom)}

// proxyFrom is the loopback address 127.0.0.n the suite's trusted proxy sends from.
const proxyFrom = 250

// manyCostly: ten visitors send searches of 28 random six-letter words four a second each, on a
// server that lets a call wait 250 ms for a slot, while other visitors send uncached searches of
// two words: the others' get 200 for othersAim of them. Ten such visitors each take less than an
// eighth of the engine's time, and a queue first come first served would be theirs: admission
// gives a freed slot to the visitor who has taken the least lately (search/admit). So does one
// visitor searching every 500 ms. Then the same from ten /64s of one IPv6 /56 through a trusted
// proxy, which admission counts as one visitor.
func manyCostly(t *testing.T, s *server, title string) {
	r := &report{}
	for _, tc := range []struct {
		name   string
		client func(i int) *http.Client
	}{
		{"ten addresses", func(i int) *http.Client { return s.client(130 + i) }},
		{"ten /64s of one /56", func(i int) *http.Client {
			return s.forwarding(proxyFrom, fmt.Sprintf("2001:db8:0:1%02x::1", i))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), costlyFor)
			defer cancel()
			logFrom := s.logSize()
			var wg sync.WaitGroup
			costly := &samples{}
			for i := range 10 {
				wg.Go(func() { costlySearches(ctx, tc.client(i), s, 250*time.Millisecond, int64(10+i), costly) })
			}
			// Forty visitors each searching every 4 s, and one searching every 500 ms.
			others, victim := &samples{}, &samples{}
			wg.Go(func() { otherSearches(ctx, s, 160, 40, 100*time.Millisecond, 200, others) })
			wg.Go(func() { otherSearches(ctx, s, 120, 1, 500*time.Millisecond, 201, victim) })
			wg.Wait()

			t.Logf("costly visitors: %s", costly)
			for _, o := range []struct {
				who   string
				got   *samples
				least int
			}{{"others'", others, 50}, {"one visitor's", victim, 20}} {
				share := float64(o.got.statuses[http.StatusOK]) / float64(max(o.got.count(), 1))
				t.Logf("%s uncached searches: %s: %.1f%% 200", o.who, o.got, 100*share)
				if o.got.count() < o.least {
					t.Errorf("only %d of %s searches in %v", o.got.count(), o.who, costlyFor)
				}
				if share < othersAim {
					t.Logf("the refusals' causes, as logged: %s", refusals(t, s, logFrom))
					t.Errorf("%s uncached searches %.1f%% 200, want at least %.0f%%", o.who, 100*share, 100*othersAim)
				}
			}
			r.add(fmt.Sprintf("%s sending searches of 28 random six-letter words 4 a second each for %v, `MEDIA_ADMIT_WAIT=250ms`", tc.name, costlyFor),
				fmt.Sprintf("others' uncached searches %s, one visitor's %s", okShare(others), okShare(victim)),
				fmt.Sprintf("others: %s; one visitor: %s; costly visitors: %s", latencies(others), latencies(victim), codes(costly.statuses)))
		})
	}
	r.write(t, title)
}

// okShare writes the share of p answered 200, and its statuses.
func okShare(p *samples) string {
	return fmt.Sprintf("%.1f%% 200 (%s)", 100*float64(p.statuses[http.StatusOK])/float64(max(p.count(), 1)), codes(p.statuses))
}

// get asks target and reads the answer: its time and status (0 when there is none).
func get(ctx context.Context, c *http.Client, target string) (time.Duration, int) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, 0
	}
	resp, err := c.Do(req)
	if err != nil {
		return time.Since(start), 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start), resp.StatusCode
}

// refusals counts the 503 lines the server logged from offset on by their error, numbers left out.
func refusals(t *testing.T, s *server, offset int64) string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	digits := regexp.MustCompile(`[0-9.]+(ms|s|µs)?`)
	counts := map[string]int{}
	for line := range bytes.SplitSeq(b[offset:], []byte("\n")) {
		var l struct {
			Status int    `json:"status"`
			Error  string `json:"error"`
		}
		if json.Unmarshal(line, &l) == nil && l.Status == http.StatusServiceUnavailable {
			counts[digits.ReplaceAllString(l.Error, "N")]++
		}
	}
	return fmt.Sprint(counts)
}
