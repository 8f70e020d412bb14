package deploy

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// peer is a pod that opens a connection: its labels and its namespace's.
type peer struct {
	pod, namespace map[string]string
}

// ingressAllowed evaluates the policies of namespace ns as the NetworkPolicy API defines them:
// a pod no Ingress policy selects accepts everything; a selected pod accepts a connection that
// at least one rule of one selecting policy allows (ports and sources both matching).
func ingressAllowed(t *testing.T, policies []*networkingv1.NetworkPolicy, nsLabels, target map[string]string,
	targetPorts []corev1.ContainerPort, from peer, port int32) bool {
	t.Helper()
	selected := false
	for _, p := range policies {
		if !slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !selects(t, &p.Spec.PodSelector, target) {
			continue
		}
		selected = true
		for _, rule := range p.Spec.Ingress {
			if portMatches(rule.Ports, targetPorts, port) && peerMatches(t, rule.From, nsLabels, from) {
				return true
			}
		}
	}
	return !selected
}

func selects(t *testing.T, sel *metav1.LabelSelector, set map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return s.Matches(labels.Set(set))
}

func portMatches(ports []networkingv1.NetworkPolicyPort, targetPorts []corev1.ContainerPort, port int32) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP {
			continue
		}
		switch {
		case p.Port == nil:
			return true
		case p.Port.Type == intstr.Int && p.Port.IntVal == port:
			return true
		case p.Port.Type == intstr.String:
			for _, cp := range targetPorts {
				if cp.Name == p.Port.StrVal && cp.ContainerPort == port {
					return true
				}
			}
		}
	}
	return false
}

func peerMatches(t *testing.T, from []networkingv1.NetworkPolicyPeer, policyNS map[string]string, src peer) bool {
	if len(from) == 0 {
		return true
	}
	for _, f := range from {
		if f.IPBlock != nil {
			t.Fatal("ipBlock peers are not modelled by this test")
		}
		nsOK := selectsOrSame(t, f.NamespaceSelector, src.namespace, policyNS)
		podOK := f.PodSelector == nil || selects(t, f.PodSelector, src.pod)
		if nsOK && podOK {
			return true
		}
	}
	return false
}

// selectsOrSame: a peer without a namespaceSelector means the policy's own namespace.
func selectsOrSame(t *testing.T, sel *metav1.LabelSelector, srcNS, policyNS map[string]string) bool {
	if sel == nil {
		return srcNS["kubernetes.io/metadata.name"] == policyNS["kubernetes.io/metadata.name"]
	}
	return selects(t, sel, srcNS)
}

// TestNetworkPolicy: the public port is open to the ingress controller only (the one proxy whose
// X-Forwarded-For is believed), the admin port (metrics, pprof) to the monitoring scraper only,
// and nothing else in the namespace accepts connections.
func TestNetworkPolicy(t *testing.T) {
	m := built(t)
	d := one(t, "Deployment", m.deployments)
	job := one(t, "Job", m.jobs)
	ns := one(t, "Namespace", m.namespaces)
	nsLabels := map[string]string{"kubernetes.io/metadata.name": ns.Name}
	for k, v := range ns.Labels {
		nsLabels[k] = v
	}
	ports := d.Spec.Template.Spec.Containers[0].Ports
	portNum := map[string]int32{}
	for _, p := range ports {
		portNum[p.Name] = p.ContainerPort
	}
	namespace := func(name string) map[string]string { return map[string]string{"kubernetes.io/metadata.name": name} }
	prometheus := map[string]string{"app.kubernetes.io/name": "prometheus"}
	anyPod := map[string]string{"app": "something"}
	for _, tt := range []struct {
		name   string
		target map[string]string
		from   peer
		port   string
		want   bool
	}{
		{"API from the ingress controller", d.Spec.Template.Labels, peer{anyPod, namespace("ingress-nginx")}, "http", true},
		{"API from a pod elsewhere", d.Spec.Template.Labels, peer{anyPod, namespace("default")}, "http", false},
		{"API from Prometheus", d.Spec.Template.Labels, peer{prometheus, namespace("monitoring")}, "http", false},
		{"API from a pod beside it", d.Spec.Template.Labels, peer{anyPod, nsLabels}, "http", false},
		{"admin from the ingress controller", d.Spec.Template.Labels, peer{anyPod, namespace("ingress-nginx")}, "admin", false},
		{"admin from Prometheus in monitoring", d.Spec.Template.Labels, peer{prometheus, namespace("monitoring")}, "admin", true},
		{"admin from another pod in monitoring", d.Spec.Template.Labels, peer{anyPod, namespace("monitoring")}, "admin", false},
		{"admin from a pod labelled prometheus elsewhere", d.Spec.Template.Labels, peer{prometheus, namespace("default")}, "admin", false},
		{"admin from a pod beside it", d.Spec.Template.Labels, peer{anyPod, nsLabels}, "admin", false},
		{"admin from the whole pod network", d.Spec.Template.Labels, peer{anyPod, namespace("default")}, "admin", false},
		{"the load Job's pod", job.Spec.Template.Labels, peer{anyPod, nsLabels}, "http", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			port := portNum[tt.port]
			if port == 0 {
				t.Fatalf("the gateway has no port %s", tt.port)
			}
			if got := ingressAllowed(t, m.policies, nsLabels, tt.target, ports, tt.from, port); got != tt.want {
				t.Errorf("allowed = %v, want %v", got, tt.want)
			}
		})
	}
	// Named ports in the policies are ports of the gateway, or they would match nothing.
	for _, p := range m.policies {
		for _, rule := range p.Spec.Ingress {
			for _, rp := range rule.Ports {
				if rp.Port != nil && rp.Port.Type == intstr.String && portNum[rp.Port.StrVal] == 0 {
					t.Errorf("NetworkPolicy %s: port %s is no port of the gateway", p.Name, rp.Port.StrVal)
				}
			}
		}
	}
}
