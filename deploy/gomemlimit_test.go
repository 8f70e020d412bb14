package deploy

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestGOMEMLIMIT: GOMEMLIMIT is derived from each Go container's memory limit by the downward API,
// and comes out a little under the limit, so the runtime collects before the kernel kills.
func TestGOMEMLIMIT(t *testing.T) {
	m := baseFiles(t)
	for what, c := range map[string]corev1.Container{
		"deployment": one(t, "Deployment", m.deployments).Spec.Template.Spec.Containers[0],
		"job":        one(t, "Job", m.jobs).Spec.Template.Spec.Containers[0],
	} {
		t.Run(what, func(t *testing.T) {
			limit := c.Resources.Limits.Memory().Value()
			env := resolveEnv(t, c)
			v, ok := env["GOMEMLIMIT"]
			if !ok {
				t.Fatal("no GOMEMLIMIT")
			}
			got, err := goMemLimit(v)
			if err != nil {
				t.Fatalf("GOMEMLIMIT=%q: %v", v, err)
			}
			if ratio := float64(got) / float64(limit); ratio < 0.90 || ratio >= 1 {
				t.Errorf("GOMEMLIMIT %s = %d bytes is %.1f %% of the limit %d: want 90 to 100 %%", v, got, 100*ratio, limit)
			}
		})
	}
}

var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// resolveEnv computes a container's env as the kubelet does: resourceFieldRef values divided by
// the divisor and rounded up, $(VAR) replaced by variables defined earlier in the list.
func resolveEnv(t *testing.T, c corev1.Container) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil:
			ref := e.ValueFrom.ResourceFieldRef
			if ref.ContainerName != "" && ref.ContainerName != c.Name {
				t.Errorf("%s reads the limits of container %q, not its own %q", e.Name, ref.ContainerName, c.Name)
			}
			if ref.Resource != "limits.memory" {
				t.Fatalf("%s reads %s, want limits.memory", e.Name, ref.Resource)
			}
			divisor := ref.Divisor.Value()
			if divisor == 0 {
				divisor = 1
			}
			env[e.Name] = strconv.FormatInt(int64(math.Ceil(float64(c.Resources.Limits.Memory().Value())/float64(divisor))), 10)
		case e.ValueFrom != nil:
			t.Fatalf("%s: unexpected valueFrom", e.Name)
		default:
			env[e.Name] = envRef.ReplaceAllStringFunc(e.Value, func(ref string) string {
				name := envRef.FindStringSubmatch(ref)[1]
				if v, ok := env[name]; ok {
					return v
				}
				t.Errorf("%s refers to %s, which is not defined before it", e.Name, name)
				return ref
			})
		}
	}
	return env
}

// goMemLimit parses GOMEMLIMIT as the Go runtime does: bytes, with an optional B, KiB, MiB, GiB
// or TiB suffix.
func goMemLimit(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = rest, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a byte count the Go runtime accepts")
	}
	return n * mult, nil
}
