package deploy

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const baseDir = "k8s/base"

var (
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	pinnedRE = regexp.MustCompile(`^([a-z0-9.-]+\.[a-z]+)/([a-z0-9/._-]+):([a-zA-Z0-9._-]+)@sha256:[0-9a-f]{64}$`)
)

// manifests is every object of a set of manifests, decoded into its API type.
type manifests struct {
	configMaps  []*corev1.ConfigMap
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	pdbs        []*policyv1.PodDisruptionBudget
	jobs        []*batchv1.Job
	namespaces  []*corev1.Namespace
	policies    []*networkingv1.NetworkPolicy
}

// decodeStrict decodes every YAML document of data into the API type of its apiVersion and kind,
// failing on an unknown kind, an unknown or duplicate field and a wrongly typed value: what a
// typo in a manifest looks like.
func decodeStrict(data []byte, into *manifests) error {
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "v1 ConfigMap":
			o := &corev1.ConfigMap{}
			into.configMaps, obj = append(into.configMaps, o), o
		case "apps/v1 Deployment":
			o := &appsv1.Deployment{}
			into.deployments, obj = append(into.deployments, o), o
		case "v1 Service":
			o := &corev1.Service{}
			into.services, obj = append(into.services, o), o
		case "autoscaling/v2 HorizontalPodAutoscaler":
			o := &autoscalingv2.HorizontalPodAutoscaler{}
			into.hpas, obj = append(into.hpas, o), o
		case "policy/v1 PodDisruptionBudget":
			o := &policyv1.PodDisruptionBudget{}
			into.pdbs, obj = append(into.pdbs, o), o
		case "batch/v1 Job":
			o := &batchv1.Job{}
			into.jobs, obj = append(into.jobs, o), o
		case "v1 Namespace":
			o := &corev1.Namespace{}
			into.namespaces, obj = append(into.namespaces, o), o
		case "networking.k8s.io/v1 NetworkPolicy":
			o := &networkingv1.NetworkPolicy{}
			into.policies, obj = append(into.policies, o), o
		default:
			return fmt.Errorf("document %d: unexpected apiVersion %q kind %q", i, meta.APIVersion, meta.Kind)
		}
		if err := unmarshalStrict(doc, obj); err != nil {
			return fmt.Errorf("document %d (%s): %w", i, meta.Kind, err)
		}
	}
}

// unmarshalStrict decodes YAML as the API server's strict field validation does: keys match field
// names case-sensitively (encoding/json alone would take readOnlyRootFileSystem), and unknown or
// duplicate fields are errors.
func unmarshalStrict(doc []byte, obj any) error {
	data, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

// kustomization reads the base's kustomization.yaml strictly.
func kustomization(t *testing.T) kusttypes.Kustomization {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(baseDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k kusttypes.Kustomization
	if err := unmarshalStrict(data, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	return k
}

// baseFiles decodes every resource file the kustomization lists.
func baseFiles(t *testing.T) manifests {
	t.Helper()
	var m manifests
	for _, res := range kustomization(t).Resources {
		data, err := os.ReadFile(filepath.Join(baseDir, res))
		if err != nil {
			t.Fatalf("resource %s: %v", res, err)
		}
		if err := decodeStrict(data, &m); err != nil {
			t.Fatalf("%s: %v", res, err)
		}
	}
	return m
}

// built runs kustomize over the base, as `kubectl apply -k` does, and decodes its output.
func built(t *testing.T) manifests {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), baseDir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", baseDir, err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	var m manifests
	if err := decodeStrict(out, &m); err != nil {
		t.Fatalf("kustomize output: %v", err)
	}
	return m
}

func one[T any](t *testing.T, kind string, objs []T) T {
	t.Helper()
	if len(objs) != 1 {
		t.Fatalf("want exactly one %s, have %d", kind, len(objs))
	}
	return objs[0]
}

const (
	// settingsMap holds every setting; policiesMap the rate-limit policies file.
	settingsMap = "mediagw"
	policiesMap = "mediagw-rate-limit-policies"
)

// configMap is the ConfigMap of that name.
func configMap(t *testing.T, m manifests, name string) *corev1.ConfigMap {
	t.Helper()
	for _, cm := range m.configMaps {
		if cm.Name == name {
			return cm
		}
	}
	t.Fatalf("no ConfigMap %s", name)
	return nil
}

func TestKustomizationResourcesExist(t *testing.T) {
	k := kustomization(t)
	listed := map[string]bool{}
	for _, res := range k.Resources {
		if listed[res] {
			t.Errorf("resource %s listed twice", res)
		}
		listed[res] = true
		if st, err := os.Stat(filepath.Join(baseDir, res)); err != nil || st.IsDir() {
			t.Errorf("resource %s: not a file in %s (%v)", res, baseDir, err)
		}
	}
	// Every manifest in the directory is part of the base: none is forgotten.
	files, err := filepath.Glob(filepath.Join(baseDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if name != "kustomization.yaml" && !listed[name] {
			t.Errorf("%s is in %s but not in kustomization.yaml's resources", name, baseDir)
		}
	}
}

func TestManifestsDecodeStrictly(t *testing.T) {
	m := baseFiles(t)
	counts := map[string]int{"ConfigMap": len(m.configMaps), "Deployment": len(m.deployments), "Service": len(m.services),
		"HorizontalPodAutoscaler": len(m.hpas), "PodDisruptionBudget": len(m.pdbs), "Job": len(m.jobs),
		"Namespace": len(m.namespaces), "NetworkPolicy": len(m.policies)}
	// The default deny and the gateway's; the settings and the rate-limit policies.
	want := map[string]int{"NetworkPolicy": 2, "ConfigMap": 2}
	for kind, n := range counts {
		if w := cmp.Or(want[kind], 1); n != w {
			t.Errorf("want %d %s in the base, have %d", w, kind, n)
		}
	}
}

// TestStrictDecodingCatchesTypos proves the decoding above would notice a misspelt field.
func TestStrictDecodingCatchesTypos(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(baseDir, "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, typo := range []struct{ from, to string }{
		{"readinessProbe:", "readinesProbe:"},
		{"readOnlyRootFilesystem: true", "readOnlyRootFileSystem: true"},
		{"terminationGracePeriodSeconds: 35", "terminationGracePeriodSeconds: \"35\""},
	} {
		bad := bytes.Replace(data, []byte(typo.from), []byte(typo.to), 1)
		if bytes.Equal(bad, data) {
			t.Fatalf("deployment.yaml has no %q", typo.from)
		}
		if err := decodeStrict(bad, &manifests{}); err == nil {
			t.Errorf("%q -> %q decoded without error", typo.from, typo.to)
		}
	}
}

func TestKustomizeBuild(t *testing.T) {
	m := built(t)
	d := one(t, "Deployment", m.deployments)
	job := one(t, "Job", m.jobs)
	k := kustomization(t)
	img := one(t, "images entry", k.Images)
	// A release's tag and a digest: "latest" (or no tag) lets a rescheduled pod run another build,
	// and a tag alone lets a rebuild pushed under it run.
	if !regexp.MustCompile(`^v?\d+\.\d+\.\d+$`).MatchString(img.NewTag) {
		t.Errorf("kustomization image %s: tag %q, want a release version", img.Name, img.NewTag)
	}
	if !digestRE.MatchString(img.Digest) {
		t.Errorf("kustomization image %s: digest %q, want sha256:<64 hex>", img.Name, img.Digest)
	}
	want := img.NewName + ":" + img.NewTag + "@" + img.Digest
	for what, c := range map[string]corev1.Container{"deployment": d.Spec.Template.Spec.Containers[0], "job": job.Spec.Template.Spec.Containers[0]} {
		if c.Image != want {
			t.Errorf("%s container %s: image %q, want %q from the kustomization", what, c.Name, c.Image, want)
		}
	}
	// Every image is pulled by its full name, pinned by digest: the tag says what the image
	// is, the digest which one, so a rebuild cannot change under the same tag.
	for _, c := range slices.Concat(d.Spec.Template.Spec.Containers, job.Spec.Template.Spec.InitContainers, job.Spec.Template.Spec.Containers) {
		if !pinnedRE.MatchString(c.Image) {
			t.Errorf("container %s: image %q is not a full name pinned by digest", c.Name, c.Image)
		}
	}
	if got := d.Labels["app.kubernetes.io/part-of"]; got != "mediagw" {
		t.Errorf("common label part-of = %q", got)
	}

	// Everything lands in the namespace the base creates.
	ns := one(t, "Namespace", m.namespaces)
	if k.Namespace != ns.Name {
		t.Errorf("kustomization namespace %q, the base creates %q", k.Namespace, ns.Name)
	}
	for _, o := range []metav1.Object{d, job, one(t, "Service", m.services), configMap(t, m, settingsMap), configMap(t, m, policiesMap),
		one(t, "HorizontalPodAutoscaler", m.hpas), one(t, "PodDisruptionBudget", m.pdbs), m.policies[0], m.policies[1]} {
		if o.GetNamespace() != ns.Name {
			t.Errorf("%s is in namespace %q, want %q", o.GetName(), o.GetNamespace(), ns.Name)
		}
	}
	// The pods meet the restricted Pod Security profile the namespace enforces (checkPodSecurity).
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace %s does not enforce the restricted Pod Security profile", ns.Name)
	}
}

func TestConfigMapHasExactlyTheSettings(t *testing.T) {
	cm := configMap(t, baseFiles(t), settingsMap)
	known := map[string]setting{}
	for _, s := range settings(t) {
		known[s.env] = s
	}
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		s, ok := known[k]
		if !ok {
			t.Errorf("ConfigMap key %s is not a setting of config/config.go", k)
			continue
		}
		if problem := checkSettingValue(s, cm.Data[k]); problem != "" {
			t.Errorf("ConfigMap %s=%q: %s", k, cm.Data[k], problem)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(known)) {
		if _, ok := cm.Data[k]; !ok {
			t.Errorf("ConfigMap lacks setting %s (default %q): production values are written out", k, known[k].def)
		}
	}
	for k, want := range map[string]string{"MEDIA_BACKEND": "opensearch", "MEDIA_BASE_PATH": "/"} {
		if cm.Data[k] != want {
			t.Errorf("%s = %q, want %q", k, cm.Data[k], want)
		}
	}
	if cm.Data["REDIS_URL"] == "" {
		t.Error("REDIS_URL is empty: replicas would not share the rate limit")
	}
	// Trusting nobody until an overlay names the ingress controller's addresses: a trusted range
	// that holds other pods or SNATed clients lets them choose their visitor.
	if cm.Data["MEDIA_TRUSTED_PROXIES"] != "" {
		t.Errorf("MEDIA_TRUSTED_PROXIES = %q in the base, want empty: only an overlay knows the ingress's addresses", cm.Data["MEDIA_TRUSTED_PROXIES"])
	}
	if strings.HasPrefix(cm.Data["MEDIA_ADMIN_ADDR"], "127.") || strings.HasPrefix(cm.Data["MEDIA_ADMIN_ADDR"], "localhost") {
		t.Errorf("MEDIA_ADMIN_ADDR %q is loopback: Prometheus could not scrape the pod", cm.Data["MEDIA_ADMIN_ADDR"])
	}
}

func TestDeployment(t *testing.T) {
	m := baseFiles(t)
	d := one(t, "Deployment", m.deployments)
	cm := configMap(t, m, settingsMap)
	spec := d.Spec.Template.Spec

	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Error("the selector does not match the pod template's labels")
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 {
		t.Error("rolling updates may take pods away before new ones are ready (maxUnavailable should be 0)")
	}

	c := one(t, "container", spec.Containers)
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if want := portOf(t, cm.Data["MEDIA_ADDR"]); ports["http"] != int32(want) {
		t.Errorf("port http = %d, MEDIA_ADDR listens on %d", ports["http"], want)
	}
	if want := portOf(t, cm.Data["MEDIA_ADMIN_ADDR"]); ports["admin"] != int32(want) {
		t.Errorf("port admin = %d, MEDIA_ADMIN_ADDR listens on %d", ports["admin"], want)
	}
	if d.Spec.Template.Annotations["prometheus.io/port"] != fmt.Sprint(ports["admin"]) {
		t.Errorf("prometheus.io/port annotation %q is not the admin port %d", d.Spec.Template.Annotations["prometheus.io/port"], ports["admin"])
	}

	probes := []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{
		{"readiness", c.ReadinessProbe, "/readyz"},
		{"liveness", c.LivenessProbe, "/healthz"},
		{"startup", c.StartupProbe, "/healthz"},
	}
	for _, p := range probes {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s probe: missing or not an HTTP GET", p.name)
			continue
		}
		g := p.probe.HTTPGet
		if want := strings.TrimSuffix(cm.Data["MEDIA_BASE_PATH"], "/") + p.path; g.Path != want {
			t.Errorf("%s probe path %q, want %q", p.name, g.Path, want)
		}
		if port := resolvePort(g.Port, ports); port != ports["http"] {
			t.Errorf("%s probe port %s resolves to %d, want the public port %d", p.name, g.Port.String(), port, ports["http"])
		}
	}

	// Kubernetes waits this long after SIGTERM before SIGKILL; the process needs the delay (readiness
	// fails, endpoints update) plus the grace (in-flight requests finish) to exit cleanly.
	delay, err := time.ParseDuration(cm.Data["MEDIA_SHUTDOWN_DELAY"])
	if err != nil {
		t.Fatal(err)
	}
	grace, err := time.ParseDuration(cm.Data["MEDIA_SHUTDOWN_GRACE"])
	if err != nil {
		t.Fatal(err)
	}
	if spec.TerminationGracePeriodSeconds == nil {
		t.Fatal("terminationGracePeriodSeconds is not set")
	}
	if tg := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second; tg <= delay+grace {
		t.Errorf("terminationGracePeriodSeconds %v is not above MEDIA_SHUTDOWN_DELAY + MEDIA_SHUTDOWN_GRACE = %v", tg, delay+grace)
	}
	if ready := c.ReadinessProbe; ready != nil && time.Duration(ready.PeriodSeconds)*time.Second > delay {
		t.Errorf("readiness period %ds is longer than MEDIA_SHUTDOWN_DELAY %v: traffic may still arrive when the listener closes", ready.PeriodSeconds, delay)
	}

	checkPodSecurity(t, "deployment", spec)
	checkEnvFrom(t, "deployment", c, cm.Name, gatewaySecret)
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := c.Resources.Requests[res]; !ok {
			t.Errorf("no %s request: the HPA and the scheduler need one", res)
		}
	}
	if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
		t.Error("no memory limit")
	}
	checkPoliciesMount(t, spec, c, cm.Data["MEDIA_RATE_LIMIT_POLICIES"])
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Error("the service account token is mounted; the gateway never calls the Kubernetes API")
	}
}

// resolvePort turns a named or numbered probe port into the number.
func resolvePort(p intstr.IntOrString, named map[string]int32) int32 {
	if p.Type == intstr.String {
		return named[p.StrVal]
	}
	return p.IntVal
}

func checkPodSecurity(t *testing.T, what string, spec corev1.PodSpec) {
	t.Helper()
	psc := spec.SecurityContext
	if psc == nil {
		t.Fatalf("%s: no pod securityContext", what)
	}
	if psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Errorf("%s: pod runAsNonRoot is not true", what)
	}
	if psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("%s: pod runAsUser is unset or root", what)
	}
	if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: seccomp profile is not RuntimeDefault", what)
	}
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		sc := c.SecurityContext
		if sc == nil {
			t.Errorf("%s container %s: no securityContext", what, c.Name)
			continue
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s container %s: root filesystem is writable", what, c.Name)
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("%s container %s: privilege escalation is allowed", what, c.Name)
		}
		if sc.Privileged != nil && *sc.Privileged {
			t.Errorf("%s container %s: privileged", what, c.Name)
		}
		if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
			t.Errorf("%s container %s: capabilities are not exactly drop ALL", what, c.Name)
		}
		if c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s container %s: no memory limit", what, c.Name)
		}
	}
}

// checkEnvFrom wants the settings from the ConfigMap, optionally overridden by the one Secret
// named secret.
func checkEnvFrom(t *testing.T, what string, c corev1.Container, configMap, secret string) {
	t.Helper()
	if len(c.EnvFrom) == 0 || c.EnvFrom[0].ConfigMapRef == nil || c.EnvFrom[0].ConfigMapRef.Name != configMap {
		t.Errorf("%s container %s: does not read the settings from ConfigMap %s first", what, c.Name, configMap)
	}
	var secrets []string
	for _, ef := range c.EnvFrom[1:] {
		if ef.SecretRef == nil || ef.SecretRef.Optional == nil || !*ef.SecretRef.Optional {
			t.Errorf("%s container %s: envFrom beyond the ConfigMap should be an optional Secret", what, c.Name)
			continue
		}
		secrets = append(secrets, ef.SecretRef.Name)
	}
	if !slices.Equal(secrets, []string{secret}) {
		t.Errorf("%s container %s: reads the Secrets %q, want only %q", what, c.Name, secrets, secret)
	}
}

// The gateway holds the engine's read-only credentials, the load Job the ones that write (the
// README's least-privilege table): two Secrets, so the gateway never holds the loader's.
const (
	gatewaySecret = "mediagw-secrets"
	loaderSecret  = "mediagw-load-secrets"
)

func TestServiceHPAAndPDBTargetTheGateway(t *testing.T) {
	m := baseFiles(t)
	d := one(t, "Deployment", m.deployments)
	podLabels := labels.Set(d.Spec.Template.Labels)
	c := d.Spec.Template.Spec.Containers[0]

	svc := one(t, "Service", m.services)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) || len(svc.Spec.Selector) == 0 {
		t.Errorf("Service selector %v does not select the gateway pods", svc.Spec.Selector)
	}
	for _, p := range svc.Spec.Ports {
		found := false
		for _, cp := range c.Ports {
			if (p.TargetPort.Type == intstr.String && p.TargetPort.StrVal == cp.Name) || p.TargetPort.IntVal == cp.ContainerPort {
				found = true
				if cp.Name == "admin" {
					t.Error("the Service publishes the admin port (metrics, pprof)")
				}
			}
		}
		if !found {
			t.Errorf("Service port %s: targetPort %s is no container port", p.Name, p.TargetPort.String())
		}
	}

	hpa := one(t, "HorizontalPodAutoscaler", m.hpas)
	ref := hpa.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Name {
		t.Errorf("HPA scales %s %s/%s, not the Deployment %s", ref.APIVersion, ref.Kind, ref.Name, d.Name)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas < *hpa.Spec.MinReplicas {
		t.Errorf("HPA replicas min %v max %d: want at least 2 and max >= min", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	cpu := false
	for _, mt := range hpa.Spec.Metrics {
		if mt.Type == autoscalingv2.ResourceMetricSourceType && mt.Resource != nil && mt.Resource.Name == corev1.ResourceCPU &&
			mt.Resource.Target.Type == autoscalingv2.UtilizationMetricType && mt.Resource.Target.AverageUtilization != nil {
			cpu = true
		}
	}
	if !cpu {
		t.Error("HPA does not scale on CPU utilization")
	}

	pdb := one(t, "PodDisruptionBudget", m.pdbs)
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Matches(podLabels) {
		t.Error("PDB selector does not select the gateway pods")
	}
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() < 1 || pdb.Spec.MinAvailable.IntValue() >= int(*hpa.Spec.MinReplicas) {
		t.Errorf("PDB minAvailable %v: want at least 1 and below the HPA minimum %d, so drains can proceed", pdb.Spec.MinAvailable, *hpa.Spec.MinReplicas)
	}
}

func TestLoadJob(t *testing.T) {
	m := baseFiles(t)
	job := one(t, "Job", m.jobs)
	cm := configMap(t, m, settingsMap)
	spec := job.Spec.Template.Spec
	if spec.RestartPolicy != corev1.RestartPolicyNever && spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy %q", spec.RestartPolicy)
	}
	c := one(t, "container", spec.Containers)
	cmd := slices.Concat(c.Command, c.Args)
	if len(cmd) < 3 || filepath.Base(cmd[0]) != "mediactl" || cmd[1] != "load" {
		t.Fatalf("job runs %q, want mediactl load FILE", cmd)
	}
	// The file it loads lies on a mounted volume.
	file := cmd[len(cmd)-1]
	mounted := false
	for _, vm := range c.VolumeMounts {
		if strings.HasPrefix(file, strings.TrimSuffix(vm.MountPath, "/")+"/") {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("job loads %s, which is on no mounted volume", file)
	}
	checkPodSecurity(t, "job", spec)
	checkEnvFrom(t, "job", c, cm.Name, loaderSecret)
	if job.Spec.BackoffLimit == nil || job.Spec.ActiveDeadlineSeconds == nil {
		t.Error("job has no backoffLimit or activeDeadlineSeconds: a broken load could retry forever")
	}
}

// buildOverlay builds an overlay of the given files (kustomization.yaml among them) over a copy of
// the base, as deploy/README.md writes one, and decodes its output.
func buildOverlay(t *testing.T, overlay map[string]string) manifests {
	t.Helper()
	// An in-memory copy: kustomize takes a base only by a path relative to the overlay.
	fs := filesys.MakeFsInMemory()
	files, err := filepath.Glob(filepath.Join(baseDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile(filepath.Join("/base", filepath.Base(f)), data); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range overlay {
		if err := fs.WriteFile(filepath.Join("/overlay", name), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/overlay")
	if err != nil {
		t.Fatalf("kustomize build overlay: %v", err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	var m manifests
	if err := decodeStrict(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOverlaySetsDigestAndProxies builds an overlay as deploy/README.md writes one: the release's
// digest replaces the base's placeholder, and the ingress pods' range becomes the trusted proxies.
func TestOverlaySetsDigestAndProxies(t *testing.T) {
	const digest = "sha256:3f1c4a2b9d8e7f60112233445566778899aabbccddeeff00112233445566778a"
	m := buildOverlay(t, map[string]string{"kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../base
images:
  - name: registry.example.org/mediagw
    newTag: "1.4.0"
    digest: ` + digest + `
patches:
  - target: {kind: ConfigMap, name: mediagw}
    patch: |
      - {op: replace, path: /data/MEDIA_TRUSTED_PROXIES, value: "10.42.7.0/24"}
`})
	want := "registry.example.org/mediagw:1.4.0@" + digest
	for _, c := range []corev1.Container{one(t, "Deployment", m.deployments).Spec.Template.Spec.Containers[0], one(t, "Job", m.jobs).Spec.Template.Spec.Containers[0]} {
		if c.Image != want {
			t.Errorf("container %s: image %q, want %q", c.Name, c.Image, want)
		}
	}
	if got := configMap(t, m, settingsMap).Data["MEDIA_TRUSTED_PROXIES"]; got != "10.42.7.0/24" {
		t.Errorf("MEDIA_TRUSTED_PROXIES = %q after the overlay's patch", got)
	}
}

// checkPoliciesMount wants the rate-limit policies ConfigMap mounted read-only as a directory (a
// subPath mount would never see an update) where MEDIA_RATE_LIMIT_POLICIES names its file, and no
// other volume: the gateway on OpenSearch writes nothing.
func checkPoliciesMount(t *testing.T, spec corev1.PodSpec, c corev1.Container, path string) {
	t.Helper()
	if len(spec.Volumes) != 1 || spec.Volumes[0].ConfigMap == nil || spec.Volumes[0].ConfigMap.Name != policiesMap {
		t.Fatalf("volumes %v: want the ConfigMap %s alone", spec.Volumes, policiesMap)
	}
	v := spec.Volumes[0]
	if len(v.ConfigMap.Items) != 0 {
		t.Errorf("volume %s picks items %v: the file is the ConfigMap's key", v.Name, v.ConfigMap.Items)
	}
	if len(c.VolumeMounts) != 1 {
		t.Fatalf("volume mounts %v: want the policies' alone", c.VolumeMounts)
	}
	vm := c.VolumeMounts[0]
	if vm.Name != v.Name || !vm.ReadOnly || vm.SubPath != "" || vm.SubPathExpr != "" {
		t.Errorf("mount %+v: want volume %s read-only, without a subPath (the kubelet never updates one)", vm, v.Name)
	}
	if dir, key := filepath.Split(path); filepath.Clean(dir) != filepath.Clean(vm.MountPath) || key != "policies" {
		t.Errorf("MEDIA_RATE_LIMIT_POLICIES %q is not the key policies of the mount at %s", path, vm.MountPath)
	}
}

// TestRateLimitPoliciesEmpty: the base gives no network an allowance of its own; its file holds
// comments only, in the one key the pods read.
func TestRateLimitPoliciesEmpty(t *testing.T) {
	cm := configMap(t, baseFiles(t), policiesMap)
	if len(cm.Data) != 1 || len(cm.BinaryData) != 0 {
		t.Fatalf("ConfigMap %s: keys %v, want policies alone", policiesMap, slices.Sorted(maps.Keys(cm.Data)))
	}
	file, ok := cm.Data["policies"]
	if !ok {
		t.Fatalf("ConfigMap %s has no key policies", policiesMap)
	}
	for line := range strings.Lines(file) {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			t.Errorf("ConfigMap %s gives a network a policy in the base: %q", policiesMap, l)
		}
	}
}

// TestOverlayGivesASchoolItsAllowance builds the overlay README.md shows: its file replaces the
// base's under the same name, so the mounted file changes in place.
func TestOverlayGivesASchoolItsAllowance(t *testing.T) {
	const policies = "schools  1200  10m  address  198.51.100.0/24\n"
	m := buildOverlay(t, map[string]string{"policies": policies, "kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../base
configMapGenerator:
  - name: mediagw-rate-limit-policies
    behavior: replace
    files:
      - policies
    options:
      disableNameSuffixHash: true
`})
	if got := configMap(t, m, policiesMap).Data["policies"]; got != policies {
		t.Errorf("policies after the overlay: %q, want %q", got, policies)
	}
	spec := one(t, "Deployment", m.deployments).Spec.Template.Spec
	checkPoliciesMount(t, spec, spec.Containers[0], configMap(t, m, settingsMap).Data["MEDIA_RATE_LIMIT_POLICIES"])
}
