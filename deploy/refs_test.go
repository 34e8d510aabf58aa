// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package deploy

import (
	"fmt"
	"net"
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/a2abus/a2abus/config"
)

// isA2abus tells whether image is the a2abus image, under any registry and tag.
func isA2abus(image string) bool {
	name, _, _ := strings.Cut(path.Base(image), ":")
	name, _, _ = strings.Cut(name, "@")
	return name == "a2abus"
}

// a2abusContainers returns the containers of p running the a2abus image.
func a2abusContainers(p pod) []*corev1.Container {
	var out []*corev1.Container
	for i := range p.Spec.Containers {
		if isA2abus(p.Spec.Containers[i].Image) {
			out = append(out, &p.Spec.Containers[i])
		}
	}
	return out
}

// env returns the container's variable name, or nil.
func env(c *corev1.Container, name string) *corev1.EnvVar {
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
	if i < 0 {
		return nil
	}
	return &c.Env[i]
}

// envKey returns the configuration key an A2ABUS_ variable sets, or "".
func envKey(name string) string {
	for _, k := range config.Keys() {
		if config.EnvName(k) == name {
			return k
		}
	}
	return ""
}

func TestEveryDocumentDecodesStrictly(t *testing.T) {
	wantNS := map[string]string{"base": "", "overlays/production": "agents", "overlays/local": "a2abus-local"}
	each(t, func(t *testing.T, r *rendering) {
		if len(r.Manifests) < 10 {
			t.Fatalf("%d documents rendered, want the base's at least", len(r.Manifests))
		}
		for _, m := range r.Manifests {
			if m.Kind != "Namespace" && m.Namespace != wantNS[r.Dir] {
				t.Errorf("%s/%s is in namespace %q, want %q", m.Kind, m.Name, m.Namespace, wantNS[r.Dir])
			}
		}
	})
}

// TestStrictDecodingRejects: the decoding these tests rely on does fail on
// an unknown or misplaced field, in a core type and in a KEDA type.
func TestStrictDecodingRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown Deployment field": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"},"spec":{"replica":2}}`,
		"misplaced probe":          `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"},"spec":{"template":{"spec":{"livenessProbe":{}}}}}`,
		"ScaledJob typo":           `{"apiVersion":"keda.sh/v1alpha1","kind":"ScaledJob","metadata":{"name":"x"},"spec":{"jobTargetRef":{"template":{}},"triggers":[{"type":"rabbitmq","metadata":{}}],"pollingIntervall":5}}`,
		"ScaledJob bad strategy":   `{"apiVersion":"keda.sh/v1alpha1","kind":"ScaledJob","metadata":{"name":"x"},"spec":{"jobTargetRef":{"template":{}},"triggers":[{"type":"rabbitmq","metadata":{}}],"scalingStrategy":{"strategy":"accurat"}}}`,
		"trigger value not text":   `{"apiVersion":"keda.sh/v1alpha1","kind":"ScaledJob","metadata":{"name":"x"},"spec":{"jobTargetRef":{"template":{}},"triggers":[{"type":"rabbitmq","metadata":{"value":1}}]}}`,
		"unknown kind":             `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`,
	} {
		if _, err := decodeStrict([]byte(doc)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

// TestNoSecretIsShipped: base and production render no Secret (a template
// applied would overwrite the real one); the local overlay generates both.
func TestNoSecretIsShipped(t *testing.T) {
	for _, dir := range []string{"base", "overlays/production"} {
		if s := all[corev1.Secret](render(t, dir)); len(s) != 0 {
			t.Errorf("%s renders the Secret %s", dir, s[0].Name)
		}
	}
	local := render(t, "overlays/local")
	for _, tpl := range secretTemplates(t) {
		for key := range tpl.StringData {
			s := generated[corev1.Secret](local, tpl.Name)
			if s == nil {
				t.Errorf("overlays/local does not generate %s", tpl.Name)
				continue
			}
			if _, ok := s.Data[key]; !ok || s.Name == tpl.Name {
				t.Errorf("overlays/local does not generate %s key %s with a content hash in its name", tpl.Name, key)
			}
		}
	}
}

// TestReferencesResolve: every ServiceAccount, ConfigMap, Secret key and
// PersistentVolumeClaim a pod refers to exists (Secrets: rendered, or in
// secret.example.yaml), and no pod mounts a service-account token.
func TestReferencesResolve(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		for _, p := range r.pods() {
			if !isA2abus(p.Spec.Containers[0].Image) {
				continue // the local overlay's RabbitMQ and Redis
			}
			sa := byName[corev1.ServiceAccount](r, p.Spec.ServiceAccountName)
			switch {
			case sa == nil:
				t.Errorf("%s: ServiceAccount %q not rendered", p.Owner, p.Spec.ServiceAccountName)
			case sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken:
				t.Errorf("ServiceAccount %s mounts its token", sa.Name)
			}
			if a := p.Spec.AutomountServiceAccountToken; a == nil || *a {
				t.Errorf("%s: automountServiceAccountToken is not false", p.Owner)
			}
			for _, v := range p.Spec.Volumes {
				if cm := v.ConfigMap; cm != nil && byName[corev1.ConfigMap](r, cm.Name) == nil {
					t.Errorf("%s: volume %s mounts ConfigMap %q, not rendered", p.Owner, v.Name, cm.Name)
				}
				if pvc := v.PersistentVolumeClaim; pvc != nil && byName[corev1.PersistentVolumeClaim](r, pvc.ClaimName) == nil {
					t.Errorf("%s: volume %s claims %q, not rendered", p.Owner, v.Name, pvc.ClaimName)
				}
			}
			for _, c := range p.Spec.Containers {
				if len(c.EnvFrom) != 0 {
					t.Errorf("%s container %s: envFrom hides which keys it sets; name each variable", p.Owner, c.Name)
				}
				for _, e := range c.Env {
					if _, err := r.resolve(t, e); err != nil {
						t.Errorf("%s container %s: %v", p.Owner, c.Name, err)
					}
				}
			}
		}
	})
}

// resolve returns the value e gives: literal, or read from the ConfigMap or
// Secret it names. A resourceFieldRef resolves to "".
func (r *rendering) resolve(t *testing.T, e corev1.EnvVar) (string, error) {
	t.Helper()
	switch src := e.ValueFrom; {
	case src == nil:
		return e.Value, nil
	case src.ConfigMapKeyRef != nil:
		v, ok := r.configValue(src.ConfigMapKeyRef.Name, src.ConfigMapKeyRef.Key)
		if !ok {
			return "", fmt.Errorf("%s: ConfigMap %s has no key %q", e.Name, src.ConfigMapKeyRef.Name, src.ConfigMapKeyRef.Key)
		}
		return v, nil
	case src.SecretKeyRef != nil:
		v, ok := r.secretValue(t, src.SecretKeyRef.Name, src.SecretKeyRef.Key)
		if !ok {
			return "", fmt.Errorf("%s: Secret %s (rendered or in secret.example.yaml) has no key %q", e.Name, src.SecretKeyRef.Name, src.SecretKeyRef.Key)
		}
		return v, nil
	case src.ResourceFieldRef != nil:
		return "", nil
	}
	return "", fmt.Errorf("%s: unsupported valueFrom %+v", e.Name, e.ValueFrom)
}

// TestEnvNamesAreConfigKeys: every A2ABUS_ variable of an a2abus container
// sets a configuration key; the others are the Go runtime's.
func TestEnvNamesAreConfigKeys(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		for _, p := range r.pods() {
			for _, c := range a2abusContainers(p) {
				for _, e := range c.Env {
					switch {
					case strings.HasPrefix(e.Name, config.EnvPrefix+"_"):
						if envKey(e.Name) == "" {
							t.Errorf("%s container %s: %s is not the variable of any configuration key", p.Owner, c.Name, e.Name)
						}
					case e.Name == "GOMEMLIMIT", e.Name == "GOGC", strings.HasPrefix(e.Name, "OTEL_"):
					default:
						t.Errorf("%s container %s: %s is neither a configuration variable nor the Go runtime's", p.Owner, c.Name, e.Name)
					}
				}
			}
		}
	})
}

// TestContainersBoundTheGoHeap: every container running an a2abus binary has
// a memory limit and passes it to the Go runtime as GOMEMLIMIT.
func TestContainersBoundTheGoHeap(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		for _, p := range r.pods() {
			for _, c := range a2abusContainers(p) {
				if c.Resources.Limits.Memory().IsZero() {
					t.Errorf("%s container %s has no resources.limits.memory", p.Owner, c.Name)
				}
				e := env(c, "GOMEMLIMIT")
				if e == nil || e.ValueFrom == nil || e.ValueFrom.ResourceFieldRef == nil || e.ValueFrom.ResourceFieldRef.Resource != "limits.memory" {
					t.Errorf("%s container %s: GOMEMLIMIT is not the resourceFieldRef limits.memory", p.Owner, c.Name)
				}
			}
		}
	})
}

// opsPort returns the port of the container's A2ABUS_OPS_LISTEN, or 0.
func opsPort(t *testing.T, owner string, c *corev1.Container) int32 {
	t.Helper()
	e := env(c, config.EnvName("ops.listen"))
	if e == nil {
		return 0
	}
	_, port, err := net.SplitHostPort(e.Value)
	var n int32
	if _, scanErr := fmt.Sscan(port, &n); err != nil || scanErr != nil || n <= 0 {
		t.Errorf("%s container %s: %s = %q is not host:port", owner, c.Name, e.Name, e.Value)
		return 0
	}
	return n
}

// portNumber resolves a probe's port, by name or number, in c.
func portNumber(c *corev1.Container, p intstr.IntOrString) int32 {
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	return 0
}

// TestOpsListenerProbesAndScraping: every long-running a2abus container
// serves the ops listener; its Deployments' probes and every pod's scrape
// annotations use that port. Under the Prometheus Operator (a PodMonitor is
// rendered) the annotations are off and the PodMonitor selects every pod.
func TestOpsListenerProbesAndScraping(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		monitors := all[PodMonitor](r)
		wantScrape := "true"
		if len(monitors) > 0 {
			wantScrape = "false"
		}
		for _, p := range r.pods() {
			if strings.HasPrefix(p.Owner, "Job/") {
				continue // the topology Job: a command that exits
			}
			for _, c := range a2abusContainers(p) {
				port := opsPort(t, p.Owner, c)
				if port == 0 {
					t.Errorf("%s container %s does not set %s", p.Owner, c.Name, config.EnvName("ops.listen"))
					continue
				}
				if portNumber(c, intstr.FromString("ops")) != port {
					t.Errorf("%s container %s: no container port named ops = %d", p.Owner, c.Name, port)
				}
				a := p.Annotations
				if a["prometheus.io/scrape"] != wantScrape || a["prometheus.io/port"] != fmt.Sprint(port) || a["prometheus.io/path"] != "/metrics" {
					t.Errorf("%s: scrape annotations %v, want scrape %q, port %d, path /metrics", p.Owner, a, wantScrape, port)
				}
				for _, m := range monitors {
					if !matches(m.Spec.Selector.MatchLabels, p.Labels) {
						t.Errorf("%s: PodMonitor %s does not select it", p.Owner, m.Name)
					}
					for _, ep := range m.Spec.PodMetricsEndpoints {
						if portNumber(c, intstr.FromString(ep.Port)) != port || ep.Path != "/metrics" {
							t.Errorf("PodMonitor %s scrapes port %q path %q, want the ops port's /metrics", m.Name, ep.Port, ep.Path)
						}
					}
				}
				if !strings.HasPrefix(p.Owner, "Deployment/") {
					continue // a KEDA job exits by itself: no probes
				}
				for _, pr := range []struct {
					name  string
					probe *corev1.Probe
					path  string
				}{{"startupProbe", c.StartupProbe, "/healthz"}, {"livenessProbe", c.LivenessProbe, "/healthz"}, {"readinessProbe", c.ReadinessProbe, "/readyz"}} {
					if pr.probe == nil || pr.probe.HTTPGet == nil {
						t.Errorf("%s container %s: no HTTP %s", p.Owner, c.Name, pr.name)
						continue
					}
					if got := portNumber(c, pr.probe.HTTPGet.Port); got != port || pr.probe.HTTPGet.Path != pr.path {
						t.Errorf("%s container %s: %s on port %d %s, want the ops port %d %s", p.Owner, c.Name, pr.name, got, pr.probe.HTTPGet.Path, port, pr.path)
					}
				}
			}
		}
	})
}

// matches tells whether labels carry every pair of selector (empty: no).
func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}
