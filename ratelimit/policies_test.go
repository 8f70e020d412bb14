package ratelimit

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParsePolicies(t *testing.T) {
	data, err := os.ReadFile("testdata/policies")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ParsePolicies(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Network{
		{Name: "schools", Policy: Policy{Limit: 1200, Window: 10 * time.Minute}, CountBy: CountAddress,
			Ranges: []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("2001:db8:100::/48")}, Line: 4},
		{Name: "newsroom", Policy: Policy{Limit: 3000, Window: 10 * time.Minute}, CountBy: CountRange,
			Ranges: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/28")}, Line: 5},
		{Name: "lab-2", Policy: Policy{Limit: 30, Window: time.Minute}, CountBy: CountRange,
			Ranges: []netip.Prefix{netip.MustParsePrefix("198.51.100.128/25"), netip.MustParsePrefix("2001:db8:100:7::/64"), netip.MustParsePrefix("192.0.2.1/32")}, Line: 8},
	}
	got := ps.Networks()
	if len(got) != len(want) {
		t.Fatalf("%d networks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Policy != w.Policy || g.CountBy != w.CountBy || g.Line != w.Line || len(g.Ranges) != len(w.Ranges) {
			t.Errorf("network %d: %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.Ranges {
			if g.Ranges[j] != w.Ranges[j] {
				t.Errorf("network %d range %d: %s, want %s", i, j, g.Ranges[j], w.Ranges[j])
			}
		}
	}
}

// TestParsePoliciesRefuses: every malformed line is refused, naming its line; lines that are only
// blanks or comments hold no policy.
func TestParsePoliciesRefuses(t *testing.T) {
	const good = "schools 1200 10m address 198.51.100.0/24\n"
	tests := []struct {
		name, file string
		want       string
	}{
		{"too few fields", "schools 1200 10m address\n", "line 1: no ranges"},
		{"only a name", "# c\n\nschools\n", `line 3: want "policy quota window count-by ranges"`},
		{"upper-case name", "Schools 1200 10m address 198.51.100.0/24", `line 1: policy name "Schools"`},
		{"name with a dot", "s.x 1200 10m address 198.51.100.0/24", `line 1: policy name "s.x"`},
		{"the default's name", "default 1200 10m address 198.51.100.0/24", `line 1: policy name "default"`},
		{"long name", strings.Repeat("a", 33) + " 1 1m address 198.51.100.0/24", "line 1: policy name"},
		{"zero quota", "schools 0 10m address 198.51.100.0/24", `line 1: quota "0"`},
		{"quota not a number", "schools lots 10m address 198.51.100.0/24", `line 1: quota "lots"`},
		{"window without unit", "schools 1200 600 address 198.51.100.0/24", `line 1: window "600"`},
		{"window under a second", "schools 1200 500ms address 198.51.100.0/24", `line 1: window "500ms"`},
		{"unknown count-by", "schools 1200 10m host 198.51.100.0/24", `line 1: count-by "host"`},
		{"not a range", "schools 1200 10m address 198.51.100.0", `line 1: range "198.51.100.0"`},
		{"host bits set", "schools 1200 10m address 198.51.100.7/24", "line 1: range 198.51.100.7/24 has host bits set: did you mean 198.51.100.0/24?"},
		{"mapped IPv4", "schools 1200 10m address ::ffff:198.51.100.0/120", "line 1: range ::ffff:198.51.100.0/120: write an IPv4 range as IPv4"},
		{"zone", "schools 1200 10m address fe80::%eth0/64", `line 1: range "fe80::%eth0/64"`},
		{"trailing comma", "schools 1200 10m address 198.51.100.0/24,", "line 1: an empty range"},
		{"space inside a list without comma", "schools 1200 10m address 198.51.100.0/24 203.0.113.0/24", `line 1: range "198.51.100.0/24 203.0.113.0/24"`},
		{"same name twice", good + "schools 10 1m range 203.0.113.0/24\n", `line 2: policy "schools" is named on line 1 already`},
		{"same range in two policies", good + "# x\nlab 10 1m range 198.51.100.0/24\n", "line 3: range 198.51.100.0/24 is listed on line 1 already"},
		{"same range twice in one", "lab 10 1m range 203.0.113.0/24, 203.0.113.0/24", "line 1: range 203.0.113.0/24 is listed on line 1 already"},
		{"not UTF-8", good + "lab 10 1m range 203.0.113.0/24 # \xff\n", "line 2: not UTF-8"},
		{"every bad line", "a 0 1m range 203.0.113.0/24\n" + good + "b 1 1m x 192.0.2.0/24\n", `line 1: quota "0": want a whole number of requests, at least 1; line 3: count-by "x"`},
		{"too large", good + strings.Repeat("#", MaxPoliciesBytes), "line 1: the file is over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ParsePolicies([]byte(tt.file))
			if err == nil {
				t.Fatalf("ParsePolicies: %d networks, want an error naming %q", len(ps.Networks()), tt.want)
			}
			var perr *PoliciesError
			if !errors.As(err, &perr) || !errors.Is(err, ErrInvalidPolicies) {
				t.Errorf("error %T %v: want a *PoliciesError wrapping ErrInvalidPolicies", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line holding %q", err, tt.want)
			}
		})
	}
}

func TestParsePoliciesEmpty(t *testing.T) {
	for _, file := range []string{"", "\n\n", "# policy quota window count-by ranges\n   # nothing yet\n\t\n"} {
		ps, err := ParsePolicies([]byte(file))
		if err != nil || len(ps.Networks()) != 0 {
			t.Errorf("ParsePolicies(%q) = %d networks, %v; want none", file, len(ps.Networks()), err)
		}
		if _, _, ok := ps.Lookup(netip.MustParseAddr("198.51.100.1")); ok {
			t.Errorf("ParsePolicies(%q): an address is in a range", file)
		}
	}
}

// TestPoliciesLookup: the most specific range holding an address decides its policy; an address
// in none has none.
func TestPoliciesLookup(t *testing.T) {
	data, err := os.ReadFile("testdata/policies")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ParsePolicies(data)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		addr, policy, rng string
	}{
		{"198.51.100.1", "schools", "198.51.100.0/24"},
		{"198.51.100.127", "schools", "198.51.100.0/24"},
		{"198.51.100.128", "lab-2", "198.51.100.128/25"},
		{"198.51.100.255", "lab-2", "198.51.100.128/25"},
		{"198.51.101.1", "", ""},
		{"203.0.113.15", "newsroom", "203.0.113.0/28"},
		{"203.0.113.16", "", ""},
		{"192.0.2.1", "lab-2", "192.0.2.1/32"},
		{"192.0.2.2", "", ""},
		{"2001:db8:100:1::1", "schools", "2001:db8:100::/48"},
		{"2001:db8:100:7:ffff::1", "lab-2", "2001:db8:100:7::/64"},
		{"2001:db8:101::1", "", ""},
		// IPv4 ranges never hold IPv6 addresses, whatever their bits.
		{"::c633:6401", "", ""},
		{"::1", "", ""},
	}
	for _, tt := range tests {
		i, r, ok := ps.Lookup(netip.MustParseAddr(tt.addr))
		got, gotRange := "", ""
		if ok {
			got, gotRange = ps.Networks()[i].Name, r.String()
		}
		if got != tt.policy || gotRange != tt.rng {
			t.Errorf("Lookup(%s) = %q in %q, want %q in %q", tt.addr, got, gotRange, tt.policy, tt.rng)
		}
	}
	var none *Policies
	if _, _, ok := none.Lookup(netip.MustParseAddr("198.51.100.1")); ok || none.Networks() != nil {
		t.Error("nil Policies hold a network")
	}
}

// TestUnderPolicy: a call whose context names a policy is decided exactly as a limiter of that
// policy decides it, in process and (TestRedisUnderPolicy) in Redis.
func TestUnderPolicy(t *testing.T) {
	p := Policy{Limit: 3, Window: time.Minute}
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	own, under := NewMemory(p, clock), NewMemory(DefaultPolicy, clock)
	ctx := WithPolicy(context.Background(), &p)
	for i := range 5 {
		want, _ := own.Allow(context.Background(), "v")
		got, err := under.Allow(ctx, "v")
		if err != nil || got != want {
			t.Fatalf("request %d under the policy: %+v, %v; want %+v", i+1, got, err, want)
		}
		wantStanding, _ := own.Inspect(context.Background(), "v")
		gotStanding, _ := under.Inspect(ctx, "v")
		if gotStanding != wantStanding {
			t.Fatalf("standing after %d: %+v, want %+v", i+1, gotStanding, wantStanding)
		}
		now = now.Add(3 * time.Second)
	}
	if d, _ := under.Allow(context.Background(), "w"); d.Limit != DefaultPolicy.Limit || d.Remaining != DefaultPolicy.Limit-1 {
		t.Errorf("a call naming no policy: %+v, want the limiter's own", d)
	}
}

// TestUnderPolicyWhenRedisFails: with Redis unreachable, the in-process fallback and the shadow
// in front decide a call under the policy its context names, as Redis would have.
func TestUnderPolicyWhenRedisFails(t *testing.T) {
	p := Policy{Limit: 3, Window: time.Minute}
	ctx := WithPolicy(t.Context(), &p)
	s := NewShadow(NewFallback(unreachableRedis(t), NewMemory(contract, nil), nil))
	for i := range 5 {
		d, err := s.Allow(ctx, "schools|v")
		if err != nil || d.Limit != 3 || d.Allowed != (i < 3) {
			t.Fatalf("request %d: %+v, %v; want limit 3, allowed only for the first 3", i+1, d, err)
		}
	}
	if d, err := s.Inspect(ctx, "schools|v"); err != nil || d.Allowed || d.Limit != 3 {
		t.Errorf("standing: %+v, %v; want limited at 3", d, err)
	}
}

func BenchmarkPoliciesLookup(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("wide 100 10m address 10.0.0.0/8, 2001:db8::/32\n")
	for i := range 200 {
		sb.WriteString("n" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + " 100 10m range ")
		sb.WriteString(netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i), 0, 0}), 16+i%9).Masked().String() + "\n")
	}
	ps, err := ParsePolicies([]byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	addrs := []netip.Addr{netip.MustParseAddr("10.7.1.2"), netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db9::1")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ps.Lookup(addrs[i%len(addrs)])
	}
}

// FuzzParsePolicies: whatever the file, parsing never panics; a file it accepts has valid
// policies, and every range of it finds its own policy.
func FuzzParsePolicies(f *testing.F) {
	if data, err := os.ReadFile("testdata/policies"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("a 1 1s range 0.0.0.0/0, ::/0\nb 2 1h address 10.0.0.0/8 # c\n"))
	f.Add([]byte("x 1 1m range 198.51.100.7/24,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParsePolicies(data)
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error %q names no line", err)
			}
			return
		}
		for i, n := range ps.Networks() {
			if err := n.Policy.Validate(); err != nil {
				t.Fatalf("accepted policy %q: %v", n.Name, err)
			}
			for _, r := range n.Ranges {
				j, got, ok := ps.Lookup(r.Addr())
				if !ok || got.Bits() < r.Bits() {
					t.Fatalf("range %s of %q: Lookup of its first address found %v %s", r, n.Name, ok, got)
				}
				if got == r && j != i {
					t.Fatalf("range %s of %q found under network %d", r, n.Name, j)
				}
			}
		}
	})
}

// TestRedisUnderPolicy: a Redis call whose context names a policy counts under that policy's
// numbers, as a limiter of that policy would, and its key is its own.
func TestRedisUnderPolicy(t *testing.T) {
	c := newRedisClient(t, redisURL(t))
	prefix := uniquePrefix(t)
	p := Policy{Limit: 3, Window: time.Minute}
	r := newTestRedis(t, c, prefix)
	ctx := WithPolicy(t.Context(), &p)
	for i := range 4 {
		d, err := r.Allow(ctx, "schools|v")
		if err != nil {
			t.Fatal(err)
		}
		if d.Limit != 3 || d.Allowed != (i < 3) || (i < 3 && d.Remaining != 2-i) {
			t.Fatalf("request %d under the policy: %+v, want limit 3, %d left", i+1, d, 2-i)
		}
	}
	d, err := r.Inspect(ctx, "schools|v")
	if err != nil || d.Allowed || d.Limit != 3 {
		t.Errorf("standing under the policy: %+v, %v; want limited at 3", d, err)
	}
	if d, err := r.Allow(t.Context(), "v"); err != nil || d.Limit != contract.Limit || d.Remaining != contract.Limit-1 {
		t.Errorf("a call naming no policy: %+v, %v; want the limiter's own", d, err)
	}
}
