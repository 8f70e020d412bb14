package deploy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// setting is one entry of config.Settings as written in ../config/config.go.
type setting struct{ env, def string }

// settings reads the variable names and defaults of config.Settings from the server's source, so
// that a setting added there and missing here fails the test. Parsing the file, rather than
// importing the package, keeps this module independent of the server's dependencies.
func settings(t *testing.T) []setting {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../config/config.go", nil, 0)
	if err != nil {
		t.Fatalf("parse config.go: %v", err)
	}
	var out []setting
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "Settings" || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			t.Fatal("config.Settings is no longer a composite literal; update settings()")
		}
		for _, el := range lit.Elts {
			entry, ok := el.(*ast.CompositeLit)
			if !ok || len(entry.Elts) < 3 {
				t.Fatalf("config.Settings entry at %v has an unexpected shape", el.Pos())
			}
			out = append(out, setting{env: stringLit(t, entry.Elts[0]), def: stringLit(t, entry.Elts[2])})
		}
		return false
	})
	if len(out) == 0 {
		t.Fatal("found no config.Settings in ../config/config.go")
	}
	return out
}

func stringLit(t *testing.T, e ast.Expr) string {
	t.Helper()
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		t.Fatalf("expected a string literal at %v", e.Pos())
	}
	s, err := strconv.Unquote(bl.Value)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkSettingValue reports what is wrong with value for a setting, judging its kind by the
// setting's default: a duration default wants a duration, a number a number, an address an
// address, a URL a URL. It is a guard against typos, not a copy of config's validation.
func checkSettingValue(s setting, value string) string {
	switch {
	case strings.HasSuffix(s.env, "_URL") && value != "":
		for _, part := range strings.Split(value, ",") {
			u, err := url.Parse(strings.TrimSpace(part))
			if err != nil || u.Scheme == "" || u.Host == "" {
				return "not an absolute URL"
			}
		}
	case s.env == "MEDIA_TRUSTED_PROXIES" && value != "":
		for _, part := range strings.Split(value, ",") {
			part = strings.TrimSpace(part)
			if _, err := netip.ParsePrefix(part); err != nil {
				if _, err := netip.ParseAddr(part); err != nil {
					return "not a list of IPs or CIDRs"
				}
			}
		}
	case isDuration(s.def):
		if _, err := time.ParseDuration(value); err != nil {
			return "not a duration"
		}
	case isInt(s.def):
		if !isInt(value) {
			return "not a whole number"
		}
	case strings.Contains(s.def, ":") && !strings.Contains(s.def, "/"):
		if _, _, err := net.SplitHostPort(value); err != nil {
			return "not host:port"
		}
	}
	return ""
}

func isDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil && !isInt(s)
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// portOf returns the port of a listen address such as ":8080" or "0.0.0.0:8080".
func portOf(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	return n
}

func TestSettingsParsed(t *testing.T) {
	got := map[string]bool{}
	for _, s := range settings(t) {
		got[s.env] = true
	}
	// A few the deployment depends on; if config.go renamed them the manifests need a change too.
	for _, env := range []string{"MEDIA_ADDR", "MEDIA_ADMIN_ADDR", "MEDIA_BACKEND", "MEDIA_ENGINE_URL", "REDIS_URL",
		"MEDIA_TRUSTED_PROXIES", "MEDIA_SHUTDOWN_DELAY", "MEDIA_SHUTDOWN_GRACE"} {
		if !got[env] {
			t.Errorf("config.Settings has no %s", env)
		}
	}
}
