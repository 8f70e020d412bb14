package gateway_test

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"mediagw/gateway"
	"mediagw/ratelimit"
)

// The tests in this file run two gateways on one policies file, each reading and watching it
// itself, wired as cmd/mediagw wires one: with Redis, Shadow over Fallback over Redis (counts
// shared), without, Fallback over a Memory of each replica's own (counts per replica).

const policiesFile = `# policy   quota  window  count-by  ranges
schools    5      10m     address   198.51.100.0/24, 2001:db8:100::/48
newsroom   4      10m     range     203.0.113.0/28
`

// policyReplicas are two gateways applying the policies of one file.
type policyReplicas struct {
	*replicas
	path   string
	shared bool
	// served counts each visitor's requests per replica, for the counts kept in process.
	served map[string][]int
	logs   *observer.ObservedLogs
}

func newPolicyReplicas(t *testing.T, redisURL string) *policyReplicas {
	t.Helper()
	backend, items := testBackend(t)
	path := filepath.Join(t.TempDir(), "policies")
	core, logs := observer.New(zapcore.InfoLevel)
	pr := &policyReplicas{path: path, shared: redisURL != "", served: map[string][]int{}, logs: logs,
		replicas: &replicas{t: t, policy: contractPolicy, target: "/?resource=item&id=" + items[0].ID,
			client: &http.Client{Timeout: 30 * time.Second}}}
	t.Cleanup(pr.client.CloseIdleConnections)
	pr.write(policiesFile)
	prefix := fmt.Sprintf("mediagw-test:%s:%s:", t.Name(), rand.Text()[:10])
	for i := range 2 {
		log := zap.New(core).With(zap.Int("replica", i))
		reg := prometheus.NewPedanticRegistry()
		file, err := ratelimit.OpenPolicyFile(path, log)
		if err != nil {
			t.Fatal(err)
		}
		reg.MustRegister(file)
		go file.Watch(t.Context(), ratelimit.PolicyPollInterval)

		var shared ratelimit.Limiter
		if redisURL != "" {
			r, err := ratelimit.NewRedis(redisClient(t, redisURL), contractPolicy, ratelimit.WithPrefix(prefix), ratelimit.WithTimeout(limiterTimeout))
			if err != nil {
				t.Fatal(err)
			}
			shared = r
		}
		fb := ratelimit.NewFallback(shared, ratelimit.NewMemory(contractPolicy, nil), log)
		reg.MustRegister(fb)
		var limiter ratelimit.Decider = fb
		if shared != nil {
			limiter = ratelimit.NewShadow(fb)
		}

		cfg := gateway.DefaultConfig()
		cfg.PublicURL = publicURL
		cfg.RatePolicy = contractPolicy
		cfg.TrustedProxies = loopback
		cfg.LimiterTimeout = limiterTimeout
		cfg.Policies = file
		cfg.Metrics = reg
		gw, err := gateway.New(cfg, backend, limiter, zap.NewNop())
		if err != nil {
			t.Fatalf("gateway.New: %v", err)
		}
		srv := httptest.NewServer(gw)
		t.Cleanup(srv.Close)
		pr.urls = append(pr.urls, srv.URL)
		pr.regs = append(pr.regs, reg)
	}
	return pr
}

// write replaces the file at once, as a ConfigMap update or an editor's save does: a replica
// never reads half of it.
func (pr *policyReplicas) write(content string) {
	pr.t.Helper()
	tmp := pr.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		pr.t.Fatal(err)
	}
	if err := os.Rename(tmp, pr.path); err != nil {
		pr.t.Fatal(err)
	}
}

// expectPolicy checks a response answered under the named policy of quota q per 10 minutes, with
// remaining requests left.
func expectPolicy(t *testing.T, rec *httptest.ResponseRecorder, replica int, name string, q, remaining int) {
	t.Helper()
	hd := rec.Header()
	if want := fmt.Sprintf(`%q;q=%d;w=600`, name, q); hd.Get("RateLimit-Policy") != want {
		t.Fatalf("replica %d: RateLimit-Policy %q, want %q", replica, hd.Get("RateLimit-Policy"), want)
	}
	if !strings.HasPrefix(hd.Get("RateLimit"), fmt.Sprintf(`%q;r=%d;t=`, name, remaining)) ||
		hd.Get("X-RateLimit-Limit") != strconv.Itoa(q) || hd.Get("X-RateLimit-Remaining") != strconv.Itoa(remaining) {
		t.Fatalf("replica %d: RateLimit %q, X-RateLimit-Limit %q, X-RateLimit-Remaining %q; want %s's %d of %d",
			replica, hd.Get("RateLimit"), hd.Get("X-RateLimit-Limit"), hd.Get("X-RateLimit-Remaining"), name, remaining, q)
	}
}

// spend has the visitors ask the replicas in turn, each request counted against count (the visitor
// the policy counts: the address, or the range), until every replica has refused it: quota
// requests in all with Redis, quota per replica without.
func (pr *policyReplicas) spend(count, name string, q int, visitors ...string) {
	pr.t.Helper()
	served := pr.served[count]
	if served == nil {
		served = make([]int, len(pr.urls))
		pr.served[count] = served
	}
	total := func() int {
		n := 0
		for _, s := range served {
			n += s
		}
		return n
	}
	refused := make([]bool, len(pr.urls))
	for n := 0; ; n++ {
		i := n % len(pr.urls)
		rec := pr.do(i, visitors[n%len(visitors)])
		spent := served[i]
		if pr.shared {
			spent = total()
		}
		if spent >= q {
			if rec.Code != http.StatusTooManyRequests {
				pr.t.Fatalf("replica %d: status %d after %d of %s's %d requests, want 429", i, rec.Code, spent, name, q)
			}
			expectPolicy(pr.t, rec, i, name, q, 0)
			refused[i] = true
			if !slicesAll(refused) {
				continue
			}
			return
		}
		if rec.Code != http.StatusOK {
			pr.t.Fatalf("replica %d: status %d after %d of %s's %d requests, want 200: %s", i, rec.Code, spent, name, q, rec.Body)
		}
		expectPolicy(pr.t, rec, i, name, q, q-1-spent)
		served[i]++
	}
}

func slicesAll(b []bool) bool {
	for _, v := range b {
		if !v {
			return false
		}
	}
	return true
}

// eventually polls check, true once the replicas apply what the test changed, for the 5 seconds
// a change of the file may take to apply everywhere.
func (pr *policyReplicas) eventually(what string, check func() bool) {
	pr.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			pr.t.Fatalf("5s after the file changed: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// counter is replica i's value of the counter name with the labels given as name=value pairs.
func (pr *policyReplicas) counter(i int, name string, labels ...string) float64 {
	pr.t.Helper()
	mfs, err := pr.regs[i].Gather()
	if err != nil {
		pr.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var got []string
			for _, l := range m.GetLabel() {
				got = append(got, l.GetName()+"="+l.GetValue())
			}
			if slices.Equal(got, labels) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestReplicasApplyOnePoliciesFile: two replicas on one file, with Redis (one quota over both)
// and without (each replica's own count, under the same policies). An address in a network gets
// its policy's quota, named in the headers; an address in no network keeps the default 120; a
// range counted as one visitor shares its quota among its addresses; an edited quota applies on
// both within 5s; a broken edit is refused naming its line and the policies in force are kept.
func TestReplicasApplyOnePoliciesFile(t *testing.T) {
	for _, tt := range []struct {
		name     string
		redisURL func(t *testing.T) string
	}{
		{"with Redis", func(t *testing.T) string { return redisURL(t) }},
		{"in process", func(*testing.T) string { return "" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pr := newPolicyReplicas(t, tt.redisURL(t))

			pr.spend("198.51.100.7", "schools", 5, "198.51.100.7")
			// Each address of a network counted by address is its own visitor; an IPv6 one is its /64.
			pr.spend("2001:db8:100:1::/64", "schools", 5, "2001:db8:100:1::1", "2001:db8:100:1::2")
			pr.spend("203.0.113.0/28", "newsroom", 4, "203.0.113.1", "203.0.113.2", "203.0.113.14")

			for i := range pr.urls {
				expectPolicy(t, pr.do(i, "203.0.113.16"), i, "default", 120, 119-boolInt(pr.shared)*i)
				// A response the limit does not count says where the visitor stands under its policy.
				expectPolicy(t, pr.send(pr.client, i, "/healthz", "203.0.113.9"), i, "newsroom", 4, 0)
			}
			for i := range pr.urls {
				if n := pr.counter(i, "mediagw_ratelimit_policy_decisions_total", "policy=schools", "result=limited"); n < 1 {
					t.Errorf("replica %d counted %v limited requests under schools, want some", i, n)
				}
				if n := pr.counter(i, "mediagw_ratelimit_policy_decisions_total", "policy=default", "result=allowed"); n != 1 {
					t.Errorf("replica %d counted %v allowed requests under default, want 1", i, n)
				}
			}

			// An edited quota applies to new visitors and to the standing of those already counted:
			// a visitor that spent the old quota has spent the new one's window too.
			pr.write(strings.Replace(policiesFile, "schools    5 ", "schools    8 ", 1))
			for i := range pr.urls {
				pr.eventually(fmt.Sprintf("replica %d still announces schools' old quota", i), func() bool {
					return pr.do(i, "198.51.100.99").Header().Get("RateLimit-Policy") == `"schools";q=8;w=600`
				})
			}
			for i := range pr.urls {
				if rec := pr.do(i, "198.51.100.7"); rec.Code != http.StatusTooManyRequests || rec.Header().Get("X-RateLimit-Limit") != "8" {
					t.Errorf("replica %d: the visitor that spent the old quota: status %d, limit %q; want 429 under 8",
						i, rec.Code, rec.Header().Get("X-RateLimit-Limit"))
				}
			}

			pr.write("# a typo\nschools 8 10m adress 198.51.100.0/24\n")
			for i := range pr.urls {
				pr.eventually(fmt.Sprintf("replica %d has not refused the broken edit", i), func() bool {
					return pr.counter(i, "mediagw_ratelimit_policies_reloads_total", "result=refused") == 1
				})
			}
			refusals := pr.logs.FilterMessage("rate limit policies refused, the policies in force are kept").All()
			if len(refusals) != len(pr.urls) {
				t.Fatalf("%d refusals logged, want one per replica", len(refusals))
			}
			for _, r := range refusals {
				if msg, _ := r.ContextMap()["error"].(string); !strings.Contains(msg, `line 2: count-by "adress"`) {
					t.Errorf("refusal %q does not name line 2", msg)
				}
			}
			for i := range pr.urls {
				expectPolicy(t, pr.do(i, "198.51.100.100"), i, "schools", 8, 7-boolInt(pr.shared)*i)
				if rec := pr.do(i, "203.0.113.3"); rec.Code != http.StatusTooManyRequests || rec.Header().Get("RateLimit-Policy") != `"newsroom";q=4;w=600` {
					t.Errorf("replica %d: the newsroom after the broken edit: status %d, %q; want its 429 kept", i, rec.Code, rec.Header().Get("RateLimit-Policy"))
				}
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
