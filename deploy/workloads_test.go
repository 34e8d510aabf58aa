// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// mountedFile returns the content of the file at path in container c of p:
// the key of the ConfigMap mounted over it.
func (r *rendering) mountedFile(p pod, c *corev1.Container, file string) (string, error) {
	for _, vm := range c.VolumeMounts {
		rel, ok := strings.CutPrefix(file, strings.TrimSuffix(vm.MountPath, "/")+"/")
		if !ok {
			continue
		}
		i := slices.IndexFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == vm.Name })
		if i < 0 || p.Spec.Volumes[i].ConfigMap == nil {
			return "", fmt.Errorf("%s is under %s, which is not a ConfigMap volume", file, vm.MountPath)
		}
		cm := p.Spec.Volumes[i].ConfigMap.Name
		if v, ok := r.configValue(cm, rel); ok {
			return v, nil
		}
		return "", fmt.Errorf("%s: ConfigMap %s has no key %q", file, cm, rel)
	}
	return "", fmt.Errorf("%s is on no volume", file)
}

// configFile returns the --config argument of c.
func configFile(c *corev1.Container) string {
	args := slices.Concat(c.Command, c.Args)
	if i := slices.Index(args, "--config"); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// loadConfig loads the configuration container c of p would run with: its
// --config file from the ConfigMap mounted there, and its environment, each
// variable resolved from its ConfigMap or Secret (or template).
func (r *rendering) loadConfig(t *testing.T, p pod, c *corev1.Container) (*config.Config, error) {
	t.Helper()
	for _, k := range config.Keys() {
		t.Setenv(config.EnvName(k), "")
	}
	file := configFile(c)
	if file == "" {
		return nil, fmt.Errorf("no --config argument")
	}
	data, err := r.mountedFile(p, c, file)
	if err != nil {
		return nil, err
	}
	local := filepath.Join(t.TempDir(), filepath.Base(file))
	if err := os.WriteFile(local, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := config.Keys()
	for _, e := range c.Env {
		if !strings.HasPrefix(e.Name, config.EnvPrefix+"_") {
			continue
		}
		if k := envKey(e.Name); !slices.Contains(keys, k) {
			continue // a pending key: this build would ignore it too
		}
		v, err := r.resolve(t, e)
		if err != nil {
			return nil, err
		}
		t.Setenv(e.Name, v)
	}
	return config.Load(config.LoadOptions{File: local})
}

// TestEffectiveConfigIsValid: the configuration every a2abus container
// loads is valid, reads its well-known agents from a mounted ConfigMap, and
// gives the agents what they need: the Primary a model whose turns fit in
// agent.max_task_duration and the Redis its directory restores its listing
// from, the directory a known-agents file on its volume.
func TestEffectiveConfigIsValid(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		for _, p := range r.pods() {
			for _, c := range a2abusContainers(p) {
				cfg, err := r.loadConfig(t, p, c)
				if err != nil {
					t.Errorf("%s container %s: %v", p.Owner, c.Name, err)
					continue
				}
				if cfg.Bus.Embedded() {
					t.Errorf("%s container %s runs on the embedded bus", p.Owner, c.Name)
				}
				wk, err := r.mountedFile(p, c, cfg.Directory.WellKnownFile)
				if err != nil {
					t.Errorf("%s container %s: directory.well_known_file: %v", p.Owner, c.Name, err)
				} else if known := loadWellKnownText(t, wk); len(known) == 0 {
					t.Errorf("%s container %s: no well-known agents", p.Owner, c.Name)
				}
				args := strings.Join(c.Args, " ")
				switch {
				case strings.HasPrefix(args, "serve --agent "+agents.KindPrimary):
					if cfg.LLM.BaseURL == "" || cfg.LLM.Model == "" || cfg.LLM.APIKey == "" {
						t.Errorf("%s: llm.base_url, llm.model or llm.api_key is empty", p.Owner)
					}
					if bound := cfg.LLMTurnBound(); bound > cfg.Agent.MaxTaskDuration {
						t.Errorf("%s: a turn may take %s, above agent.max_task_duration %s", p.Owner, bound, cfg.Agent.MaxTaskDuration)
					}
					if cfg.Redis.Embedded() { // its directory restores the shared listing from there
						t.Errorf("%s: no redis.url: list_known_agents would start from an empty listing at every restart", p.Owner)
					}
				case cfg.LLM.BaseURL != "":
					t.Errorf("%s gets llm.base_url: only the Primary may have a model", p.Owner)
				}
				if cfg.Redis.Embedded() && !strings.HasPrefix(args, "directory") && !strings.HasPrefix(args, "topology") {
					t.Errorf("%s container %s: an agent without redis.url", p.Owner, c.Name)
				}
				if strings.HasPrefix(args, "directory") {
					checkKnownAgentsVolume(t, r, p, c, cfg.Directory.KnownAgentsFile)
				}
			}
		}
	})
}

// checkKnownAgentsVolume: file is on a writable volume of a rendered PVC.
func checkKnownAgentsVolume(t *testing.T, r *rendering, p pod, c *corev1.Container, file string) {
	t.Helper()
	for _, vm := range c.VolumeMounts {
		if !strings.HasPrefix(file, strings.TrimSuffix(vm.MountPath, "/")+"/") {
			continue
		}
		i := slices.IndexFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == vm.Name })
		if i < 0 || p.Spec.Volumes[i].PersistentVolumeClaim == nil || vm.ReadOnly {
			t.Errorf("%s: directory.known_agents_file %s is not on a writable PersistentVolumeClaim", p.Owner, file)
		} else if byName[corev1.PersistentVolumeClaim](r, p.Spec.Volumes[i].PersistentVolumeClaim.ClaimName) == nil {
			t.Errorf("%s: the claim of %s is not rendered", p.Owner, file)
		}
		return
	}
	t.Errorf("%s: directory.known_agents_file %q is on no volume: it would be lost, or fail on the read-only root", p.Owner, file)
}

func loadWellKnownText(t *testing.T, text string) []directory.WellKnownAgent {
	t.Helper()
	f := filepath.Join(t.TempDir(), "well-known-agents.json")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	known, err := directory.LoadWellKnown(f)
	if err != nil {
		t.Fatalf("the mounted well-known-agents.json: %v", err)
	}
	return known
}

// rabbitParams are the rabbitmq scaler's trigger metadata (KEDA 2.21).
var rabbitParams = []string{"host", "protocol", "queueName", "mode", "value", "activationValue", "vhostName",
	"useRegex", "excludeUnacknowledged", "pageSize", "operation", "timeout", "unsafeSsl", "queueLength",
	"hostFromEnv", "usernameFromEnv", "passwordFromEnv"}

// TestResearchAgentScaledJob: one job per ready task, on the queue of an
// agent the well-known file lists, authenticated with the Secret key the
// agent itself dials.
func TestResearchAgentScaledJob(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		j := byName[ScaledJob](r, "research-agent")
		if j == nil {
			t.Fatal("ScaledJob research-agent not rendered")
		}
		s := j.Spec
		if s.ScalingStrategy == nil || s.ScalingStrategy.Strategy != "accurate" {
			t.Errorf("scalingStrategy = %+v, want strategy accurate", s.ScalingStrategy)
		}
		for name, v := range map[string]*int32{"pollingInterval": s.PollingInterval, "successfulJobsHistoryLimit": s.SuccessfulJobsHistoryLimit,
			"failedJobsHistoryLimit": s.FailedJobsHistoryLimit, "maxReplicaCount": s.MaxReplicaCount} {
			if v == nil || *v <= 0 {
				t.Errorf("%s is not set above 0", name)
			}
		}
		if b := s.JobTargetRef.BackoffLimit; b == nil || *b != 0 {
			t.Error("backoffLimit must be 0: a crashed job's task is redelivered to the next job, counted by bus.max_attempts")
		}
		p := pod{Owner: "ScaledJob/research-agent", Spec: &s.JobTargetRef.Template.Spec}
		if p.Spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Error("a one-shot job must not restart in place")
		}
		c := a2abusContainers(p)
		if len(c) != 1 || !slices.Equal(c[0].Command, []string{"/usr/local/bin/research-agent"}) {
			t.Fatalf("the job does not run research-agent: %+v", c)
		}
		wk, err := r.mountedFile(p, c[0], "/etc/a2abus/well-known-agents.json")
		if err != nil {
			t.Fatal(err)
		}
		queue, err := a2a.TaskRoutingKey(research.DefaultName)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(loadWellKnownText(t, wk), func(k directory.WellKnownAgent) bool { return k.AgentName == research.DefaultName }) {
			t.Errorf("%s is not in the job's well-known-agents.json: callers would not know it while no job runs", research.DefaultName)
		}
		if len(s.Triggers) != 1 {
			t.Fatalf("%d triggers, want the rabbitmq one", len(s.Triggers))
		}
		tr := s.Triggers[0]
		md := tr.Metadata
		if tr.Type != "rabbitmq" || md["queueName"] != queue || md["mode"] != "QueueLength" || md["value"] != "1" || md["protocol"] != "amqp" {
			t.Errorf("trigger %s %v, want rabbitmq on %s, QueueLength, value 1, protocol amqp (ready messages only)", tr.Type, md, queue)
		}
		for k := range md {
			if !slices.Contains(rabbitParams, k) {
				t.Errorf("trigger metadata %q is not a rabbitmq scaler parameter", k)
			}
		}
		if tr.AuthenticationRef == nil {
			t.Fatal("the trigger has no authenticationRef: the scaler needs the broker's URL")
		}
		auth := byName[TriggerAuthentication](r, tr.AuthenticationRef.Name)
		if auth == nil {
			t.Fatalf("TriggerAuthentication %q not rendered", tr.AuthenticationRef.Name)
		}
		bus := env(c[0], config.EnvName("bus.url"))
		for _, ref := range auth.Spec.SecretTargetRef {
			if _, ok := r.secretValue(t, ref.Name, ref.Key); !ok {
				t.Errorf("TriggerAuthentication %s: Secret %s has no key %q", auth.Name, ref.Name, ref.Key)
			}
			if ref.Parameter == "host" && (bus == nil || bus.ValueFrom == nil || bus.ValueFrom.SecretKeyRef == nil ||
				bus.ValueFrom.SecretKeyRef.Name != ref.Name || bus.ValueFrom.SecretKeyRef.Key != ref.Key) {
				t.Errorf("the scaler reads the broker from %s/%s, the job from %+v: they must be the same", ref.Name, ref.Key, bus)
			}
		}
		if !slices.ContainsFunc(auth.Spec.SecretTargetRef, func(ref TargetRef) bool { return ref.Parameter == "host" }) {
			t.Error("the TriggerAuthentication gives no host")
		}
	})
}

// TestTopologyJob: a Job declares the topology from the same well-known
// file and broker as the ScaledJob, so the scaler's queue exists first.
func TestTopologyJob(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		jobs := all[batchv1.Job](r)
		if len(jobs) != 1 {
			t.Fatalf("%d Jobs rendered, want the topology Job", len(jobs))
		}
		j := jobs[0]
		tp := pod{Owner: "Job/" + j.Name, Spec: &j.Spec.Template.Spec}
		c := a2abusContainers(tp)
		if len(c) != 1 || !slices.Equal(c[0].Args[:2], []string{"topology", "apply"}) {
			t.Fatalf("Job %s does not run a2abus topology apply", j.Name)
		}
		sj := byName[ScaledJob](r, "research-agent")
		sp := pod{Spec: &sj.Spec.JobTargetRef.Template.Spec}
		sc := a2abusContainers(sp)[0]
		for _, f := range []string{configFile(c[0]), "/etc/a2abus/well-known-agents.json"} {
			a, errA := r.mountedFile(tp, c[0], f)
			b, errB := r.mountedFile(sp, sc, f)
			if errA != nil || errB != nil || a != b {
				t.Errorf("%s differs between the topology Job and the ScaledJob (%v, %v)", f, errA, errB)
			}
		}
		if got, want := env(c[0], config.EnvName("bus.url")), env(sc, config.EnvName("bus.url")); got == nil || want == nil ||
			fmt.Sprint(got.ValueFrom) != fmt.Sprint(want.ValueFrom) {
			t.Errorf("the topology Job's broker %+v is not the ScaledJob's %+v", got, want)
		}
		if j.Spec.TTLSecondsAfterFinished == nil {
			t.Error("ttlSecondsAfterFinished unset: the next apply with a new ConfigMap name would hit the Job's immutable template")
		}
	})
}

// TestDeployments: the always-on processes, their commands, replicas,
// strategies and disruption budgets.
func TestDeployments(t *testing.T) {
	want := map[string]string{
		"sample-agent": "serve --agent SampleAgent",
		"primary":      "serve --agent " + agents.KindPrimary,
		"directory":    "directory",
	}
	each(t, func(t *testing.T, r *rendering) {
		pdbs := all[policyv1.PodDisruptionBudget](r)
		for name, args := range want {
			d := byName[appsv1.Deployment](r, name)
			if d == nil {
				t.Errorf("Deployment %s not rendered", name)
				continue
			}
			c := a2abusContainers(pod{Spec: &d.Spec.Template.Spec})
			if len(c) != 1 || !strings.HasPrefix(strings.Join(c[0].Args, " "), args+" ") {
				t.Errorf("Deployment %s does not run %s", name, args)
			}
			if !matches(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
				t.Errorf("Deployment %s: its selector does not match its pods", name)
			}
			covered := slices.ContainsFunc(pdbs, func(p *policyv1.PodDisruptionBudget) bool {
				return matches(p.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
			})
			if name == "directory" {
				if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
					t.Error("the directory holds a ReadWriteOnce volume: one replica, strategy Recreate")
				}
			} else if !covered {
				t.Errorf("no PodDisruptionBudget covers Deployment %s", name)
			}
		}
		for _, p := range pdbs {
			if p.Spec.MaxUnavailable == nil || p.Spec.MinAvailable != nil {
				t.Errorf("PodDisruptionBudget %s: want maxUnavailable (a minAvailable blocks drains at one replica)", p.Name)
			}
			if !slices.ContainsFunc(all[appsv1.Deployment](r), func(d *appsv1.Deployment) bool { return matches(p.Spec.Selector.MatchLabels, d.Spec.Template.Labels) }) {
				t.Errorf("PodDisruptionBudget %s selects no Deployment", p.Name)
			}
		}
	})
}

// TestConfigChangeRollsThePods: the ConfigMaps carry a hash of their content
// in their name, and a change to a2abus.yaml renames the one every
// a2abus pod mounts, Deployments, Jobs and the KEDA ScaledJob alike.
func TestConfigChangeRollsThePods(t *testing.T) {
	mounted := func(r *rendering) map[string]string {
		out := map[string]string{}
		for _, p := range r.pods() {
			for _, v := range p.Spec.Volumes {
				if v.ConfigMap != nil {
					out[p.Owner] = v.ConfigMap.Name
				}
			}
		}
		return out
	}
	before := render(t, "base")
	for _, cm := range all[corev1.ConfigMap](before) {
		if !strings.HasPrefix(cm.Name, "a2abus-config-") && !strings.HasPrefix(cm.Name, "a2abus-llm-") {
			t.Errorf("ConfigMap %s has no content hash in its name", cm.Name)
		}
	}
	fsys := filesys.MakeFsInMemory()
	for _, f := range must(filepath.Glob(filepath.Join("base", "*")))(t) {
		if err := fsys.WriteFile(filepath.Join("/deploy", f), must(os.ReadFile(f))(t)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := must(fsys.ReadFile("/deploy/base/a2abus.yaml"))(t)
	if err := fsys.WriteFile("/deploy/base/a2abus.yaml", append(cfg, "agent:\n  concurrency: 8\n"...)); err != nil {
		t.Fatal(err)
	}
	after, err := renderFS(fsys, "/deploy/base")
	if err != nil {
		t.Fatal(err)
	}
	old, changed := mounted(before), mounted(after)
	if len(old) < 5 {
		t.Fatalf("only %v mount a ConfigMap", old)
	}
	for owner, name := range old {
		if changed[owner] == name || byName[corev1.ConfigMap](after, changed[owner]) == nil {
			t.Errorf("%s mounts %s before and %q after a2abus.yaml changed: its pods would not roll", owner, name, changed[owner])
		}
	}
}

// must returns f's value, failing the test on its error.
func must[V any](v V, err error) func(t *testing.T) V {
	return func(t *testing.T) V {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestGateway: where the gateway component is rendered, the gateway runs
// `a2abus gateway` listening on its container's http port, which a Service
// exposes; its keys file is on the Secret a2abus-gateway, whose template
// holds valid keys; a PodDisruptionBudget covers it; and in production an
// Ingress routes to the Service.
func TestGateway(t *testing.T) {
	each(t, func(t *testing.T, r *rendering) {
		d := byName[appsv1.Deployment](r, "gateway")
		if d == nil {
			if r.Dir != "base" {
				t.Errorf("%s renders no gateway", r.Dir)
			}
			return
		}
		p := pod{Owner: "Deployment/gateway", Spec: &d.Spec.Template.Spec, Labels: d.Spec.Template.Labels}
		c := a2abusContainers(p)
		if len(c) != 1 || !strings.HasPrefix(strings.Join(c[0].Args, " "), "gateway ") {
			t.Fatalf("the gateway Deployment does not run a2abus gateway")
		}
		cfg, err := r.loadConfig(t, p, c[0])
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ := strings.Cut(cfg.Gateway.Listen, ":")
		http := portNumber(c[0], intstr.FromString("http"))
		if fmt.Sprint(http) != port {
			t.Errorf("gateway.listen %s, the container's http port %d", cfg.Gateway.Listen, http)
		}
		svc := byName[corev1.Service](r, "gateway")
		if svc == nil || !matches(svc.Spec.Selector, d.Spec.Template.Labels) || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("http") {
			t.Errorf("no Service exposes the gateway's http port: %+v", svc)
		}
		keys := ""
		for _, vm := range c[0].VolumeMounts {
			rel, ok := strings.CutPrefix(cfg.Gateway.KeysFile, strings.TrimSuffix(vm.MountPath, "/")+"/")
			if !ok {
				continue
			}
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Name == vm.Name && v.Secret != nil && strings.HasPrefix(v.Secret.SecretName, "a2abus-gateway") {
					keys, _ = r.secretValue(t, v.Secret.SecretName, rel)
				}
			}
		}
		f := filepath.Join(t.TempDir(), "keys")
		if err := os.WriteFile(f, []byte(keys), 0o600); err != nil {
			t.Fatal(err)
		}
		g := cfg.Gateway
		g.KeysFile = f
		if k, err := g.GatewayKeys(); err != nil || len(k) == 0 {
			t.Errorf("gateway.keys_file %s (on the Secret a2abus-gateway) holds no valid key: %v", cfg.Gateway.KeysFile, err)
		}
		if !slices.ContainsFunc(all[policyv1.PodDisruptionBudget](r), func(pdb *policyv1.PodDisruptionBudget) bool {
			return matches(pdb.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
		}) {
			t.Error("no PodDisruptionBudget covers the gateway")
		}
		if r.Dir != "overlays/production" {
			return
		}
		in := byName[networkingv1.Ingress](r, "gateway")
		if in == nil || len(in.Spec.Rules) != 1 || in.Spec.Rules[0].HTTP == nil {
			t.Fatal("production renders no Ingress for the gateway")
		}
		b := in.Spec.Rules[0].HTTP.Paths[0].Backend.Service
		if b == nil || b.Name != svc.Name || b.Port.Name != svc.Spec.Ports[0].Name {
			t.Errorf("the Ingress routes to %+v, want Service %s port %s", b, svc.Name, svc.Spec.Ports[0].Name)
		}
	})
}
