package elastic

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mediagw/internal/servicetest"
	"mediagw/search"
	"mediagw/search/searchtest"
)

// TestSecureElasticsearch runs against an Elasticsearch with its security on, as production
// clusters run it: HTTPS with a certificate this test makes, file-realm users with the README's
// least-privilege roles (scripts/services.sh MEDIA_ENGINE_SECURITY=on starts that node beside the
// plain one, of the same version, the first time). The gateway's user reads the alias and nothing
// more; mediactl's makes, fills and swaps its indices (a whole load with the built-in index
// definition); a wrong password or a missing CA file fail saying so.
func TestSecureElasticsearch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an Elasticsearch node with security on (30 to 100 s the first time)")
	}
	es, _ := servicetest.EngineNamed("elasticsearch")
	plain, err := New(Config{URLs: []string{es.URL(t)}, Product: Elasticsearch})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	line, err := plain.Detect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	env := startSecure(t, line.Version)
	u, ca := env["ELASTICSEARCH_URL"], env["ELASTICSEARCH_CA_FILE"]
	gw := Config{URLs: []string{u}, Product: Elasticsearch, CAFile: ca,
		Username: env["ELASTICSEARCH_USERNAME"], Password: env["ELASTICSEARCH_PASSWORD"]}
	admin := gw
	admin.Username, admin.Password = env["MEDIA_ENGINE_ADMIN_USERNAME"], env["MEDIA_ENGINE_ADMIN_PASSWORD"]

	detect := func(cfg Config) (Engine, error) {
		b, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		return b.Detect(t.Context())
	}
	t.Run("basic auth and CA file", func(t *testing.T) {
		for _, cfg := range []Config{gw, admin} {
			if found, err := detect(cfg); err != nil || found != line {
				t.Errorf("Detect as %s: %v, %v; want %v", cfg.Username, found, err, line)
			}
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		cfg := gw
		cfg.Password += "-wrong"
		_, err := detect(cfg)
		var auth *AuthError
		if !errors.As(err, &auth) || auth.Status != http.StatusUnauthorized ||
			!strings.Contains(err.Error(), u+" refused the credentials (401): unable to authenticate user ["+gw.Username+"]") {
			t.Errorf("Detect with a wrong password: %v, want an AuthError naming the user", err)
		}
	})
	t.Run("no CA file", func(t *testing.T) {
		cfg := gw
		cfg.CAFile = ""
		if _, err := detect(cfg); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
			t.Errorf("Detect without the CA file: %v, want the certificate refused", err)
		}
	})
	t.Run("least privileges", func(t *testing.T) {
		alias := servicetest.NewAlias()
		index := alias + "-1"
		asAdmin, asGateway := clientAs(t, admin), clientAs(t, gw)
		steps := []struct {
			who          func(method, path, body string) int
			method, path string
			body         string
			want         int
		}{
			{asAdmin, http.MethodPut, "/" + index, `{"settings":{"number_of_replicas":0}}`, http.StatusOK},
			{asAdmin, http.MethodPut, "/" + index + "/_doc/1?refresh=true", `{"id":"1","title":"Winter harbour"}`, http.StatusCreated},
			{asAdmin, http.MethodPost, "/_aliases", `{"actions":[{"add":{"index":"` + index + `","alias":"` + alias + `"}}]}`, http.StatusOK},
			{asGateway, http.MethodPost, "/" + alias + "/_search", `{"query":{"match":{"title":"winter"}}}`, http.StatusOK},
			{asGateway, http.MethodGet, "/_alias/" + alias, "", http.StatusOK},
			// The gateway writes nothing and makes nothing.
			{asGateway, http.MethodPut, "/" + index + "/_doc/2", `{"id":"2"}`, http.StatusForbidden},
			{asGateway, http.MethodPut, "/" + alias + "-2", `{}`, http.StatusForbidden},
			{asGateway, http.MethodDelete, "/" + index, "", http.StatusForbidden},
			// Neither reads what is not theirs.
			{asGateway, http.MethodPost, "/other-index/_search", `{}`, http.StatusForbidden},
			{asAdmin, http.MethodPut, "/other-index", `{}`, http.StatusForbidden},
			{asAdmin, http.MethodDelete, "/" + index, "", http.StatusOK},
		}
		for i, st := range steps {
			if got := st.who(st.method, st.path, st.body); got != st.want {
				t.Errorf("step %d: %s %s = %d, want %d", i, st.method, st.path, got, st.want)
			}
		}
		// What the gateway's backend does with its own user: ping the alias, gone by now.
		b, err := New(Config{URLs: gw.URLs, Product: Elasticsearch, CAFile: ca, Username: gw.Username, Password: gw.Password, Alias: alias})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := b.Ping(t.Context()); !errors.As(err, new(*search.NoIndexError)) || !strings.Contains(err.Error(), alias) {
			t.Errorf("Ping of a removed alias as the gateway: %v, want no index behind it", err)
		}
	})
	t.Run("load as mediactl, serve as the gateway", func(t *testing.T) {
		alias := servicetest.NewAlias()
		loader := admin
		loader.Alias = alias
		lb, err := New(loader)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := servicetest.Release(lb); err != nil {
				t.Errorf("drop the test's indices as mediactl: %v", err)
			}
		}()
		items := searchtest.Fixture(t)
		if st, err := lb.Load(t.Context(), search.Values(items)); err != nil || st.Indexed != len(items) {
			t.Fatalf("Load as mediactl: %+v, %v", st, err)
		}
		reader := gw
		reader.Alias = alias
		rb, err := New(reader)
		if err != nil {
			t.Fatal(err)
		}
		defer rb.Close()
		if res, err := rb.Search(t.Context(), search.NewRequest(search.Query{Sort: search.SortNewest, Page: 1, PerPage: 1})); err != nil || res.Total != len(items) {
			t.Errorf("Search as the gateway: total %d, %v; want %d", res.Total, err, len(items))
		}
		var ee *EngineError
		if _, err := rb.Load(t.Context(), search.Values(items[:1])); !errors.As(err, &ee) || ee.Status != http.StatusForbidden {
			t.Errorf("Load as the gateway: %v, want 403", err)
		}
	})
}

// startSecure starts (or finds) the node with security on of Elasticsearch version through
// scripts/services.sh, and returns the variables it exports.
func startSecure(t *testing.T, version string) map[string]string {
	t.Helper()
	certs := makeCerts(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("..", "..", "scripts", "services.sh"), "start")
	cmd.Env = append(os.Environ(), "MEDIA_ENGINE=elasticsearch:"+version, "MEDIA_ENGINE_SECURITY=on", "MEDIA_ENGINE_CERTS="+certs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("services.sh start with security on: %v\n%s", err, stderr.String())
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"ELASTICSEARCH_URL", "ELASTICSEARCH_CA_FILE", "ELASTICSEARCH_USERNAME", "ELASTICSEARCH_PASSWORD",
		"MEDIA_ENGINE_ADMIN_USERNAME", "MEDIA_ENGINE_ADMIN_PASSWORD"} {
		if env[k] == "" {
			t.Fatalf("services.sh exported no %s:\n%s", k, out)
		}
	}
	return env
}

// makeCerts writes a CA (ca.crt) and a certificate for 127.0.0.1 and localhost it signs
// (node.crt, node.key) into a new directory, in PEM.
func makeCerts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mediagw test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	nodeKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	node := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "mediagw-dev-1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	nodeDER, err := x509.CreateCertificate(rand.Reader, node, ca, &nodeKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(nodeKey)
	if err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{
		"ca.crt":   {Type: "CERTIFICATE", Bytes: caDER},
		"node.crt": {Type: "CERTIFICATE", Bytes: nodeDER},
		"node.key": {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// clientAs sends requests to the secure node as cfg's user, returning the status of each answer.
func clientAs(t *testing.T, cfg Config) func(method, path, body string) int {
	pemBytes, err := os.ReadFile(cfg.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	t.Cleanup(c.CloseIdleConnections)
	return func(method, path, body string) int {
		req, err := http.NewRequestWithContext(t.Context(), method, cfg.URLs[0]+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(cfg.Username, cfg.Password)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
}
