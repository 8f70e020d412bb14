package gateway

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"mediagw/ratelimit"
)

var allowancePolicy = ratelimit.Policy{Limit: 100, Window: time.Minute}

func allowed(remaining int) ratelimit.Decision {
	return ratelimit.Decision{Allowed: true, Limit: allowancePolicy.Limit, Remaining: remaining}
}

// TestAllowancesBounded: a flood of distinct visitors never holds more than maxAllowances, and
// what is held is forgotten a window after it was heard.
func TestAllowancesBounded(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := newAllowances(allowancePolicy, func() time.Time { return now })
	for i := range 3 * maxAllowances {
		a.heard("198.51."+strconv.Itoa(i), allowed(99), nil, false)
	}
	for i := range a.shards {
		if n := len(a.shards[i].m); n > maxAllowances/allowanceShards {
			t.Fatalf("shard %d holds %d visitors, want at most %d", i, n, maxAllowances/allowanceShards)
		}
	}
	a.heard("203.0.113.10", allowed(99), nil, false)
	if !a.reserve("203.0.113.10") {
		t.Fatal("a visitor just heard with plenty left is not speculated")
	}
	now = now.Add(allowancePolicy.Window + time.Nanosecond)
	if a.reserve("203.0.113.10") {
		t.Error("a visitor last heard more than a window ago is speculated")
	}
}

// TestAllowancesMargin: a visitor is speculated while what it had left, less its requests in
// flight, is at least the margin (10 of 100); a refusal or a drop below the margin ends it, and a
// failed decision changes nothing but the count in flight.
func TestAllowancesMargin(t *testing.T) {
	type step struct {
		// heard, when set, is the decision heard before reserving; reserved says it answers a
		// reserved request, failed that the limiter failed instead.
		heard            *ratelimit.Decision
		reserved, failed bool
		want             bool
	}
	d := func(dec ratelimit.Decision) *ratelimit.Decision { return &dec }
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"unknown", []step{{want: false}}},
		{"below the margin", []step{{heard: d(allowed(9)), want: false}}},
		{"refused", []step{{heard: d(allowed(50)), want: true}, {heard: d(ratelimit.Decision{Limit: 100}), reserved: true, want: false}}},
		{"in flight count against the margin", []step{
			{heard: d(allowed(11)), want: true},
			{want: true},
			{want: false},
			{heard: d(allowed(11)), reserved: true, want: true},
		}},
		{"failure keeps the evidence", []step{
			{heard: d(allowed(10)), want: true},
			{want: false},
			{failed: true, reserved: true, want: true},
		}},
		{"below the margin with requests in flight", []step{
			{heard: d(allowed(40)), want: true},
			{want: true},
			{heard: d(allowed(3)), reserved: true, want: false},
			{heard: d(allowed(30)), reserved: true, want: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAllowances(allowancePolicy, time.Now)
			for i, s := range tc.steps {
				switch {
				case s.failed:
					a.heard("v", ratelimit.Decision{}, errors.New("redis down"), s.reserved)
				case s.heard != nil:
					a.heard("v", *s.heard, nil, s.reserved)
				}
				if got := a.reserve("v"); got != s.want {
					t.Fatalf("step %d: speculated %v, want %v", i, got, s.want)
				}
			}
		})
	}
}

// TestHeldBytesBounded: a held answer keeps its bytes only within its own cap and the gateway's;
// the write past either overflows, and goes with every later one to the writer overflow returns.
func TestHeldBytesBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		// inUse is what other held answers hold; writes are this answer's writes.
		inUse    int64
		writes   []int
		wantHeld int
	}{
		{"small answer", 0, []int{1000, 2000}, 3000},
		{"within its cap", 0, []int{maxHeldPerRequest}, maxHeldPerRequest},
		{"past its cap", 0, []int{maxHeldPerRequest - 10, 20, 5}, maxHeldPerRequest - 10},
		{"one large write", 0, []int{5 << 20}, 0},
		{"past the gateway's cap", maxHeldTotal - 100, []int{50, 60, 10}, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var budget atomic.Int64
			budget.Store(tc.inUse)
			out := httptest.NewRecorder()
			overflows := 0
			h := &heldResponse{header: http.Header{}, body: &bytes.Buffer{}, budget: &budget,
				overflow: func() (http.ResponseWriter, error) { overflows++; return out, nil }}
			total := 0
			for _, n := range tc.writes {
				if _, err := h.Write(make([]byte, n)); err != nil {
					t.Fatal(err)
				}
				total += n
			}
			if h.body.Len() != tc.wantHeld || out.Body.Len() != total-tc.wantHeld {
				t.Errorf("held %d and sent %d bytes, want %d and %d", h.body.Len(), out.Body.Len(), tc.wantHeld, total-tc.wantHeld)
			}
			if want := min(1, total-tc.wantHeld); overflows != want {
				t.Errorf("overflowed %d times, want %d", overflows, want)
			}
			if got := budget.Load(); got != tc.inUse+int64(tc.wantHeld) {
				t.Errorf("the budget counts %d bytes, want %d", got, tc.inUse+int64(tc.wantHeld))
			}
			h.release()
			if got := budget.Load(); got != tc.inUse {
				t.Errorf("after release the budget counts %d bytes, want %d", got, tc.inUse)
			}
		})
	}
}
