package docs

import (
	"os/exec"
	"strings"
	"testing"
)

// layer names a set of the module's packages: one package, or a directory with all below it.
type layer struct {
	path string
	// tree includes the packages below path.
	tree bool
}

func only(path string) layer { return layer{path: path} }
func tree(path string) layer { return layer{path: path, tree: true} }

// module is every package of the module.
var module = layer{tree: true}

func (l layer) has(pkg string) bool {
	return l == module || pkg == l.path || (l.tree && strings.HasPrefix(pkg, l.path+"/"))
}

func (l layer) String() string {
	if l == module {
		return "mediagw/..."
	}
	if l.tree {
		return l.path + "/..."
	}
	return l.path
}

// importRules are the directions architecture.md gives: cmd -> gateway -> search, ratelimit (which,
// with the query log, shares redisconn); no
// package below depends on one above it, and the backends stand beside each other.
var importRules = []struct {
	from   []layer
	forbid []layer
	why    string
}{
	{[]layer{tree("gateway"), tree("search"), tree("ratelimit"), tree("redisconn"), tree("querylog"), tree("config"),
		tree("params"), tree("bench"), tree("catalogue"), tree("internal"), tree("openapi"), tree("demo")}, []layer{tree("cmd")},
		"only the binaries' own packages import cmd/..."},
	{[]layer{tree("search"), tree("ratelimit")}, []layer{tree("gateway"), tree("cmd")},
		"the search model, its backends and the rate limit never import the HTTP layer or the binaries"},
	{[]layer{tree("search/bleve")}, []layer{tree("search/elastic"), tree("bench")},
		"the embedded backend never imports the engine backend or the load harness"},
	{[]layer{tree("search/elastic")}, []layer{tree("search/bleve"), tree("bench")},
		"the engine backend never imports the embedded backend or the load harness"},
	{[]layer{only("search")}, []layer{tree("search/bleve"), tree("search/elastic"), tree("search/cache"),
		tree("search/meter"), tree("search/admit"), tree("search/breaker"), tree("search/layer"), tree("search/live"),
		tree("search/chain"), tree("search/spell"), tree("search/telemetry")},
		"the model (search) imports no backend, no layer and no request telemetry: they import it"},
	{[]layer{tree("redisconn")}, []layer{module},
		"the Redis connection imports nothing of the module, so that the limiter, the query log and the binaries share it"},
	{[]layer{tree("search/telemetry")}, []layer{module},
		"the request's telemetry imports nothing of the module, so that every layer and the gateway can note and read it"},
	{[]layer{tree("search/bleve"), tree("search/elastic")}, []layer{tree("search/chain"), tree("search/live"),
		tree("search/layer"), tree("search/cache"), tree("search/meter"), tree("search/admit"), tree("search/breaker"),
		tree("search/spell")},
		"a backend imports no layer of the chain: the chain hands it what it reads of them (search.VersionReader)"},
	{[]layer{tree("bench")}, []layer{tree("gateway")},
		"the load harness reads queries with the query codec (params), not the HTTP layer"},
	{[]layer{only("cmd/mediagw"), only("cmd/mediactl")}, []layer{tree("bench")},
		"the server and the operators' tool link no load harness: it is cmd/mediabench's"},
}

// benchLibraries are the module paths of the load and plotting libraries only cmd/mediabench links.
var benchLibraries = []string{"fortio.org/", "gonum.org/"}

// TestOperatorsBinariesLinkNoBench: the binaries of the image carry no load or plotting library.
func TestOperatorsBinariesLinkNoBench(t *testing.T) {
	for _, cmd := range []string{"mediagw/cmd/mediagw", "mediagw/cmd/mediactl"} {
		out, err := exec.Command("go", "list", "-deps", cmd).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", cmd, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, lib := range benchLibraries {
				if strings.HasPrefix(dep, lib) {
					t.Errorf("%s links %s: a bench library belongs to cmd/mediabench", cmd, dep)
				}
			}
		}
	}
}

// TestImportsPointInward: no package of the module depends, directly or through another, on one
// an import rule forbids it. Test files are left out: a test may compare the backends.
func TestImportsPointInward(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "mediagw/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], "mediagw/")
		for _, d := range f[1:] {
			if d, ok := strings.CutPrefix(d, "mediagw/"); ok {
				deps[pkg] = append(deps[pkg], d)
			}
		}
		if _, ok := deps[pkg]; !ok {
			deps[pkg] = nil
		}
	}
	for _, r := range importRules {
		for _, from := range r.from {
			matched := false
			for pkg, ds := range deps {
				if !from.has(pkg) {
					continue
				}
				matched = true
				for _, d := range ds {
					for _, f := range r.forbid {
						if f.has(d) {
							t.Errorf("%s depends on %s, which is in %s: %s", pkg, d, f, r.why)
						}
					}
				}
			}
			// A rule about a package that is no longer there holds nothing: move it with the package.
			if !matched {
				t.Errorf("no package is in %s: update importRules", from)
			}
		}
	}
}

// TestImportRulesCatch: the rules forbid what they say, so that a broken rule cannot pass quietly.
func TestImportRulesCatch(t *testing.T) {
	forbidden := func(pkg, dep string) bool {
		for _, r := range importRules {
			for _, from := range r.from {
				for _, f := range r.forbid {
					if from.has(pkg) && f.has(dep) {
						return true
					}
				}
			}
		}
		return false
	}
	tests := []struct {
		pkg, dep string
		want     bool
	}{
		{"gateway", "cmd/internal/backends", true},
		{"search/elastic", "gateway", true},
		{"search/elastic", "search/bleve", true},
		{"search/bleve", "search/elastic/mappings", true},
		{"search/elastic", "bench", true},
		{"search", "search/meter", true},
		{"search", "search/elastic", true},
		{"search", "search/telemetry", true},
		{"search/telemetry", "search", true},
		{"search/elastic", "search/live", true},
		{"bench", "gateway", true},
		{"ratelimit", "gateway", true},
		{"cmd/mediagw", "gateway", false},
		{"cmd/mediactl", "cmd/internal/backends", false},
		{"cmd/mediactl", "bench", true},
		{"cmd/mediabench", "bench", false},
		{"gateway", "search", false},
		{"search/cache", "search", false},
		{"search/elastic", "search/elastic/mappings", false},
		{"bench", "search/elastic", false},
		{"search/meter", "search/telemetry", false},
		{"gateway", "search/telemetry", false},
	}
	for _, tt := range tests {
		if got := forbidden(tt.pkg, tt.dep); got != tt.want {
			t.Errorf("%s importing %s forbidden = %v, want %v", tt.pkg, tt.dep, got, tt.want)
		}
	}
}
