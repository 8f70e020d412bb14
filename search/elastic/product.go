package elastic

// What the backend talks to: Elasticsearch or OpenSearch, and which version. The two lines take
// the same plain JSON for everything the backend sends, so one client (opensearch-go, which checks
// no product) serves both; where their answers differ, this file says how, for which versions.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Product is an engine line the backend serves.
type Product string

// The products, spelled as their makers do (the names the engines give themselves).
const (
	Elasticsearch Product = "Elasticsearch"
	OpenSearch    Product = "OpenSearch"
)

// majors are the major versions of each product the backend is tested on (make engines-test).
var majors = map[Product][2]int{
	Elasticsearch: {8, 9},
	OpenSearch:    {2, 3},
}

// Supported says which versions of p the backend serves, as "8.x-9.x".
func (p Product) Supported() string {
	r, ok := majors[p]
	if !ok {
		return "no version"
	}
	return fmt.Sprintf("%d.x-%d.x", r[0], r[1])
}

// Engine is what a cluster says it is.
type Engine struct {
	// Product is empty when the cluster named neither product.
	Product Product
	// Version is the answering node's version, as it gives it ("9.2.0").
	Version string
}

func (e Engine) String() string {
	if e.Product == "" {
		return "neither Elasticsearch nor OpenSearch (version " + e.Version + ")"
	}
	return string(e.Product) + " " + e.Version
}

// supports says whether the backend serves e when configured for want.
func (e Engine) supports(want Product) bool {
	if e.Product != want {
		return false
	}
	major, _, _ := strings.Cut(e.Version, ".")
	n, err := strconv.Atoi(major)
	r := majors[want]
	return err == nil && n >= r[0] && n <= r[1]
}

// MismatchError is the answer of Detect when the cluster is not the configured product, or not a
// version of it the backend serves. The gateway refuses to start with it.
type MismatchError struct {
	// URL is the node that answered, without credentials.
	URL   string
	Want  Product
	Found Engine
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("expected %s %s, but %s is %s", e.Want, e.Want.Supported(), e.URL, e.Found)
}

// AuthError is the answer of Detect when the cluster refuses the configured credentials (401) or
// lets them read nothing it needs to know (403).
type AuthError struct {
	URL    string
	Status int
	// Reason is the engine's own words, such as "unable to authenticate user [x] for REST request",
	// as errorReason leaves them (credentials redacted, one line, capped). Unlike other answers'
	// (EngineError), it quotes no user input: Detect's requests hold none.
	Reason string
}

func (e *AuthError) Error() string {
	what := "refused the credentials"
	if e.Status == http.StatusForbidden {
		what = "denied the credentials the cluster monitor privilege, needed to read its version"
	}
	return fmt.Sprintf("%s %s (%d): %s", e.URL, what, e.Status, e.Reason)
}

// Detect asks the cluster what it is, remembers it (Engine), and fails with *MismatchError when it
// is not the configured Product in a supported version, *AuthError when the credentials are refused.
func (b *Backend) Detect(ctx context.Context) (Engine, error) {
	ctx, cancel := b.bound(ctx, b.cfg.Timeout)
	defer cancel()
	// _nodes/_local answers the version on every line; Elasticsearch (7.14 and later) also names
	// itself in the X-Elastic-Product header of every answer.
	var nodes struct {
		Nodes map[string]struct {
			Version string `json:"version"`
		} `json:"nodes"`
	}
	hdr, where, err := b.getJSON(ctx, "/_nodes/_local?filter_path=nodes.*.version", &nodes)
	if err != nil {
		return Engine{}, err
	}
	var found Engine
	for _, n := range nodes.Nodes {
		found.Version = n.Version
	}
	if hdr.Get("X-Elastic-Product") == string(Elasticsearch) {
		found.Product = Elasticsearch
	} else {
		// OpenSearch (every version) names itself in GET /'s version.distribution, which
		// Elasticsearch's integ-test zips (8.x, 9.x) do not serve (405); they have the header.
		var root struct {
			Version struct {
				Distribution string `json:"distribution"`
				Number       string `json:"number"`
			} `json:"version"`
			Tagline string `json:"tagline"`
		}
		if _, _, err := b.getJSON(ctx, "/", &root); err != nil {
			return Engine{}, err
		}
		switch {
		case root.Version.Distribution == "opensearch":
			found.Product = OpenSearch
		case strings.Contains(root.Tagline, "You Know, for Search"):
			// Elasticsearch before 7.14 sends no header: named so that the refusal says which.
			found.Product = Elasticsearch
		}
		if found.Version == "" {
			found.Version = root.Version.Number
		}
	}
	b.engine.Store(&found)
	if !found.supports(b.cfg.Product) {
		return found, &MismatchError{URL: where, Want: b.cfg.Product, Found: found}
	}
	return found, nil
}

// Engine is what Detect found, the zero Engine before it ran.
func (b *Backend) Engine() Engine {
	if e := b.engine.Load(); e != nil {
		return *e
	}
	return Engine{}
}

// getJSON sends GET path to a node and decodes its answer into v, returning the answer's header
// and the node's address without credentials.
func (b *Backend) getJSON(ctx context.Context, path string, v any) (http.Header, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, "", fmt.Errorf("engine detect: %w", err)
	}
	resp, err := b.reads.Client.Perform(req)
	where := strings.Join(redactedURLs(b.cfg.URLs), ",")
	if resp != nil && resp.Request != nil {
		where = redactedURL(resp.Request.URL)
	}
	if err != nil {
		return nil, where, classify(ctx, b.name(), "engine detect", 0, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, where, classify(ctx, b.name(), "engine detect", resp.StatusCode, err)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return nil, where, &AuthError{URL: where, Status: resp.StatusCode, Reason: errorReason(body)}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, where, classify(ctx, b.name(), "engine detect "+path, resp.StatusCode,
			fmt.Errorf("%s answers %s: %s", where, resp.Status, errorReason(body)))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, where, fmt.Errorf("engine detect: %s answers GET %s with no JSON: %w", where, path, err)
	}
	return resp.Header, where, nil
}

// errorReason is the reason of an engine's error body ({"error":{"reason":...}}; both lines), or
// the start of the body, made fit for a log line and an error at start-up: credentials it quotes
// redacted (a proxy that echoes the request quotes its Authorization), unprintable runes and line
// breaks as spaces, at most maxReasonBytes.
func errorReason(body []byte) string {
	var e struct {
		Error struct {
			Reason string `json:"reason"`
		} `json:"error"`
	}
	s := string(body)
	if json.Unmarshal(body, &e) == nil && e.Error.Reason != "" {
		s = e.Error.Reason
	}
	s = credential.ReplaceAllString(s, "$1 [redacted]")
	s = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if !strconv.IsPrint(r) {
			return ' '
		}
		return r
	}, s)), " ")
	if len(s) > maxReasonBytes {
		cut := maxReasonBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// maxReasonBytes caps the engine's words in an error: enough for any reason the engines give.
const maxReasonBytes = 200

// credential is an Authorization value of the schemes the backend sends (Basic, ApiKey) and
// Bearer, in any case; a plain word after one (basic authentication) is redacted too, harmlessly.
var credential = regexp.MustCompile(`(?i)\b(basic|apikey|bearer)\s+[A-Za-z0-9+/=._~-]+`)

// redactedURL is u's scheme and host: the user info may hold a password.
func redactedURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

func redactedURLs(urls []string) []string {
	out := make([]string, 0, len(urls))
	for _, s := range urls {
		if u, err := url.Parse(s); err == nil {
			out = append(out, redactedURL(u))
		}
	}
	return out
}
