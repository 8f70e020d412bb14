package deploy

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
)

// The offline image (make image): ../deploy/image/Containerfile, FROM scratch, assembled by
// podman around binaries built on the host (../scripts/image.sh).

// imageName is the tag make image gives the image it built last.
const imageName = "localhost/mediagw:local"

// ociLabels are the labels the image carries, of the OCI image spec's annotation keys.
var ociLabels = []string{"source", "version", "revision", "title", "licenses"}

func TestContainerfile(t *testing.T) {
	st := stages(t, "image/Containerfile")
	if len(st) != 1 || st[0].BaseName != "scratch" {
		t.Fatalf("Containerfile: want one stage FROM scratch (nothing pulled from a registry), got %d", len(st))
	}
	final := st[0]
	checkFinalImage(t, final)
	checkHealthcheck(t, final)
	checkLabels(t, final)
	// The user the image runs as exists in the passwd and group it carries, with /data as home.
	users := commands[*instructions.UserCommand](final)
	uid, gid, _ := strings.Cut(users[len(users)-1].User, ":")
	want := []string{"nonroot", "x", uid, gid, "nonroot", "/data", "/sbin/nologin"}
	if !slices.ContainsFunc(colonFile(t, "image/passwd"), func(f []string) bool { return slices.Equal(f, want) }) {
		t.Errorf("image/passwd has no line for the user %s:%s", uid, gid)
	}
	if !slices.ContainsFunc(colonFile(t, "image/group"), func(f []string) bool { return len(f) == 4 && f[2] == gid }) {
		t.Errorf("image/group has no group %s", gid)
	}
}

// checkHealthcheck: the image's health check is mediagw asking its own /readyz, in exec form
// (there is no shell).
func checkHealthcheck(t *testing.T, final instructions.Stage) {
	t.Helper()
	hcs := commands[*instructions.HealthCheckCommand](final)
	if len(hcs) != 1 || !slices.Equal(hcs[0].Health.Test, []string{"CMD", "/usr/local/bin/mediagw", "healthcheck"}) {
		t.Errorf("HEALTHCHECK %v: want CMD [/usr/local/bin/mediagw healthcheck]", hcs)
		return
	}
	if h := hcs[0].Health; h.Interval <= 0 || h.Timeout <= 0 || h.Timeout >= h.Interval || h.Retries < 1 {
		t.Errorf("HEALTHCHECK interval %v, timeout %v, retries %d: want a timeout shorter than the interval", h.Interval, h.Timeout, h.Retries)
	}
}

// checkLabels: the final stage labels the image with the OCI keys, the version and revision
// from the build arguments the builds pass.
func checkLabels(t *testing.T, final instructions.Stage) {
	t.Helper()
	labels := map[string]string{}
	for _, l := range commands[*instructions.LabelCommand](final) {
		for _, kv := range l.Labels {
			labels[kv.Key] = kv.Value
		}
	}
	for _, l := range ociLabels {
		if _, ok := labels["org.opencontainers.image."+l]; !ok {
			t.Errorf("no LABEL org.opencontainers.image.%s", l)
		}
	}
	for key, arg := range map[string]string{"version": "$VERSION", "revision": "$REVISION"} {
		if v := labels["org.opencontainers.image."+key]; v != arg {
			t.Errorf("LABEL org.opencontainers.image.%s=%s, want %s", key, v, arg)
		}
	}
}

func colonFile(t *testing.T, file string) [][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		out = append(out, strings.Split(sc.Text(), ":"))
	}
	return out
}

// TestImage inspects the image make image built: the user, entrypoint, labels and health check
// as the Containerfile meant them, which only the built image proves (podman drops HEALTHCHECK
// from an OCI-format image, for example). It needs podman and the image: CI runs make image
// first; elsewhere it skips, saying how to build it.
func TestImage(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		skipOrFail(t, "no podman: install it (apt-get install podman buildah) and run make image")
	}
	out, err := exec.Command("podman", "image", "inspect", imageName).Output()
	if err != nil {
		skipOrFail(t, "no image "+imageName+": run make image")
	}
	var images []struct {
		Config struct {
			User         string
			Entrypoint   []string
			WorkingDir   string
			Env          []string
			Labels       map[string]string
			ExposedPorts map[string]struct{}
		}
		Healthcheck *struct{ Test []string }
	}
	if err := json.Unmarshal(out, &images); err != nil || len(images) != 1 {
		t.Fatalf("podman image inspect %s: %v (%d images)", imageName, err, len(images))
	}
	img := images[0]
	if img.Config.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", img.Config.User)
	}
	if !slices.Equal(img.Config.Entrypoint, []string{"/usr/local/bin/mediagw"}) {
		t.Errorf("entrypoint %q, want [/usr/local/bin/mediagw]", img.Config.Entrypoint)
	}
	if img.Healthcheck == nil || !slices.Equal(img.Healthcheck.Test, []string{"CMD", "/usr/local/bin/mediagw", "healthcheck"}) {
		t.Errorf("health check %+v, want CMD /usr/local/bin/mediagw healthcheck (built with --format docker?)", img.Healthcheck)
	}
	if !slices.Contains(img.Config.Env, "MEDIA_INDEX_DIR=/data/index") || img.Config.WorkingDir != "/data" {
		t.Errorf("env %q, working dir %q: want the index under /data", img.Config.Env, img.Config.WorkingDir)
	}
	if !slices.Contains(img.Config.Env, "MEDIA_ADMIN_ADDR=127.0.0.1:9090") {
		t.Errorf("env %q: want the admin listener (pprof) on loopback, MEDIA_ADMIN_ADDR=127.0.0.1:9090", img.Config.Env)
	}
	if _, ok := img.Config.ExposedPorts["9090/tcp"]; ok {
		t.Errorf("exposed ports %v: the admin port 9090 is exposed", img.Config.ExposedPorts)
	}
	for _, l := range ociLabels {
		if v := img.Config.Labels["org.opencontainers.image."+l]; v == "" {
			t.Errorf("label org.opencontainers.image.%s is empty", l)
		}
	}
	if rev := img.Config.Labels["org.opencontainers.image.revision"]; !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(rev) {
		t.Errorf("label org.opencontainers.image.revision %q: want the commit make image was run on", rev)
	}
}

// skipOrFail skips on a laptop and fails in CI, where make image has run.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}
