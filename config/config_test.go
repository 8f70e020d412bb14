package config

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"mediagw/catalogue"
	"mediagw/querylog"
	"mediagw/ratelimit"
	"mediagw/search"
	"mediagw/search/admit"
	"mediagw/search/breaker"
	"mediagw/search/cache"
	"mediagw/search/elastic"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	c, rest, err := Load("mediagw", nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8080" || c.AdminAddr != "127.0.0.1:9090" || c.Backend != "embedded" || c.RateLimit != 120 ||
		c.RateWindow != 10*time.Minute || c.BasePath != "/" || c.RedisURL != "" || !c.Cache || c.CacheTTL != 5*time.Minute ||
		len(rest) != 0 {
		t.Errorf("defaults = %+v", c)
	}
}

// TestShardsAndReplicas: unset, both keep the index definition's; set, they are what it gets.
func TestShardsAndReplicas(t *testing.T) {
	tests := []struct {
		env              map[string]string
		shards, replicas int
	}{
		{nil, 0, -1},
		{map[string]string{"MEDIA_ENGINE_SHARDS": "3", "MEDIA_ENGINE_REPLICAS": "1"}, 3, 1},
		{map[string]string{"MEDIA_ENGINE_REPLICAS": "0"}, 0, 0},
	}
	for _, tt := range tests {
		c, _, err := Load("mediactl", nil, env(tt.env), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if c.EngineShards != tt.shards || c.EngineReplicas != tt.replicas {
			t.Errorf("%v: shards %d, replicas %d; want %d, %d", tt.env, c.EngineShards, c.EngineReplicas, tt.shards, tt.replicas)
		}
	}
}

// TestDefaultsOfTheirOwners: the defaults that another package owns are its values, so the two
// cannot drift apart.
func TestDefaultsOfTheirOwners(t *testing.T) {
	c, _, err := Load("mediagw", nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"MEDIA_BACKEND", c.Backend, BackendEmbedded},
		{"MEDIA_ENGINE_INDEX", c.EngineIndex, elastic.DefaultAlias},
		{"MEDIA_KEEP_INDICES", c.KeepIndices, search.DefaultKeep},
		{"MEDIA_BACKEND_TIMEOUT", c.BackendTimeout, search.DefaultTimeout},
		{"MEDIA_RATE_LIMIT", c.RateLimit, ratelimit.DefaultPolicy.Limit},
		{"MEDIA_RATE_WINDOW", c.RateWindow, ratelimit.DefaultPolicy.Window},
		{"MEDIA_BREAKER_FAILURES", c.BreakerFailures, breaker.DefaultFailures},
		{"MEDIA_BREAKER_OPEN", c.BreakerOpen, breaker.DefaultOpenFor},
		{"MEDIA_CACHE_TTL", c.CacheTTL, cache.DefaultTTL},
		{"MEDIA_ADMIT_WAIT", c.AdmitWait, admit.DefaultWait},
		{"MEDIA_QUERY_LOG_TOP", c.QueryLogTop, querylog.DefaultTop},
		{"MEDIA_QUERY_LOG_WINDOW", c.QueryLogWindow, querylog.DefaultWindow},
		{"MEDIA_CATALOGUE_MAX_LINE", c.CatalogueMaxLine, catalogue.DefaultMaxLineBytes},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s defaults to %v, its owner's default is %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestFlagsOverrideEnv(t *testing.T) {
	c, rest, err := Load("mediagw", []string{"-rate-limit", "5", "extra"},
		env(map[string]string{"MEDIA_RATE_LIMIT": "7", "MEDIA_RATE_WINDOW": "1m", "MEDIA_BASE_PATH": "/api",
			"MEDIA_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1,::ffff:198.51.100.7"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("198.51.100.7/32")}
	if c.RateLimit != 5 || c.RateWindow != time.Minute || c.BasePath != "/api/" || len(rest) != 1 || rest[0] != "extra" {
		t.Errorf("config = %+v, rest %v", c, rest)
	}
	if len(c.TrustedProxies) != len(want) {
		t.Fatalf("trusted proxies = %v, want %v", c.TrustedProxies, want)
	}
	for i := range want {
		if c.TrustedProxies[i] != want[i] {
			t.Errorf("trusted proxy %d = %v, want %v", i, c.TrustedProxies[i], want[i])
		}
	}
}

// MEDIA_DEMO_APIS holds origins as the browser writes them, for the page and its CSP to compare.
func TestDemoAPIs(t *testing.T) {
	c, _, err := Load("mediagw", nil, env(map[string]string{"MEDIA_DEMO_APIS": "https://API.example.org/, http://127.0.0.1:18181"}), io.Discard)
	if want := []string{"https://api.example.org", "http://127.0.0.1:18181"}; err != nil || !slices.Equal(c.DemoAPIs, want) {
		t.Errorf("DemoAPIs = %q, %v; want %q", c.DemoAPIs, err, want)
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct{ env, value string }{
		{"MEDIA_ADDR", "8080"},
		{"MEDIA_BACKEND", "elastic"},
		{"MEDIA_ENGINE_URL", "localhost"},
		{"OPENSEARCH_URL", "localhost"},
		{"REDIS_URL", "nowhere"},
		{"REDIS_URL", "http://127.0.0.1:6379"},
		{"MEDIA_RATE_LIMIT", "0"},
		{"MEDIA_RATE_LIMIT", "ten"},
		{"MEDIA_RATE_WINDOW", "10"},
		{"MEDIA_RATE_WINDOW", "500ms"},
		{"MEDIA_TRUSTED_PROXIES", "10.0.0.0/33"},
		{"MEDIA_PUBLIC_URL", "example.org"},
		{"MEDIA_PUBLIC_URL", "https://example.org/?a=b"},
		{"MEDIA_BASE_PATH", "api"},
		{"MEDIA_LOG_LEVEL", "loud"},
		{"MEDIA_KEEP_INDICES", "-1"},
		{"MEDIA_CACHE", "yes"},
		{"MEDIA_CACHE_TTL", "0s"},
		{"MEDIA_ENGINE_INDEX", " "},
		{"MEDIA_ENGINE_DISCOVER", "-1s"},
		{"MEDIA_ENGINE_SHARDS", "-1"},
		{"MEDIA_ENGINE_REPLICAS", "-1"},
		{"MEDIA_ENGINE_REPLICAS", "one"},
		// A user name needs its password.
		{"MEDIA_ENGINE_USERNAME", "mediagw-gateway"},
		{"OPENSEARCH_PASSWORD", "s3cret"},
		{"MEDIA_MAX_INFLIGHT", "-1"},
		{"MEDIA_ADMIT_WAIT", "0s"},
		{"MEDIA_ADMIT_WAIT", "10"},
		{"MEDIA_CACHE_MAX_MB", "lots"},
		{"MEDIA_DEMO_APIS", "api.example.org"},
		{"MEDIA_DEMO_APIS", "https://api.example.org/v1/"},
		{"MEDIA_DEMO_APIS", "javascript://api.example.org"},
		{"MEDIA_DEMO_APIS", "https://user:pw@api.example.org"},
		{"MEDIA_DEMO_APIS", "https://api.example.org/?a=b"},
		{"MEDIA_QUERY_LOG_TOP", "-1"},
		{"MEDIA_QUERY_LOG_TOP", "100001"},
		{"MEDIA_QUERY_LOG_WINDOW", "10s"},
		{"MEDIA_QUERY_LOG_WINDOW", "24"},
	}
	for _, tt := range tests {
		t.Run(tt.env+"="+tt.value, func(t *testing.T) {
			_, _, err := Load("mediagw", nil, env(map[string]string{tt.env: tt.value}), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.env) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error = %v, want one line naming %s", err, tt.env)
			}
		})
	}
}

// The README's settings table is the operators' reference: every setting must be in it, with its
// flag and default, and its table of aliases every old name.
func TestREADMEListsEverySetting(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Settings {
		def := s.Default
		if def == "" {
			def = "(empty)"
		}
		row := fmt.Sprintf("| `%s` | `-%s` | `%s` |", s.Env, s.Flag, def)
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row starting %s", row)
		}
	}
	// Every old name, beside the setting it stands for.
	for _, a := range Aliases {
		if row := fmt.Sprintf("| `%s` | `%s` |", a.Env, a.Of); !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row starting %s", row)
		}
	}
}

// TestAliases: the engine settings' old names are read for the backend they named, and one that
// disagrees with the new name stops the start with an error naming both.
func TestAliases(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		// want is the configuration's engine part; err, when set, a piece of the error instead.
		want Config
		err  string
	}{
		{name: "new names", env: map[string]string{"MEDIA_BACKEND": "elasticsearch", "MEDIA_ENGINE_URL": "http://es:9200",
			"MEDIA_ENGINE_INDEX": "items", "MEDIA_ENGINE_DISCOVER": "1m", "MEDIA_ENGINE_API_KEY": "k"},
			want: Config{EngineURL: "http://es:9200", EngineIndex: "items", EngineDiscover: time.Minute, EngineAuth: EngineAuth{APIKey: "k"}}},
		{name: "OpenSearch's old names", env: map[string]string{"MEDIA_BACKEND": "opensearch", "OPENSEARCH_URL": "http://os:9200",
			"OPENSEARCH_INDEX": "items", "OPENSEARCH_DISCOVER": "1m", "OPENSEARCH_USERNAME": "u", "OPENSEARCH_PASSWORD": "p",
			"OPENSEARCH_CA_FILE": "ca.pem", "OPENSEARCH_MAPPING": "m.json",
			// The other engine's names do not apply.
			"ELASTICSEARCH_URL": "http://es:9200", "ELASTICSEARCH_INDEX": "other"},
			want: Config{EngineURL: "http://os:9200", EngineIndex: "items", EngineDiscover: time.Minute, EngineMapping: "m.json",
				EngineAuth: EngineAuth{Username: "u", Password: "p", CAFile: "ca.pem"}}},
		{name: "Elasticsearch's old names", env: map[string]string{"MEDIA_BACKEND": "elasticsearch", "ELASTICSEARCH_URL": "http://es:9200",
			"ELASTICSEARCH_INDEX": "items", "ELASTICSEARCH_API_KEY": "k", "ELASTICSEARCH_CA_FILE": "ca.pem", "OPENSEARCH_MAPPING": "m.json",
			"OPENSEARCH_URL": "http://os:9200", "OPENSEARCH_INDEX": "other"},
			want: Config{EngineURL: "http://es:9200", EngineIndex: "items", EngineMapping: "m.json",
				EngineAuth: EngineAuth{APIKey: "k", CAFile: "ca.pem"}}},
		{name: "the embedded backend's baseline reads OpenSearch's", env: map[string]string{"OPENSEARCH_URL": "http://os:9200",
			"ELASTICSEARCH_URL": "http://es:9200"},
			want: Config{EngineURL: "http://os:9200", EngineIndex: "media"}},
		{name: "old and new agree", env: map[string]string{"MEDIA_BACKEND": "opensearch", "OPENSEARCH_URL": "http://os:9200",
			"MEDIA_ENGINE_URL": "http://os:9200"},
			want: Config{EngineURL: "http://os:9200", EngineIndex: "media"}},
		{name: "the backend from a flag picks the names", env: map[string]string{"OPENSEARCH_URL": "http://os:9200",
			"ELASTICSEARCH_URL": "http://es:9200"}, args: []string{"-backend", "elasticsearch"},
			want: Config{EngineURL: "http://es:9200", EngineIndex: "media"}},
		{name: "old and new disagree", env: map[string]string{"MEDIA_BACKEND": "opensearch", "OPENSEARCH_INDEX": "a",
			"MEDIA_ENGINE_INDEX": "b"}, err: `MEDIA_ENGINE_INDEX (-engine-index) and its old name OPENSEARCH_INDEX disagree ("b", "a")`},
		{name: "a flag and an old name disagree", env: map[string]string{"MEDIA_BACKEND": "elasticsearch", "ELASTICSEARCH_URL": "http://a:9200"},
			args: []string{"-engine-url", "http://b:9200"}, err: "MEDIA_ENGINE_URL (-engine-url) and its old name ELASTICSEARCH_URL disagree"},
		{name: "disagreeing secrets stay hidden", env: map[string]string{"MEDIA_BACKEND": "elasticsearch", "ELASTICSEARCH_PASSWORD": "s3cret-a",
			"MEDIA_ENGINE_PASSWORD": "s3cret-b"}, err: `MEDIA_ENGINE_PASSWORD (-engine-password) and its old name ELASTICSEARCH_PASSWORD disagree ("xxxxx", "xxxxx")`},
		{name: "a bad value is named by the old name it came from", env: map[string]string{"OPENSEARCH_URL": "localhost"},
			err: "invalid OPENSEARCH_URL (old name of MEDIA_ENGINE_URL (-engine-url))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := Load("mediagw", tt.args, env(tt.env), io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error = %v, want one saying %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := Config{EngineURL: c.EngineURL, EngineIndex: c.EngineIndex, EngineMapping: c.EngineMapping,
				EngineDiscover: c.EngineDiscover, EngineAuth: c.EngineAuth}
			if got.EngineURL != tt.want.EngineURL || got.EngineIndex != tt.want.EngineIndex || got.EngineMapping != tt.want.EngineMapping ||
				got.EngineDiscover != tt.want.EngineDiscover || got.EngineAuth != tt.want.EngineAuth {
				t.Errorf("engine settings = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRedisURLForms(t *testing.T) {
	for _, v := range []string{"redis://127.0.0.1:6379/0", "rediss://:pw@redis.example:6380", "unix:///run/redis.sock",
		"redis://127.0.0.1:26379?master_name=mymaster", "redis+cluster://10.0.0.1:6379,10.0.0.2:6379"} {
		if _, _, err := Load("mediagw", nil, env(map[string]string{"REDIS_URL": v}), io.Discard); err != nil {
			t.Errorf("REDIS_URL=%s: %v", v, err)
		}
	}
}

func TestErrorsHidePasswords(t *testing.T) {
	_, _, err := Load("mediagw", nil, env(map[string]string{"REDIS_URL": "ftp://user:s3cret@host/"}), io.Discard)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error = %v, want one without the password", err)
	}
}

// TestParsePrefixesMapped: an IPv4-mapped CIDR is the IPv4 CIDR it maps, as visitors' mapped
// addresses are read as IPv4; one that reaches past the mapped range is refused, saying why.
func TestParsePrefixesMapped(t *testing.T) {
	for _, tc := range []struct {
		in, want, wantErr string
	}{
		{"::ffff:127.0.0.0/104", "127.0.0.0/8", ""},
		{"::ffff:10.1.2.3/128", "10.1.2.3/32", ""},
		{"::ffff:0.0.0.0/96", "0.0.0.0/0", ""},
		{"::ffff:10.0.0.0/104, fd00::/8", "10.0.0.0/8 fd00::/8", ""},
		{"::ffff:0:0/95", "", "IPv4-mapped"},
	} {
		got, err := ParsePrefixes(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if err != nil || strings.Join(s, " ") != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.in, s, err, tc.want)
		}
	}
}

// TestPublicURLFollowsAddr: without MEDIA_PUBLIC_URL, links name the address the API listens on
// (loopback for a wildcard host); a public URL given by variable or flag wins.
func TestPublicURLFollowsAddr(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, "http://127.0.0.1:8080"},
		{map[string]string{"MEDIA_ADDR": ":9000"}, nil, "http://127.0.0.1:9000"},
		{map[string]string{"MEDIA_ADDR": "0.0.0.0:9000"}, nil, "http://127.0.0.1:9000"},
		{map[string]string{"MEDIA_ADDR": "[::]:9000"}, nil, "http://127.0.0.1:9000"},
		{map[string]string{"MEDIA_ADDR": "192.0.2.7:80"}, nil, "http://192.0.2.7:80"},
		{map[string]string{"MEDIA_ADDR": "[2001:db8::1]:8081"}, nil, "http://[2001:db8::1]:8081"},
		{nil, []string{"-addr", "localhost:7000"}, "http://localhost:7000"},
		{map[string]string{"MEDIA_ADDR": ":9000", "MEDIA_PUBLIC_URL": "https://media.example.org/"}, nil, "https://media.example.org"},
		{map[string]string{"MEDIA_ADDR": ":9000"}, []string{"-public-url", "https://x.example"}, "https://x.example"},
	} {
		c, _, err := Load("mediagw", tc.args, env(tc.env), io.Discard)
		if err != nil || c.PublicURL != tc.want {
			t.Errorf("env %v, args %v: public URL %q, %v; want %q", tc.env, tc.args, c.PublicURL, err, tc.want)
		}
	}
}
