package bench

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"mediagw/ratelimit"
)

// TestPassthrough: the proxy forwards a request unchanged and answers what the engine answered;
// with the rate limit, it asks once per API request for the visitor the harness names, answers a
// refusal with 429 without asking the engine, and lets a request through when the limit fails.
func TestPassthrough(t *testing.T) {
	errLimit := errors.New("redis down")
	tests := []struct {
		name     string
		admit    *fakeAdmit // nil: no rate limit
		header   http.Header
		want     int
		upstream bool   // the engine was asked
		visitor  string // what the limit was asked about ("": not asked)
	}{
		{name: "no limit", want: http.StatusCreated, upstream: true},
		{name: "allowed", admit: &fakeAdmit{allow: true}, header: http.Header{"X-Forwarded-For": {"10.0.0.7, 10.9.9.9"}},
			want: http.StatusCreated, upstream: true, visitor: "10.0.0.7"},
		{name: "the peer without X-Forwarded-For", admit: &fakeAdmit{allow: true}, want: http.StatusCreated, upstream: true, visitor: "127.0.0.1"},
		{name: "refused", admit: &fakeAdmit{}, header: http.Header{"X-Forwarded-For": {"10.0.0.8"}},
			want: http.StatusTooManyRequests, visitor: "10.0.0.8"},
		{name: "limit failed", admit: &fakeAdmit{err: errLimit}, header: http.Header{"X-Forwarded-For": {"10.0.0.9"}},
			want: http.StatusCreated, upstream: true, visitor: "10.0.0.9"},
		{name: "a list's later page", admit: &fakeAdmit{}, header: http.Header{ContinuedHeader: {"1"}},
			want: http.StatusCreated, upstream: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				sync.Mutex
				method, uri, body, contentType string
				calls                          int
			}
			engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				got.Lock()
				got.method, got.uri, got.body, got.contentType = r.Method, r.RequestURI, string(body), r.Header.Get("Content-Type")
				got.calls++
				got.Unlock()
				w.Header().Set("X-Engine", "yes")
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, `{"took":1}`)
			}))
			defer engine.Close()
			u, _ := url.Parse(engine.URL)
			var limit Limiter
			if tt.admit != nil {
				limit = tt.admit
			}
			proxy := httptest.NewServer(Passthrough(u, http.DefaultTransport, limit))
			defer proxy.Close()

			req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/media/_search?size=1", strings.NewReader(`{"query":{}}`))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()

			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
			got.Lock()
			defer got.Unlock()
			if !tt.upstream {
				if got.calls != 0 {
					t.Errorf("the engine was asked %d times, want none", got.calls)
				}
			} else {
				if got.calls != 1 || got.method != http.MethodPost || got.uri != "/media/_search?size=1" ||
					got.body != `{"query":{}}` || got.contentType != "application/json" {
					t.Errorf("the engine got %d calls, last %s %s %q (%s), want the request unchanged",
						got.calls, got.method, got.uri, got.body, got.contentType)
				}
				if string(body) != `{"took":1}` || resp.Header.Get("X-Engine") != "yes" {
					t.Errorf("answer %q (X-Engine %q), want the engine's", body, resp.Header.Get("X-Engine"))
				}
			}
			if tt.admit != nil && tt.admit.visitor != tt.visitor {
				t.Errorf("the limit was asked about %q, want %q", tt.admit.visitor, tt.visitor)
			}
		})
	}
}

// fakeAdmit answers a rate-limit question the same way each time and remembers who was asked
// about.
type fakeAdmit struct {
	allow   bool
	err     error
	visitor string
}

func (f *fakeAdmit) Allow(_ context.Context, visitor string) (ratelimit.Decision, error) {
	f.visitor = visitor
	return ratelimit.Decision{Allowed: f.allow}, f.err
}

// TestProxiedVisitors: the direct requests sent through a proxy come from the run's visitors, as
// the gateway's do; straight to the engine, from nobody in particular.
func TestProxiedVisitors(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Forwarded-For")+"|"+r.Header.Get(ContinuedHeader))
		mu.Unlock()
		io.WriteString(w, `{}`)
	}))
	defer engine.Close()
	r := &Request{Query: "resource=item&id=x", Direct: Direct{Method: http.MethodPost, Path: "/media/_search", Body: []byte(`{}`)}}
	client := NewClient(1, 0)
	for _, target := range []*OpenSearch{NewProxied("proxy", engine.URL, client, 100), NewOpenSearch("engine", engine.URL, client)} {
		if status, _, err := target.Do(context.Background(), r, 105); err != nil || status != http.StatusOK {
			t.Fatalf("%s: status %d, %v", target.Name(), status, err)
		}
	}
	want := []string{VisitorAddr(5).String() + "|", "|"}
	if strings.Join(seen, " ") != strings.Join(want, " ") {
		t.Errorf("X-Forwarded-For|continued seen %q, want %q", seen, want)
	}
}
