package deploy

import (
	"context"
	"maps"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

const composeFile = "../docker-compose.yml"

// loadCompose loads the compose file with the loader Docker Compose itself uses: it checks the file
// against the Compose specification's schema, resolves anchors, merges and relative paths, and
// rejects dependencies on unknown services. The environment is empty so the result does not depend
// on the machine that runs the test.
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{composeFile}, cli.WithEnv(nil), cli.WithConsistency(true))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := opts.LoadProject(ctx)
	if err != nil {
		t.Fatalf("load %s: %v", composeFile, err)
	}
	return p
}

func service(t *testing.T, p *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, ok := p.Services[name]
	if !ok {
		t.Fatalf("no service %s", name)
	}
	return s
}

func env(s types.ServiceConfig, key string) string {
	if v := s.Environment[key]; v != nil {
		return *v
	}
	return ""
}

var gateways = []string{"mediagw-1", "mediagw-2"}

func TestComposeServices(t *testing.T) {
	p := loadCompose(t)
	want := []string{"catalogue", "lb", "loader", "mediagw-1", "mediagw-2", "opensearch", "redis"}
	if got := slices.Sorted(maps.Keys(p.Services)); !slices.Equal(got, want) {
		t.Fatalf("services %v, want %v", got, want)
	}
	os := service(t, p, "opensearch")
	if !strings.HasPrefix(os.Image, "opensearchproject/opensearch:3") {
		t.Errorf("opensearch image %q, want opensearchproject/opensearch:3", os.Image)
	}
	for k, want := range map[string]string{"discovery.type": "single-node", "DISABLE_SECURITY_PLUGIN": "true"} {
		if got := env(os, k); got != want {
			t.Errorf("opensearch %s = %q, want %q", k, got, want)
		}
	}
	if heap := env(os, "OPENSEARCH_JAVA_OPTS"); !strings.Contains(heap, "-Xms512m") || !strings.Contains(heap, "-Xmx512m") {
		t.Errorf("opensearch heap %q, want 512m", heap)
	}
	for _, name := range []string{"catalogue", "loader", "mediagw-1", "mediagw-2"} {
		if img := service(t, p, name).Image; img != "mediagw:local" {
			t.Errorf("%s image %q, want the one built from image/Containerfile (mediagw:local)", name, img)
		}
		// The one image definition, around the context scripts/image.sh stages.
		if b := service(t, p, name).Build; b == nil || filepath.Base(b.Context) != "image" || filepath.Base(filepath.Dir(b.Context)) != "var" ||
			filepath.Clean(filepath.Join(b.Context, b.Dockerfile)) != filepath.Join(filepath.Dir(filepath.Dir(b.Context)), "deploy", "image", "Containerfile") {
			t.Errorf("%s build %+v: want deploy/image/Containerfile on the context var/image", name, b)
		}
	}
}

// TestComposePorts: only the load balancer is public; replicas show their admin port on loopback.
func TestComposePorts(t *testing.T) {
	p := loadCompose(t)
	published := map[string][]types.ServicePortConfig{}
	for name, s := range p.Services {
		for _, port := range s.Ports {
			if port.Published != "" {
				published[name] = append(published[name], port)
			}
		}
	}
	lb := published["lb"]
	if len(lb) != 1 || lb[0].Published != "8080" || lb[0].Target != 8080 {
		t.Errorf("lb publishes %+v, want 8080 -> 8080", lb)
	}
	for name, ports := range published {
		if name == "lb" {
			continue
		}
		for _, port := range ports {
			if !slices.Contains(gateways, name) || port.HostIP != "127.0.0.1" || port.Target != 9090 {
				t.Errorf("%s publishes %s:%s -> %d; only lb may be reachable from outside", name, port.HostIP, port.Published, port.Target)
			}
		}
	}
	for _, g := range gateways {
		if env(service(t, p, g), "MEDIA_ADMIN_ADDR") != ":9090" {
			t.Errorf("%s: MEDIA_ADMIN_ADDR %q does not listen on the published 9090", g, env(service(t, p, g), "MEDIA_ADMIN_ADDR"))
		}
	}
}

func TestComposeHealthChecks(t *testing.T) {
	p := loadCompose(t)
	for name, want := range map[string]string{
		"opensearch": "_cluster/health",
		"redis":      "redis-cli ping",
		"lb":         "/readyz",
		"mediagw-1":  "mediagw healthcheck",
		"mediagw-2":  "mediagw healthcheck",
	} {
		hc := service(t, p, name).HealthCheck
		if hc == nil || hc.Disable || len(hc.Test) == 0 {
			t.Errorf("%s has no health check", name)
			continue
		}
		if cmd := strings.Join(hc.Test[1:], " "); !strings.Contains(cmd, want) {
			t.Errorf("%s health check %q does not check %q", name, cmd, want)
		}
		if hc.Interval == nil || hc.Retries == nil || hc.Timeout == nil {
			t.Errorf("%s health check leaves interval, timeout or retries to defaults", name)
		}
	}
}

func TestComposeDependencies(t *testing.T) {
	p := loadCompose(t)
	want := map[string]map[string]string{
		"loader": {"catalogue": types.ServiceConditionCompletedSuccessfully, "opensearch": types.ServiceConditionHealthy},
		"lb":     {"mediagw-1": types.ServiceConditionHealthy, "mediagw-2": types.ServiceConditionHealthy},
	}
	for _, g := range gateways {
		want[g] = map[string]string{
			"loader":     types.ServiceConditionCompletedSuccessfully,
			"opensearch": types.ServiceConditionHealthy,
			"redis":      types.ServiceConditionHealthy,
		}
	}
	for name, deps := range want {
		got := map[string]string{}
		for dep, d := range service(t, p, name).DependsOn {
			got[dep] = d.Condition
		}
		if !maps.Equal(got, deps) {
			t.Errorf("%s depends on %v, want %v", name, got, deps)
		}
	}

	order := startOrder(t, p)
	before := func(a, b string) {
		if slices.Index(order, a) > slices.Index(order, b) {
			t.Errorf("%s starts after %s (order %v)", a, b, order)
		}
	}
	before("opensearch", "loader")
	before("catalogue", "loader")
	for _, g := range gateways {
		before("loader", g)
		before("redis", g)
		before(g, "lb")
	}
}

// startOrder sorts the services so that each comes after what it depends on, failing on a cycle.
func startOrder(t *testing.T, p *types.Project) []string {
	t.Helper()
	var order []string
	done := map[string]bool{}
	for len(order) < len(p.Services) {
		progressed := false
		for _, name := range slices.Sorted(maps.Keys(p.Services)) {
			if done[name] {
				continue
			}
			ready := true
			for dep := range p.Services[name].DependsOn {
				ready = ready && done[dep]
			}
			if ready {
				done[name], progressed = true, true
				order = append(order, name)
			}
		}
		if !progressed {
			t.Fatalf("depends_on has a cycle among the services not in %v", order)
		}
	}
	return order
}

func TestComposeOneShots(t *testing.T) {
	p := loadCompose(t)
	gen, load := service(t, p, "catalogue"), service(t, p, "loader")
	genCmd := slices.Concat([]string(gen.Entrypoint), []string(gen.Command))
	loadCmd := slices.Concat([]string(load.Entrypoint), []string(load.Command))
	if len(genCmd) < 2 || filepath.Base(genCmd[0]) != "mediactl" || genCmd[1] != "gen" {
		t.Fatalf("catalogue runs %q, want mediactl gen", genCmd)
	}
	if len(loadCmd) != 3 || filepath.Base(loadCmd[0]) != "mediactl" || loadCmd[1] != "load" {
		t.Fatalf("loader runs %q, want mediactl load FILE", loadCmd)
	}
	out := genCmd[slices.Index(genCmd, "-o")+1]
	if loadCmd[2] != out {
		t.Errorf("loader loads %s, catalogue writes %s", loadCmd[2], out)
	}
	// Both mount the same volume where the file lies.
	volumeAt := func(s types.ServiceConfig, file string) string {
		for _, v := range s.Volumes {
			if strings.HasPrefix(file, strings.TrimSuffix(v.Target, "/")+"/") {
				return v.Source
			}
		}
		return ""
	}
	if a, b := volumeAt(gen, out), volumeAt(load, loadCmd[2]); a == "" || a != b {
		t.Errorf("catalogue writes to volume %q, loader reads from volume %q", a, b)
	}
	if env(load, "MEDIA_BACKEND") != "opensearch" {
		t.Errorf("loader MEDIA_BACKEND %q, want opensearch", env(load, "MEDIA_BACKEND"))
	}
	for _, s := range []types.ServiceConfig{gen, load} {
		if s.Restart != "" && s.Restart != "no" {
			t.Errorf("one-shot %s restarts (%q)", s.Name, s.Restart)
		}
	}
}

func TestComposeGateways(t *testing.T) {
	p := loadCompose(t)
	known := map[string]setting{}
	for _, s := range settings(t) {
		known[s.env] = s
	}
	net, ok := p.Networks["default"]
	if !ok || len(net.Ipam.Config) != 1 {
		t.Fatal("the default network has no fixed subnet; MEDIA_TRUSTED_PROXIES needs one")
	}
	subnet, err := netip.ParsePrefix(net.Ipam.Config[0].Subnet)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Concat(gateways, []string{"loader"}) {
		s := service(t, p, name)
		for k, v := range s.Environment {
			st, ok := known[k]
			if !ok {
				t.Errorf("%s: %s is not a setting of config/config.go", name, k)
				continue
			}
			if v == nil {
				t.Errorf("%s: %s has no value", name, k)
			} else if problem := checkSettingValue(st, *v); problem != "" {
				t.Errorf("%s: %s=%q: %s", name, k, *v, problem)
			}
		}
		u, err := url.Parse(env(s, "MEDIA_ENGINE_URL"))
		if err != nil || p.Services[u.Hostname()].Name == "" {
			t.Errorf("%s: MEDIA_ENGINE_URL %q does not name a service", name, env(s, "MEDIA_ENGINE_URL"))
		}
	}
	for _, g := range gateways {
		s := service(t, p, g)
		if env(s, "MEDIA_BACKEND") != "opensearch" {
			t.Errorf("%s: MEDIA_BACKEND %q", g, env(s, "MEDIA_BACKEND"))
		}
		if u, err := url.Parse(env(s, "REDIS_URL")); err != nil || u.Scheme != "redis" || u.Hostname() != "redis" {
			t.Errorf("%s: REDIS_URL %q does not point at the redis service: replicas would not share the limit", g, env(s, "REDIS_URL"))
		}
		trusted, err := netip.ParsePrefix(env(s, "MEDIA_TRUSTED_PROXIES"))
		if err != nil || trusted.Masked() != subnet.Masked() {
			t.Errorf("%s: MEDIA_TRUSTED_PROXIES %q, want the compose network %s where the balancer lives", g, env(s, "MEDIA_TRUSTED_PROXIES"), subnet)
		}
		delay, err1 := time.ParseDuration(env(s, "MEDIA_SHUTDOWN_DELAY"))
		grace, err2 := time.ParseDuration(env(s, "MEDIA_SHUTDOWN_GRACE"))
		if err1 != nil || err2 != nil || s.StopGracePeriod == nil || time.Duration(*s.StopGracePeriod) <= delay+grace {
			t.Errorf("%s: stop_grace_period %v must exceed MEDIA_SHUTDOWN_DELAY + MEDIA_SHUTDOWN_GRACE", g, s.StopGracePeriod)
		}
	}
}

// TestComposeBalancer reads the nginx configuration mounted into lb: both replicas, round-robin
// (nginx's default: no other balancing method), the client address forwarded.
func TestComposeBalancer(t *testing.T) {
	p := loadCompose(t)
	lb := service(t, p, "lb")
	var conf string
	for _, v := range lb.Volumes {
		if v.Type == types.VolumeTypeBind && strings.HasPrefix(v.Target, "/etc/nginx/") {
			data, err := os.ReadFile(v.Source)
			if err != nil {
				t.Fatalf("lb mounts %s: %v", v.Source, err)
			}
			conf = string(data)
		}
	}
	if conf == "" {
		t.Fatal("lb mounts no nginx configuration")
	}
	for _, g := range gateways {
		if !strings.Contains(conf, "server "+g+":8080") {
			t.Errorf("nginx.conf does not balance to %s:8080", g)
		}
	}
	for _, method := range []string{"ip_hash", "least_conn", "hash ", "random"} {
		if strings.Contains(conf, method) {
			t.Errorf("nginx.conf uses %q, not round-robin", method)
		}
	}
	for _, want := range []string{"listen 8080;", "proxy_pass http://mediagw;", "X-Forwarded-For $proxy_add_x_forwarded_for"} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf lacks %q", want)
		}
	}
}

// TestComposeSchemaCatchesTypos proves the loader above would notice a misspelt key.
func TestComposeSchemaCatchesTypos(t *testing.T) {
	data, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, typo := range []struct{ from, to string }{
		{"    healthcheck:\n", "    healthchek:\n"},
		{"condition: service_completed_successfully", "condition: service_completed"},
		{"stop_grace_period: 30s", "stop_grace_period: thirty"},
	} {
		bad := strings.Replace(string(data), typo.from, typo.to, 1)
		if bad == string(data) {
			t.Fatalf("%s has no %q", composeFile, typo.from)
		}
		path := filepath.Join(t.TempDir(), "docker-compose.yml")
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		opts, err := cli.NewProjectOptions([]string{path}, cli.WithEnv(nil), cli.WithConsistency(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := opts.LoadProject(context.Background()); err == nil {
			t.Errorf("%q -> %q loaded without error", typo.from, typo.to)
		} else {
			t.Logf("%q -> %q: %v", typo.from, typo.to, err)
		}
	}
}
