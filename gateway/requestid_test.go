package gateway

import (
	"crypto/rand"
	"net/url"
	"strings"
	"testing"
)

// FuzzValidRequestID: whatever passes for a client's X-Request-Id, which the gateway echoes, is
// safe unescaped in a header, a log line, a URL path and a query.
func FuzzValidRequestID(f *testing.F) {
	for _, s := range []string{"ph-full", "abc-123_DEF.4", "", "has space", strings.Repeat("a", 129), "<script>", "é",
		"a\r\nSet-Cookie: x", "a/b", "a%2Fb", "a~b"} {
		f.Add(s)
	}
	if id := rand.Text(); !validRequestID(id) {
		f.Fatalf("the gateway's own request id %q is not valid", id)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !validRequestID(s) {
			return
		}
		if len(s) == 0 || len(s) > maxRequestIDLen || url.PathEscape(s) != s || url.QueryEscape(s) != s {
			t.Fatalf("%q accepted", s)
		}
	})
}
