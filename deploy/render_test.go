// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package deploy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	sjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// kustomizations are the directories rendered and checked: the base and
// every overlay (which between them use every component).
var kustomizations = []string{"base", "overlays/production", "overlays/local"}

// kinds maps "apiVersion/kind" to the Go type a document must decode into,
// strictly: a kind not listed here is an error.
var kinds = map[string]func() any{
	"v1/ConfigMap":                           func() any { return new(corev1.ConfigMap) },
	"v1/Secret":                              func() any { return new(corev1.Secret) },
	"v1/Service":                             func() any { return new(corev1.Service) },
	"networking.k8s.io/v1/Ingress":           func() any { return new(networkingv1.Ingress) },
	"v1/ServiceAccount":                      func() any { return new(corev1.ServiceAccount) },
	"v1/PersistentVolumeClaim":               func() any { return new(corev1.PersistentVolumeClaim) },
	"v1/Namespace":                           func() any { return new(corev1.Namespace) },
	"apps/v1/Deployment":                     func() any { return new(appsv1.Deployment) },
	"batch/v1/Job":                           func() any { return new(batchv1.Job) },
	"policy/v1/PodDisruptionBudget":          func() any { return new(policyv1.PodDisruptionBudget) },
	"keda.sh/v1alpha1/ScaledJob":             func() any { return new(ScaledJob) },
	"keda.sh/v1alpha1/TriggerAuthentication": func() any { return new(TriggerAuthentication) },
	"rabbitmq.com/v1beta1/Policy":            func() any { return new(RabbitPolicy) },
	"monitoring.coreos.com/v1/PodMonitor":    func() any { return new(PodMonitor) },
}

// manifest is one rendered document and its typed, strictly decoded form.
type manifest struct {
	Kind, Name, Namespace string
	Obj                   any
}

// rendering is the output of one kustomization.
type rendering struct {
	Dir       string
	Manifests []manifest
}

// decodeStrict decodes a JSON document into the type of its apiVersion and
// kind: unknown and duplicate fields are errors, and so are the violations
// a custom resource's check finds.
func decodeStrict(js []byte) (manifest, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := sjson.UnmarshalCaseSensitivePreserveInts(js, &head); err != nil {
		return manifest{}, fmt.Errorf("read apiVersion and kind: %w", err)
	}
	m := manifest{Kind: head.Kind, Name: head.Metadata.Name, Namespace: head.Metadata.Namespace}
	newObj, ok := kinds[head.APIVersion+"/"+head.Kind]
	if !ok {
		return m, fmt.Errorf("%s %s/%s: no Go type for this kind in the test", head.APIVersion, head.Kind, m.Name)
	}
	m.Obj = newObj()
	strict, err := sjson.UnmarshalStrict(js, m.Obj)
	if err != nil {
		return m, fmt.Errorf("%s/%s: %w", m.Kind, m.Name, err)
	}
	if c, ok := m.Obj.(interface{ check() []error }); ok {
		strict = append(strict, c.check()...)
	}
	if err := errors.Join(strict...); err != nil {
		return m, fmt.Errorf("%s/%s: %w", m.Kind, m.Name, err)
	}
	return m, nil
}

// renderFS runs the kustomization at dir of fsys and decodes every document.
func renderFS(fsys filesys.FileSystem, dir string) (*rendering, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	rm, err := k.Run(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	r := &rendering{Dir: dir}
	var errs []error
	for _, res := range rm.Resources() {
		js, err := res.MarshalJSON()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: marshal %s: %w", dir, res.CurId(), err))
			continue
		}
		m, err := decodeStrict(js)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", dir, err))
			continue
		}
		r.Manifests = append(r.Manifests, m)
	}
	return r, errors.Join(errs...)
}

var (
	renderMu    sync.Mutex
	renderCache = map[string]*rendering{}
)

// render returns the checked rendering of the kustomization at dir (under
// deploy/), rendered once per test binary.
func render(t *testing.T, dir string) *rendering {
	t.Helper()
	renderMu.Lock()
	defer renderMu.Unlock()
	if r, ok := renderCache[dir]; ok {
		return r
	}
	r, err := renderFS(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatal(err)
	}
	renderCache[dir] = r
	return r
}

// each runs f on every kustomization's rendering, as a subtest.
func each(t *testing.T, f func(t *testing.T, r *rendering)) {
	for _, dir := range kustomizations {
		t.Run(strings.ReplaceAll(dir, "/", "_"), func(t *testing.T) { f(t, render(t, dir)) })
	}
}

// all returns the rendered objects of type T.
func all[T any](r *rendering) []*T {
	var out []*T
	for _, m := range r.Manifests {
		if o, ok := m.Obj.(*T); ok {
			out = append(out, o)
		}
	}
	return out
}

// byName returns the rendered object of type T named name, or nil.
func byName[T any](r *rendering, name string) *T {
	for _, m := range r.Manifests {
		if o, ok := m.Obj.(*T); ok && m.Name == name {
			return o
		}
	}
	return nil
}

// pod is a pod template of a rendered workload.
type pod struct {
	Owner       string // "Deployment/sample-agent"
	Spec        *corev1.PodSpec
	Labels      map[string]string
	Annotations map[string]string
}

// pods returns the pod templates of every Deployment, Job and ScaledJob.
func (r *rendering) pods() []pod {
	var out []pod
	for _, m := range r.Manifests {
		var tpl *corev1.PodTemplateSpec
		switch o := m.Obj.(type) {
		case *appsv1.Deployment:
			tpl = &o.Spec.Template
		case *batchv1.Job:
			tpl = &o.Spec.Template
		case *ScaledJob:
			if o.Spec.JobTargetRef != nil {
				tpl = &o.Spec.JobTargetRef.Template
			}
		}
		if tpl != nil {
			out = append(out, pod{Owner: m.Kind + "/" + m.Name, Spec: &tpl.Spec, Labels: tpl.Labels, Annotations: tpl.Annotations})
		}
	}
	return out
}

// secretTemplates reads base/secret.example.yaml: the Secrets an overlay
// that does not generate them expects to exist in the namespace.
func secretTemplates(t *testing.T) []*corev1.Secret {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("base", "secret.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*corev1.Secret
	for i, doc := range strings.Split(string(data), "\n---\n") {
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("secret.example.yaml document %d: %v", i, err)
		}
		m, err := decodeStrict(js)
		if err != nil {
			t.Fatalf("secret.example.yaml document %d: %v", i, err)
		}
		s, ok := m.Obj.(*corev1.Secret)
		if !ok {
			t.Fatalf("secret.example.yaml document %d is a %s, want a Secret", i, m.Kind)
		}
		out = append(out, s)
	}
	return out
}

// generatedName matches the name kustomize gives a generated object: the
// generator's name, a dash and ten characters of its content's hash.
var generatedName = regexp.MustCompile(`^(.+)-[a-z0-9]{10}$`)

// generated returns the rendered object of type T that the generator base
// made (named base, or base plus its hash), or nil.
func generated[T any](r *rendering, base string) *T {
	for _, m := range r.Manifests {
		o, ok := m.Obj.(*T)
		if !ok {
			continue
		}
		if g := generatedName.FindStringSubmatch(m.Name); m.Name == base || (g != nil && g[1] == base) {
			return o
		}
	}
	return nil
}

// secretValue returns the value of key in the Secret name: the rendered one
// when the kustomization generates it, else the template's. ok is false
// when neither has it, and when name is the unhashed name of a Secret the
// kustomization generates (a reference kustomize did not rewrite).
func (r *rendering) secretValue(t *testing.T, name, key string) (string, bool) {
	t.Helper()
	if s := byName[corev1.Secret](r, name); s != nil {
		if v, ok := s.Data[key]; ok {
			return string(v), true
		}
		v, ok := s.StringData[key]
		return v, ok
	}
	if generated[corev1.Secret](r, name) != nil {
		return "", false
	}
	for _, s := range secretTemplates(t) {
		if s.Name == name {
			v, ok := s.StringData[key]
			return v, ok
		}
	}
	return "", false
}

// configValue returns the value of key in the rendered ConfigMap name.
func (r *rendering) configValue(name, key string) (string, bool) {
	cm := byName[corev1.ConfigMap](r, name)
	if cm == nil {
		return "", false
	}
	v, ok := cm.Data[key]
	return v, ok
}
