package gateway

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

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
