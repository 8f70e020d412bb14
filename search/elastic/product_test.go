package elastic

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"mediagw/internal/servicetest"
)

// TestDetect: every engine line that is there (OPENSEARCH_URL, ELASTICSEARCH_URL; make
// engines-test points them at each line in turn) is told for what it is, and a backend configured
// for the other product refuses it naming both, with the version.
func TestDetect(t *testing.T) {
	for _, e := range servicetest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			u := e.URL(t)
			b, err := New(Config{URLs: []string{u}, Product: Product(e.Product)})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			found, err := b.Detect(t.Context())
			if err != nil || found.Product != Product(e.Product) || found.Version == "" || b.Engine() != found {
				t.Fatalf("Detect = %v, %v; Engine() = %v; want %s", found, err, b.Engine(), e.Product)
			}
			t.Logf("%s is %s", u, found)

			other := Elasticsearch
			if found.Product == Elasticsearch {
				other = OpenSearch
			}
			wrong, err := New(Config{URLs: []string{u}, Product: other})
			if err != nil {
				t.Fatal(err)
			}
			defer wrong.Close()
			_, err = wrong.Detect(t.Context())
			var mismatch *MismatchError
			want := "expected " + string(other) + " " + other.Supported() + ", but " + u + " is " + found.String()
			if !errors.As(err, &mismatch) || err.Error() != want {
				t.Errorf("Detect for %s = %v, want %q", other, err, want)
			}
		})
	}
}

// Answers of real engines to what Detect asks, recorded from the integ-test zips (Elasticsearch
// 9.2.0, 8.19.5, OpenSearch 3.8.0, 2.19.4) and, for the lines refused, from their documentation.
const (
	nodesES92 = `{"nodes":{"xTxCDimwROCyqZ5F4fiVAg":{"version":"9.2.0"}}}`
	// Elasticsearch's integ-test zips have no handler for GET / but the one for DELETE.
	rootES405 = `{"error":"Incorrect HTTP method for uri [/] and method [GET], allowed: [DELETE]","status":405}`
	rootOS38  = `{"name":"mediagw-dev-1","cluster_name":"mediagw-dev","version":{"distribution":"opensearch","number":"3.8.0","build_type":"zip"},"tagline":"The OpenSearch Project: https://opensearch.org/"}`
	rootES710 = `{"name":"es","version":{"number":"7.10.2","build_flavor":"oss"},"tagline":"You Know, for Search"}`
	// What Elasticsearch 9.2.0 with security on answers a wrong password (and a wrong API key).
	authES92 = `{"error":{"root_cause":[{"type":"security_exception","reason":"unable to authenticate user [mediagw-gateway] for REST request [/_nodes/_local?filter_path=nodes.*.version]","header":{"WWW-Authenticate":["Basic realm=\"security\", charset=\"UTF-8\"","ApiKey"]}}],"type":"security_exception","reason":"unable to authenticate user [mediagw-gateway] for REST request [/_nodes/_local?filter_path=nodes.*.version]","header":{"WWW-Authenticate":["Basic realm=\"security\", charset=\"UTF-8\"","ApiKey"]}},"status":401}`
)

// answer is a recorded answer to one path.
type answer struct {
	status int
	header map[string]string
	body   string
}

// replay serves recorded answers by path ("/" or "/_nodes/_local"), 404 for any other, and
// records the Authorization header of each request.
func replay(t *testing.T, answers map[string]answer) (string, *[]string) {
	t.Helper()
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auths = append(auths, r.Header.Get("Authorization"))
		a, ok := answers[r.URL.Path]
		if !ok {
			a = answer{status: http.StatusNotFound, body: `{"error":{"reason":"no such path"},"status":404}`}
		}
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &auths
}

// TestDetectAnswers: each line's way of saying what it is, the lines outside the supported
// range refused with their version, and refused credentials told apart from a wrong engine.
func TestDetectAnswers(t *testing.T) {
	esHeader := map[string]string{"X-Elastic-Product": "Elasticsearch"}
	nodes := func(v string) answer {
		return answer{status: http.StatusOK, body: `{"nodes":{"n1":{"version":"` + v + `"}}}`}
	}
	tests := []struct {
		name    string
		want    Product
		answers map[string]answer
		found   Engine
		err     string // the error's text after the URL; empty for none
	}{
		{"Elasticsearch 9.2.0", Elasticsearch, map[string]answer{
			"/_nodes/_local": {http.StatusOK, esHeader, nodesES92},
			"/":              {http.StatusMethodNotAllowed, esHeader, rootES405}}, Engine{Elasticsearch, "9.2.0"}, ""},
		{"Elasticsearch 8.19.5", Elasticsearch, map[string]answer{
			"/_nodes/_local": {http.StatusOK, esHeader, nodes("8.19.5").body}}, Engine{Elasticsearch, "8.19.5"}, ""},
		{"OpenSearch 3.8.0", OpenSearch, map[string]answer{
			"/_nodes/_local": nodes("3.8.0"), "/": {http.StatusOK, nil, rootOS38}}, Engine{OpenSearch, "3.8.0"}, ""},
		{"OpenSearch 2.19.4", OpenSearch, map[string]answer{
			"/_nodes/_local": nodes("2.19.4"), "/": {http.StatusOK, nil, strings.ReplaceAll(rootOS38, "3.8.0", "2.19.4")}},
			Engine{OpenSearch, "2.19.4"}, ""},
		{"OpenSearch where Elasticsearch is expected", Elasticsearch, map[string]answer{
			"/_nodes/_local": nodes("3.8.0"), "/": {http.StatusOK, nil, rootOS38}},
			Engine{OpenSearch, "3.8.0"}, " is OpenSearch 3.8.0"},
		{"Elasticsearch 7 (no header)", Elasticsearch, map[string]answer{
			"/_nodes/_local": nodes("7.10.2"), "/": {http.StatusOK, nil, rootES710}},
			Engine{Elasticsearch, "7.10.2"}, " is Elasticsearch 7.10.2"},
		{"OpenSearch 1.3", OpenSearch, map[string]answer{
			"/_nodes/_local": nodes("1.3.20"), "/": {http.StatusOK, nil, strings.ReplaceAll(rootOS38, "3.8.0", "1.3.20")}},
			Engine{OpenSearch, "1.3.20"}, " is OpenSearch 1.3.20"},
		{"Elasticsearch 10", Elasticsearch, map[string]answer{
			"/_nodes/_local": {http.StatusOK, esHeader, nodes("10.0.0").body}},
			Engine{Elasticsearch, "10.0.0"}, " is Elasticsearch 10.0.0"},
		{"neither", OpenSearch, map[string]answer{
			"/_nodes/_local": nodes("1.0.0"), "/": {http.StatusOK, nil, `{"version":{"number":"1.0.0"}}`}},
			Engine{"", "1.0.0"}, " is neither Elasticsearch nor OpenSearch (version 1.0.0)"},
		{"wrong password", Elasticsearch, map[string]answer{
			"/_nodes/_local": {http.StatusUnauthorized, esHeader, authES92}},
			Engine{}, " refused the credentials (401): unable to authenticate user [mediagw-gateway] for REST request [/_nodes/_local?filter_path=nodes.*.version]"},
		{"no monitor privilege", Elasticsearch, map[string]answer{
			"/_nodes/_local": {http.StatusForbidden, esHeader, `{"error":{"type":"security_exception","reason":"action [cluster:monitor/nodes/info] is unauthorized for user [u]"},"status":403}`}},
			Engine{}, " denied the credentials the cluster monitor privilege, needed to read its version (403): action [cluster:monitor/nodes/info] is unauthorized for user [u]"},
		{"a proxy echoing the request", Elasticsearch, map[string]answer{
			"/_nodes/_local": {http.StatusUnauthorized, nil, "GET /_nodes/_local HTTP/1.1\r\nauthorization: Basic bWVkaWFndzpTM2NyZXRQVw==\r\nX-Key: ApiKey VnVB.Y2Y3=\r\nX-Evil: \u202e\x1b[2Jok\r\n"}},
			Engine{}, " refused the credentials (401): GET /_nodes/_local HTTP/1.1 authorization: Basic [redacted] X-Key: ApiKey [redacted] X-Evil: [2Jok"},
		{"a long reason", Elasticsearch, map[string]answer{
			"/_nodes/_local": {http.StatusUnauthorized, esHeader, `{"error":{"reason":"` + strings.Repeat("é", 150) + ` Bearer abc.def"}}`}},
			Engine{}, " refused the credentials (401): " + strings.Repeat("é", 100) + "..."},
		{"a reason with a token", OpenSearch, map[string]answer{
			"/_nodes/_local": {http.StatusForbidden, nil, `{"error":{"reason":"token [Bearer eyJhbGciOi.x-y_z] refused\nagain"}}`}},
			Engine{}, " denied the credentials the cluster monitor privilege, needed to read its version (403): token [Bearer [redacted]] refused again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, _ := replay(t, tt.answers)
			b, err := New(Config{URLs: []string{u}, Product: tt.want, ReadRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			found, err := b.Detect(t.Context())
			if found != tt.found {
				t.Errorf("found %v, want %v", found, tt.found)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("Detect: %v", err)
			case tt.err != "" && (err == nil || !strings.HasSuffix(err.Error(), u+tt.err)):
				t.Errorf("Detect: %v, want an error ending %q", err, u+tt.err)
			}
			var mismatch *MismatchError
			var auth *AuthError
			if tt.err != "" && !errors.As(err, &mismatch) && !errors.As(err, &auth) {
				t.Errorf("Detect: %T, want *MismatchError or *AuthError", err)
			}
		})
	}
}

// TestAPIKey: MEDIA_ENGINE_API_KEY goes as "Authorization: ApiKey <key>" on every request, in
// place of basic authentication, checked against a recorded exchange: creating an API key needs the
// security index, which the integ-test zip cannot make (it lacks analysis-common).
func TestAPIKey(t *testing.T) {
	const key = "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=="
	u, auths := replay(t, map[string]answer{
		"/_nodes/_local": {http.StatusOK, map[string]string{"X-Elastic-Product": "Elasticsearch"}, nodesES92}})
	b, err := New(Config{URLs: []string{u}, Product: Elasticsearch, APIKey: key, Username: "ignored", Password: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Detect(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(*auths) == 0 || (*auths)[0] != "ApiKey "+key {
		t.Errorf("Authorization headers sent: %q, want ApiKey %s", *auths, key)
	}
}

// TestCAFile: a CA file that holds no certificate, or is not there, is refused at New.
func TestCAFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{dir + "/missing.pem", "product_test.go"} {
		if _, err := New(Config{URLs: []string{"https://127.0.0.1:1"}, CAFile: f}); err == nil || !strings.Contains(err.Error(), "CA file") {
			t.Errorf("New with CA file %s: %v, want an error about the CA file", f, err)
		}
	}
}
