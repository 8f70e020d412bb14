package config

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"mediagw/redisconn"
)

// Every error about a URL setting names the setting and the problem, and never shows a password,
// however malformed the value.
func TestURLErrorsHideSecrets(t *testing.T) {
	tests := []struct {
		name, env, value string
		secrets          []string // none may appear in the error
		want             []string // all must appear in it
	}{
		{"list with a bad part", "OPENSEARCH_URL", "https://admin:s3cret@host-a:9200,https://admin:s3cret@host-b:9200,bad",
			[]string{"s3cret"}, []string{`"bad" is not an absolute URL`, "admin:xxxxx@host-a:9200"}},
		{"space in host", "OPENSEARCH_URL", "https://admin:s3cret@ho st:9200",
			[]string{"s3cret"}, []string{`"https://xxxxx@ho st:9200" is not an absolute URL`}},
		{"space in host, second of two", "OPENSEARCH_URL", "https://admin:s3cret@host-a:9200, https://admin:s3cret@ho st:9200",
			[]string{"s3cret"}, []string{`"https://xxxxx@ho st:9200" is not an absolute URL`}},
		{"bad escape after the host", "OPENSEARCH_URL", "https://admin:s3cret@host:9200/%zz",
			[]string{"s3cret"}, []string{"is not an absolute URL"}},
		{"comma and slashes in the password", "OPENSEARCH_URL", "https://u:s3,cr//et@host:9200",
			[]string{"s3", "cr//et", "et@"}, []string{"is not an absolute URL"}},
		{"no scheme", "OPENSEARCH_URL", "admin:s3cret@host:9200",
			[]string{"s3cret"}, []string{`"xxxxx@host:9200" is not an absolute URL`}},
		{"no scheme, second of two", "OPENSEARCH_URL", "https://host-a:9200,admin:s3cret@host-b:9200",
			[]string{"s3cret"}, []string{"is not an absolute URL"}},
		{"scheme-relative", "OPENSEARCH_URL", "//admin:s3cret@host:9200",
			[]string{"s3cret"}, []string{`"//admin:xxxxx@host:9200" is not an absolute URL`}},
		{"token as user name", "OPENSEARCH_URL", "https://s3cret@ho st:9200",
			[]string{"s3cret"}, []string{"is not an absolute URL"}},
		{"unescaped / in password", "OPENSEARCH_URL", "https://admin:s3/cret@host:9200",
			[]string{"s3/cret", ":s3", "cret@"}, []string{`"https://xxxxx@host:9200" is not an absolute URL`}},
		{"unescaped @ in password", "OPENSEARCH_URL", "https://admin:s3@cr t@host:9200",
			[]string{"s3@cr", "cr t"}, []string{"is not an absolute URL"}},
		{"unescaped comma in password", "OPENSEARCH_URL", "https://admin:s3x,cret@host:9200",
			[]string{"s3x", "cret"}, []string{"is not an absolute URL", "%2C"}},
		{"unescaped commas in password", "OPENSEARCH_URL", "https://admin:12,s3x,cret@host:9200",
			[]string{"s3x", "cret"}, []string{"is not an absolute URL", "%2C"}},
		{"only commas", "OPENSEARCH_URL", " , ,",
			nil, []string{"must list at least one absolute URL"}},

		{"space in host", "REDIS_URL", "redis://admin:s3cret@ho st:6379",
			[]string{"s3cret"}, []string{`"redis://xxxxx@ho st:6379"`, `invalid character " " in host name`}},
		{"no scheme", "REDIS_URL", "admin:s3cret@host:6379",
			[]string{"s3cret"}, []string{`"xxxxx@host:6379"`, "invalid Redis URL"}},
		{"unescaped / in password", "REDIS_URL", "redis://admin:s3/cret@host:6379",
			[]string{"s3/cret", ":s3", "cret@"}, []string{"user info (hidden) does not parse"}},
		{"password read as a path", "REDIS_URL", "redis://admin:12/s3cret@host:6379",
			[]string{"s3cret"}, []string{"user info (hidden) does not parse"}},
		{"bad database", "REDIS_URL", "redis://admin:s3cret@host:6379/x",
			[]string{"s3cret"}, []string{"redis://admin:xxxxx@host:6379/x", "database number"}},
		{"password only, bad scheme", "REDIS_URL", "http://:s3cret@host:6379",
			[]string{"s3cret"}, []string{"http://:xxxxx@host:6379", `scheme "http"`}},
		{"sentinel password in query", "REDIS_URL", "redis://host:26379?master_name=m&password=s3cret&route_randomly=true",
			[]string{"s3cret"}, []string{"password=xxxxx", "route_randomly"}},
		{"cluster", "REDIS_URL", "redis+cluster://admin:s3cret@host-a:6379,ho st:6379",
			[]string{"s3cret"}, []string{"invalid Redis URL"}},

		{"user info", "MEDIA_PUBLIC_URL", "https://admin:s3cret@example.org",
			[]string{"s3cret"}, []string{"admin:xxxxx@example.org", "without user info"}},
		{"space in host", "MEDIA_PUBLIC_URL", "https://admin:s3cret@exa mple.org",
			[]string{"s3cret"}, []string{"https://xxxxx@exa mple.org", "absolute http(s) URL"}},
		{"no scheme", "MEDIA_PUBLIC_URL", "admin:s3cret@example.org",
			[]string{"s3cret"}, []string{"xxxxx@example.org", "absolute http(s) URL"}},
	}
	for _, tt := range tests {
		t.Run(tt.env+"/"+tt.name, func(t *testing.T) {
			_, _, err := Load("mediagw", nil, env(map[string]string{tt.env: tt.value}), io.Discard)
			if err == nil {
				t.Fatalf("%s=%s: no error", tt.env, tt.value)
			}
			msg := err.Error()
			for _, s := range tt.secrets {
				if strings.Contains(msg, s) {
					t.Errorf("error %q shows %q", msg, s)
				}
			}
			for _, w := range append([]string{"invalid " + tt.env + " "}, tt.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line", msg)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"http://127.0.0.1:9200", "http://127.0.0.1:9200"},
		{"https://admin:s3cret@host:9200", "https://admin:xxxxx@host:9200"},
		{"https://s3cret@host:9200", "https://xxxxx@host:9200"},
		{"redis://:s3cret@host:6379/0", "redis://:xxxxx@host:6379/0"},
		{"https://admin:s3cret@a:9200, https://admin:s3cret@b:9200,", "https://admin:xxxxx@a:9200, https://admin:xxxxx@b:9200,"},
		{"https://admin:s3cret@ho st:9200", "https://xxxxx@ho st:9200"},
		{"admin:s3cret@host:9200", "xxxxx@host:9200"},
		{"https://admin:s3/cret@host:9200", "https://xxxxx@host:9200"},
		{"https://admin:12/s3cret@host:9200", "https://xxxxx@host:9200"}, // parses, host "admin:12"
		{"https://admin:s3@cret@host:9200", "https://xxxxx@host:9200"},
		{"https://admin:s3,cret@host:9200", "https://xxxxx@host:9200"},
		{"https://admin:12,s3,cret@host:9200,http://b:9200", "https://xxxxx@host:9200,http://b:9200"},
		{"http://a:9200,admin:s3cret@b:9200", "http://xxxxx@b:9200"}, // the comma may be in the password
		{"redis+cluster://admin:s3cret@a:6379,b:6379", "redis+cluster://admin:xxxxx@a:6379,b:6379"},
		{"redis://a:26379?master_name=m&sentinel_password=s3cret&password=s3cret", "redis://a:26379?master_name=m&sentinel_password=xxxxx&password=xxxxx"},
		{"https://example.org/@media", "https://xxxxx@media"}, // an "@" outside user info: hidden to be safe
		{"https://u:pa,ss//x@host", "https://xxxxx@host"},     // "//" inside a password starts no URL
	}
	for _, s := range Settings { // none of the defaults holds a secret: -h shows them as they are
		tests = append(tests, struct{ in, want string }{s.Default, s.Default})
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// -h and flag errors print every flag's default, which comes from the environment.
func TestUsageHidesSecrets(t *testing.T) {
	var out bytes.Buffer
	_, _, err := Load("mediagw", []string{"-h"}, env(map[string]string{
		"MEDIA_ENGINE_URL": "https://admin:s3cret@host-a:9200,https://admin:s3cret@ho st:9200",
		"REDIS_URL":        "redis://:s3cret@host:6379/0",
		// Secrets whole, wherever they come from.
		"MEDIA_ENGINE_PASSWORD": "s3cret",
		"MEDIA_ENGINE_API_KEY":  "s3cretKeyBase64==",
		"OPENSEARCH_PASSWORD":   "s3cret-os",
	}), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	if strings.Contains(out.String(), "s3cret") || !strings.Contains(out.String(), "redis://:xxxxx@host:6379/0") || !strings.Contains(out.String(), `(default "xxxxx")`) {
		t.Errorf("usage shows a password or lacks the redacted default:\n%s", out.String())
	}
}

// TestEngineAuth: basic auth or an API key, never both nor half of one; an error never shows
// the secret.
func TestEngineAuth(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string // in the error; empty for none
	}{
		{"user and password", map[string]string{"MEDIA_ENGINE_USERNAME": "u", "MEDIA_ENGINE_PASSWORD": "s3cret"}, ""},
		{"API key", map[string]string{"MEDIA_ENGINE_API_KEY": "s3cret"}, ""},
		{"user and key", map[string]string{"MEDIA_ENGINE_USERNAME": "u", "MEDIA_ENGINE_PASSWORD": "s3cret", "MEDIA_ENGINE_API_KEY": "s3cret"}, "either"},
		{"password alone", map[string]string{"MEDIA_ENGINE_PASSWORD": "s3cret"}, "go together"},
		{"old name's user alone", map[string]string{"OPENSEARCH_USERNAME": "u"}, "OPENSEARCH_USERNAME"},
		{"old names' user and key", map[string]string{"MEDIA_BACKEND": "elasticsearch", "ELASTICSEARCH_USERNAME": "u",
			"ELASTICSEARCH_PASSWORD": "s3cret", "ELASTICSEARCH_API_KEY": "s3cret"}, "ELASTICSEARCH_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := Load("mediagw", nil, env(tt.env), io.Discard)
			if tt.want == "" {
				if err != nil || c.EngineAuth.Password+c.EngineAuth.APIKey != "s3cret" {
					t.Errorf("Load: %+v, %v", c.EngineAuth, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error = %v, want one saying %q without the secret", err, tt.want)
			}
		})
	}
}

// A hidden error is still the error it hides for errors.Is.
func TestHiddenErrorIs(t *testing.T) {
	_, _, err := Load("mediagw", nil, env(map[string]string{"REDIS_URL": "redis://admin:s3/cret@host:6379"}), io.Discard)
	if !errors.Is(err, redisconn.ErrInvalidURL) || strings.Contains(err.Error(), "s3") {
		t.Errorf("error = %v, want redisconn.ErrInvalidURL without the password", err)
	}
}

// MEDIA_ENGINE_URL is validated as its users split it: empty parts (a trailing comma) are dropped.
func TestURLListSplitsLikeSplitList(t *testing.T) {
	tests := []struct {
		value string
		want  []string
	}{
		{"http://a:9200,", []string{"http://a:9200"}},
		{" http://a:9200 , ,https://u:p@b:9200 ", []string{"http://a:9200", "https://u:p@b:9200"}},
		{",http://a:9200", []string{"http://a:9200"}},
	}
	for _, tt := range tests {
		c, _, err := Load("mediagw", nil, env(map[string]string{"MEDIA_ENGINE_URL": tt.value}), io.Discard)
		if err != nil {
			t.Errorf("MEDIA_ENGINE_URL=%q: %v", tt.value, err)
			continue
		}
		if got := SplitList(c.EngineURL); !slices.Equal(got, tt.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}

// TestRedactArgs: a command line shown (pprof's cmdline) hides secret flags' values and URLs'
// passwords, in every spelling of a flag.
func TestRedactArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"mediagw", "-redis-url", "redis://default:S3cretPW@redis:6379/0"}, []string{"mediagw", "-redis-url", "redis://default:xxxxx@redis:6379/0"}},
		{[]string{"mediagw", "--redis-url=redis://default:S3cretPW@redis:6379/0"}, []string{"mediagw", "--redis-url=redis://default:xxxxx@redis:6379/0"}},
		{[]string{"mediagw", "-engine-password", "S3cretPW", "-rate-limit", "5"}, []string{"mediagw", "-engine-password", "xxxxx", "-rate-limit", "5"}},
		{[]string{"mediagw", "--engine-api-key=S3cretPW"}, []string{"mediagw", "--engine-api-key=xxxxx"}},
		{[]string{"mediagw", "-engine-url", "https://admin:S3cretPW@os:9200"}, []string{"mediagw", "-engine-url", "https://admin:xxxxx@os:9200"}},
		{[]string{"mediagw", "-addr", ":8080"}, []string{"mediagw", "-addr", ":8080"}},
	} {
		got := RedactArgs(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("RedactArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, a := range got {
			if strings.Contains(a, "S3cretPW") {
				t.Errorf("RedactArgs(%q) shows the secret: %q", tc.in, got)
			}
		}
	}
}
