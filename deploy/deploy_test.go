// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package deploy holds the container image and the Kubernetes manifests;
// its tests render every kustomization with the kustomize API, decode each
// document strictly into its Kubernetes (or KEDA) Go type, and check the
// documents agree with the code and with each other.
package deploy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// TestConfigMapHoldsNoSecrets: the rendered a2abus.yaml alone is valid and
// holds no URL, key or model: they come from the Secrets and a2abus-llm.
func TestConfigMapHoldsNoSecrets(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		var text string
		for _, cm := range all[corev1.ConfigMap](r) {
			if v, ok := cm.Data["a2abus.yaml"]; ok {
				text = v
			}
		}
		if text == "" {
			t.Fatal("no ConfigMap holds a2abus.yaml")
		}
		for _, k := range config.Keys() {
			t.Setenv(config.EnvName(k), "")
		}
		f := filepath.Join(t.TempDir(), "a2abus.yaml")
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(config.LoadOptions{File: f})
		if err != nil {
			t.Fatal(err)
		}
		if !cfg.Bus.Embedded() || !cfg.Redis.Embedded() || cfg.Directory.AnnounceSecret != "" || cfg.LLM.BaseURL != "" || cfg.LLM.APIKey != "" {
			t.Error("the ConfigMap's a2abus.yaml sets a URL, a secret or a model: they belong to the Secrets and a2abus-llm")
		}
	})
}

func TestWellKnownMatchesRepository(t *testing.T) {
	repo, err := directory.LoadWellKnown(filepath.Join("..", "well-known-agents.json"))
	if err != nil {
		t.Fatal(err)
	}
	deployed, err := directory.LoadWellKnown(filepath.Join("base", "well-known-agents.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(repo, deployed) {
		t.Error("deploy/base/well-known-agents.json differs from well-known-agents.json: copy it again")
	}
}

// TestWellKnownDeclaresSampleAgentSchemas: the well-known file declares the
// input schema SampleAgent announces for npv, so callers check the input of
// a task for it even before the agent has announced itself.
func TestWellKnownDeclaresSampleAgentSchemas(t *testing.T) {
	known, err := directory.LoadWellKnown(filepath.Join("base", "well-known-agents.json"))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(known, func(k directory.WellKnownAgent) bool { return k.AgentName == sample.DefaultName })
	if i < 0 {
		t.Fatalf("%s is not in well-known-agents.json", sample.DefaultName)
	}
	schemas := known[i].InputSchemas
	if len(schemas) != 1 || schemas[sample.SkillNPV] == nil {
		t.Fatalf("%s's inputSchemas = %v, want exactly the %s skill's", sample.DefaultName, schemas, sample.SkillNPV)
	}
	var got, want any
	if err := json.Unmarshal(schemas[sample.SkillNPV], &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(sample.NPVInputSchema), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the well-known %s schema differs from sample.NPVInputSchema: copy it again\ngot  %s", sample.SkillNPV, schemas[sample.SkillNPV])
	}
}

// TestProductionOverlay: the image is pinned in every a2abus container (the
// ScaledJob's included), and replicas and resources are the overlay's.
func TestProductionOverlay(t *testing.T) {
	r := render(t, "overlays/production")
	const image = "registry.example.com/a2abus:v1.0.0"
	n := 0
	for _, p := range r.pods() {
		for _, c := range a2abusContainers(p) {
			n++
			if c.Image != image {
				t.Errorf("%s container %s runs %s, want %s", p.Owner, c.Name, c.Image, image)
			}
		}
	}
	if n < 5 {
		t.Errorf("%d a2abus containers, want the five workloads'", n)
	}
	for name, want := range map[string]int32{"sample-agent": 3, "primary": 2, "directory": 1} {
		if d := byName[appsv1.Deployment](r, name); d == nil || d.Spec.Replicas == nil || *d.Spec.Replicas != want {
			t.Errorf("Deployment %s: replicas not %d", name, want)
		}
	}
	if d := byName[appsv1.Deployment](r, "primary"); d != nil {
		if got := d.Spec.Template.Spec.Containers[0].Resources.Limits.Memory().String(); got != "1Gi" {
			t.Errorf("primary's memory limit = %s, want the overlay's 1Gi", got)
		}
	}
	if j := byName[ScaledJob](r, "research-agent"); j == nil || j.Spec.MaxReplicaCount == nil || *j.Spec.MaxReplicaCount != 20 {
		t.Error("the research-agent ScaledJob's maxReplicaCount is not the overlay's 20")
	}
}

// TestLocalOverlay: the generated Secret points at the overlay's own
// RabbitMQ and Redis Services, with the user RabbitMQ is started with.
func TestLocalOverlay(t *testing.T) {
	r := render(t, "overlays/local")
	urls := generated[corev1.Secret](r, "a2abus-urls")
	if urls == nil {
		t.Fatal("overlays/local generates no Secret a2abus-urls")
	}
	for key, svc := range map[string]string{"bus-url": "rabbitmq", "redis-url": "redis"} {
		raw, ok := r.secretValue(t, urls.Name, key)
		if !ok {
			t.Fatalf("a2abus-urls has no %s", key)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		s := byName[corev1.Service](r, svc)
		if s == nil {
			t.Fatalf("Service %s not rendered", svc)
		}
		if u.Hostname() != svc || !slices.ContainsFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return fmt.Sprint(p.Port) == u.Port() }) {
			t.Errorf("%s = %s does not reach Service %s on one of its ports", key, u.Redacted(), svc)
		}
		d := byName[appsv1.Deployment](r, svc)
		if d == nil || !matches(s.Spec.Selector, d.Spec.Template.Labels) {
			t.Fatalf("Service %s selects no Deployment %s", svc, svc)
		}
		c := &d.Spec.Template.Spec.Containers[0]
		for _, p := range s.Spec.Ports {
			if portNumber(c, p.TargetPort) == 0 {
				t.Errorf("Service %s targets port %s, which %s does not have", svc, p.TargetPort.String(), svc)
			}
		}
		if svc == "rabbitmq" {
			pass, _ := u.User.Password()
			if user := env(c, "RABBITMQ_DEFAULT_USER"); user == nil || user.Value != u.User.Username() || env(c, "RABBITMQ_DEFAULT_PASS").Value != pass {
				t.Error("bus-url's user and password are not those RabbitMQ is started with")
			}
		}
	}
}

// TestDeadLetterPolicy: the Topology Operator Policy bounds exactly the dead
// queue of the default exchange, with the limits docs/topology.md documents
// in its rabbitmqctl command; the production overlay applies it.
func TestDeadLetterPolicy(t *testing.T) {
	r := render(t, "overlays/production")
	p := byName[RabbitPolicy](r, "a2a-dead-limits")
	if p == nil {
		t.Fatal("Policy a2a-dead-limits not rendered by overlays/production")
	}
	if got := p.APIVersion; got != "rabbitmq.com/v1beta1" {
		t.Errorf("apiVersion = %q, want the Messaging Topology Operator's rabbitmq.com/v1beta1", got)
	}
	spec := p.Spec
	dead := a2a.DeadLetterQueue(a2a.DefaultExchange)
	pattern := "^" + regexp.QuoteMeta(dead) + "$"
	if spec.Pattern != pattern || spec.ApplyTo != "queues" || spec.Name != "a2a-dead-limits" {
		t.Errorf("spec = %+v, want name a2a-dead-limits, pattern %s, applyTo queues", spec, pattern)
	}
	re := regexp.MustCompile(spec.Pattern)
	for _, q := range []string{"a2a.deadx", "a2aXdead", "tenant.a2a.dead", "agent.task.A", "agent.response.B"} {
		if re.MatchString(q) {
			t.Errorf("pattern %s also matches %s", spec.Pattern, q)
		}
	}
	if spec.RabbitmqClusterReference.Name == "" {
		t.Error("spec.rabbitmqClusterReference.name is empty")
	}
	want := map[string]any{"max-length": int64(100000), "message-ttl": int64(1209600000), "overflow": "drop-head"}
	if !reflect.DeepEqual(spec.Definition, want) {
		t.Errorf("definition = %#v, want %#v", spec.Definition, want)
	}
	js, err := json.Marshal(spec.Definition)
	if err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf("--apply-to queues --priority %d a2a-dead-limits '%s' '%s'", spec.Priority, pattern, js)
	for _, doc := range []string{"topology.md", "operations.md"} {
		data, err := os.ReadFile(filepath.Join("..", "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), cmd) {
			t.Errorf("docs/%s does not show the manifest's policy as a rabbitmqctl command:\n  %s", doc, cmd)
		}
	}
}
