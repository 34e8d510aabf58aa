// Package deploy holds the container image and the Kubernetes manifests;
// this test checks they parse and agree with the code and each other.
package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// object is one parsed Kubernetes manifest.
type object map[string]any

// get follows a path of map keys and list indexes; nil when absent.
func (o object) get(path ...any) any {
	var cur any = map[string]any(o)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[k]
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			cur = l[k]
		}
	}
	return cur
}

func (o object) str(path ...any) string { s, _ := o.get(path...).(string); return s }

// obj returns the object at path; empty (never nil-panicking) when absent.
func (o object) obj(path ...any) object { m, _ := o.get(path...).(map[string]any); return object(m) }

// loadManifests parses every YAML document of every file in base, keyed by "Kind/name".
func loadManifests(t *testing.T) (map[string]object, object) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("base", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in base: %v", err)
	}
	objs := map[string]object{}
	var kustomization object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			var raw map[string]any // not object: yaml.v3 would give nested maps that type too
			if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			o := object(raw)
			switch {
			case filepath.Base(f) == "a2abus.yaml":
				// the a2abus configuration, checked by TestConfigIsValid
			case o.str("kind") == "Kustomization":
				kustomization = o
			default:
				key := o.str("kind") + "/" + o.str("metadata", "name")
				if o.str("apiVersion") == "" || o.str("kind") == "" || o.str("metadata", "name") == "" {
					t.Errorf("%s document %d lacks apiVersion, kind or metadata.name", f, i)
				}
				if o.get("metadata", "namespace") != nil {
					t.Errorf("%s: %s sets a namespace; the base is namespace-less", f, key)
				}
				objs[key] = o
			}
		}
	}
	if kustomization == nil {
		t.Fatal("base/kustomization.yaml not found")
	}
	return objs, kustomization
}

func TestKustomizationFilesExist(t *testing.T) {
	_, k := loadManifests(t)
	files := append(toStrings(k.get("resources")), toStrings(k.get("configMapGenerator", 0, "files"))...)
	if len(files) < 4 {
		t.Fatalf("kustomization lists %v, want the two manifests and the two ConfigMap files", files)
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join("base", f)); err != nil {
			t.Errorf("kustomization lists %s: %v", f, err)
		}
	}
	if slices.Contains(files, "secret.example.yaml") {
		t.Error("the Secret template must not be a resource: applying it would overwrite the real Secret")
	}
}

func TestConfigIsValid(t *testing.T) {
	for _, k := range config.Keys() {
		t.Setenv(config.EnvName(k), "")
	}
	cfg, err := config.Load(config.LoadOptions{File: filepath.Join("base", "a2abus.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Bus.Embedded() || !cfg.Redis.Embedded() {
		t.Error("the ConfigMap must not hold URLs: they come from the Secret")
	}
	if got := filepath.Base(cfg.Directory.WellKnownFile); got != "well-known-agents.json" {
		t.Errorf("directory.well_known_file = %q, want the ConfigMap's well-known-agents.json", cfg.Directory.WellKnownFile)
	}
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

// TestContainersBoundTheGoHeap: every container running an a2abus binary has
// a memory limit and passes it to the Go runtime as GOMEMLIMIT.
func TestContainersBoundTheGoHeap(t *testing.T) {
	objs, _ := loadManifests(t)
	pods := map[string]object{
		"Deployment/sample-agent":  objs["Deployment/sample-agent"].obj("spec", "template", "spec"),
		"ScaledJob/research-agent": objs["ScaledJob/research-agent"].obj("spec", "jobTargetRef", "template", "spec"),
	}
	for name, pod := range pods {
		containers, _ := pod.get("containers").([]any)
		if len(containers) == 0 {
			t.Errorf("%s has no containers", name)
		}
		for i := range containers {
			c := pod.obj("containers", i)
			if c.str("resources", "limits", "memory") == "" {
				t.Errorf("%s container %q has no resources.limits.memory", name, c.str("name"))
			}
			env, _ := c.get("env").([]any)
			j := slices.IndexFunc(env, func(e any) bool { m, _ := e.(map[string]any); return m["name"] == "GOMEMLIMIT" })
			if j < 0 {
				t.Errorf("%s container %q does not set GOMEMLIMIT", name, c.str("name"))
				continue
			}
			if got := c.str("env", j, "valueFrom", "resourceFieldRef", "resource"); got != "limits.memory" {
				t.Errorf("%s container %q: GOMEMLIMIT comes from %q, want resourceFieldRef limits.memory", name, c.str("name"), got)
			}
		}
	}
}

// envSecrets maps each container env var to "secret/key".
func envSecrets(t *testing.T, container object) map[string]string {
	t.Helper()
	out := map[string]string{}
	env, _ := container.get("env").([]any)
	for i := range env {
		e := container.obj("env", i)
		out[e.str("name")] = e.str("valueFrom", "secretKeyRef", "name") + "/" + e.str("valueFrom", "secretKeyRef", "key")
	}
	return out
}

func secretKeys(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("base", "secret.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	s := object(raw)
	keys := map[string]bool{}
	for k := range s.obj("stringData") {
		keys[s.str("metadata", "name")+"/"+k] = true
	}
	return keys
}

func TestSampleAgentDeployment(t *testing.T) {
	objs, _ := loadManifests(t)
	d := objs["Deployment/sample-agent"]
	if d == nil {
		t.Fatal("Deployment/sample-agent not found")
	}
	c := d.obj("spec", "template", "spec", "containers", 0)
	args := strings.Join(toStrings(c.get("args")), " ")
	if !strings.HasPrefix(args, "serve --agent SampleAgent") {
		t.Errorf("args = %q, want serve --agent SampleAgent ...", args)
	}
	checkEnv(t, c)
	if d.str("spec", "template", "spec", "volumes", 0, "configMap", "name") != "a2abus-config" {
		t.Error("the config volume does not mount the ConfigMap a2abus-config")
	}
}

func TestResearchAgentScaledJob(t *testing.T) {
	objs, _ := loadManifests(t)
	j := objs["ScaledJob/research-agent"]
	if j == nil {
		t.Fatal("ScaledJob/research-agent not found")
	}
	queue, err := a2a.TaskRoutingKey("ResearchAgent")
	if err != nil {
		t.Fatal(err)
	}
	tr := j.obj("spec", "triggers", 0)
	if tr.str("type") != "rabbitmq" || tr.str("metadata", "queueName") != queue ||
		tr.str("metadata", "mode") != "QueueLength" || tr.str("metadata", "value") != "1" {
		t.Errorf("trigger = %v, want rabbitmq on %s, QueueLength, value \"1\"", tr, queue)
	}
	auth := objs["TriggerAuthentication/"+tr.str("authenticationRef", "name")]
	if auth == nil {
		t.Fatalf("TriggerAuthentication %q not found", tr.str("authenticationRef", "name"))
	}
	ref := auth.obj("spec", "secretTargetRef", 0)
	if ref.str("parameter") != "host" || !secretKeys(t)[ref.str("name")+"/"+ref.str("key")] {
		t.Errorf("TriggerAuthentication host comes from %s/%s, not a key of the Secret template", ref.str("name"), ref.str("key"))
	}
	checkEnv(t, j.obj("spec", "jobTargetRef", "template", "spec", "containers", 0))
	if j.str("spec", "jobTargetRef", "template", "spec", "restartPolicy") != "Never" {
		t.Error("a one-shot job must not restart in place")
	}
}

// checkEnv asserts a container takes both URLs from keys of the Secret template.
func checkEnv(t *testing.T, container object) {
	t.Helper()
	keys := secretKeys(t)
	env := envSecrets(t, container)
	for _, name := range []string{config.EnvName("bus.url"), config.EnvName("redis.url")} {
		if !keys[env[name]] {
			t.Errorf("%s comes from %q, not a key of the Secret template %v", name, env[name], keys)
		}
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}
