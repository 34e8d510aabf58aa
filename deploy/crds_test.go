// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package deploy

// Strict mirrors of the custom resources the manifests use: KEDA 2.21's,
// written from its CRDs' OpenAPI schemas (keda.sh_scaledjobs,
// keda.sh_triggerauthentications), and the fields the manifests use of the
// RabbitMQ Messaging Topology Operator's Policy and the Prometheus
// Operator's PodMonitor. KEDA's own Go package
// (github.com/kedacore/keda/v2/apis/keda/v1alpha1) imports controller-runtime
// and client-go, and its module would raise the versions of amqp091-go,
// go-redis and zap the binaries are built with; these types cost nothing.
//
// A field is listed only when the manifests may use it; decoding fails on any
// other (unknownFields), so a misspelt or misplaced field is an error. Each
// type's check method enforces the schema's required fields and enums.

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaledJob is keda.sh/v1alpha1 ScaledJob.
type ScaledJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ScaledJobSpec `json:"spec"`
}

// ScaledJobSpec is every field of the CRD's spec; required: jobTargetRef, triggers.
type ScaledJobSpec struct {
	JobTargetRef               *batchv1.JobSpec `json:"jobTargetRef"`
	PollingInterval            *int32           `json:"pollingInterval,omitempty"`
	SuccessfulJobsHistoryLimit *int32           `json:"successfulJobsHistoryLimit,omitempty"`
	FailedJobsHistoryLimit     *int32           `json:"failedJobsHistoryLimit,omitempty"`
	RolloutStrategy            string           `json:"rolloutStrategy,omitempty"`
	Rollout                    *KEDARollout     `json:"rollout,omitempty"`
	EnvSourceContainerName     string           `json:"envSourceContainerName,omitempty"`
	MinReplicaCount            *int32           `json:"minReplicaCount,omitempty"`
	MaxReplicaCount            *int32           `json:"maxReplicaCount,omitempty"`
	ScalingStrategy            *ScalingStrategy `json:"scalingStrategy,omitempty"`
	Triggers                   []ScaleTrigger   `json:"triggers"`
}

// KEDARollout is spec.rollout.
type KEDARollout struct {
	Strategy          string `json:"strategy,omitempty"`
	PropagationPolicy string `json:"propagationPolicy,omitempty"`
}

// ScalingStrategy is spec.scalingStrategy.
type ScalingStrategy struct {
	Strategy                          string   `json:"strategy,omitempty"`
	CustomScalingQueueLengthDeduction *int32   `json:"customScalingQueueLengthDeduction,omitempty"`
	CustomScalingRunningJobPercentage string   `json:"customScalingRunningJobPercentage,omitempty"`
	PendingPodConditions              []string `json:"pendingPodConditions,omitempty"`
	MultipleScalersCalculation        string   `json:"multipleScalersCalculation,omitempty"`
}

// ScaleTrigger is one of spec.triggers; required: type, metadata.
type ScaleTrigger struct {
	Type              string             `json:"type"`
	Name              string             `json:"name,omitempty"`
	UseCachedMetrics  bool               `json:"useCachedMetrics,omitempty"`
	Metadata          map[string]string  `json:"metadata"`
	AuthenticationRef *AuthenticationRef `json:"authenticationRef,omitempty"`
	MetricType        string             `json:"metricType,omitempty"`
}

// AuthenticationRef names a TriggerAuthentication; required: name.
type AuthenticationRef struct {
	Name string `json:"name"`
	Kind string `json:"kind,omitempty"`
}

// TriggerAuthentication is keda.sh/v1alpha1 TriggerAuthentication, limited
// to the plain Kubernetes sources (no cloud secret stores, no pod identity).
type TriggerAuthentication struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              TriggerAuthenticationSpec `json:"spec"`
}

// TriggerAuthenticationSpec is the subset of spec the manifests may use.
type TriggerAuthenticationSpec struct {
	SecretTargetRef    []TargetRef `json:"secretTargetRef,omitempty"`
	ConfigMapTargetRef []TargetRef `json:"configMapTargetRef,omitempty"`
}

// TargetRef is one of secretTargetRef or configMapTargetRef; all required.
type TargetRef struct {
	Parameter string `json:"parameter"`
	Name      string `json:"name"`
	Key       string `json:"key"`
}

// RabbitPolicy is rabbitmq.com/v1beta1 Policy (Messaging Topology Operator).
type RabbitPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              RabbitPolicySpec `json:"spec"`
}

// RabbitPolicySpec is Policy's spec; required: name, pattern, definition,
// rabbitmqClusterReference.
type RabbitPolicySpec struct {
	Name                     string         `json:"name"`
	Vhost                    string         `json:"vhost,omitempty"`
	Pattern                  string         `json:"pattern"`
	ApplyTo                  string         `json:"applyTo,omitempty"`
	Priority                 int            `json:"priority,omitempty"`
	Definition               map[string]any `json:"definition"`
	RabbitmqClusterReference struct {
		Name             string `json:"name,omitempty"`
		Namespace        string `json:"namespace,omitempty"`
		ConnectionSecret *struct {
			Name string `json:"name"`
		} `json:"connectionSecret,omitempty"`
	} `json:"rabbitmqClusterReference"`
}

// PodMonitor is monitoring.coreos.com/v1 PodMonitor (Prometheus Operator).
type PodMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              PodMonitorSpec `json:"spec"`
}

// PodMonitorSpec is the subset of spec the manifests may use.
type PodMonitorSpec struct {
	Selector            metav1.LabelSelector `json:"selector"`
	NamespaceSelector   *struct{}            `json:"namespaceSelector,omitempty"`
	PodMetricsEndpoints []PodMetricsEndpoint `json:"podMetricsEndpoints"`
}

// PodMetricsEndpoint is one of podMetricsEndpoints.
type PodMetricsEndpoint struct {
	Port     string `json:"port,omitempty"`
	Path     string `json:"path,omitempty"`
	Interval string `json:"interval,omitempty"`
	Scheme   string `json:"scheme,omitempty"`
}

// oneOf reports v when it is set and not one of the enum's values.
func oneOf(field, v string, enum ...string) error {
	if v == "" || slices.Contains(enum, v) {
		return nil
	}
	return fmt.Errorf("%s = %q, want one of %q", field, v, enum)
}

// check enforces the CRD's required fields and enums.
func (j *ScaledJob) check() []error {
	s := j.Spec
	var errs []error
	if s.JobTargetRef == nil {
		errs = append(errs, fmt.Errorf("spec.jobTargetRef is required"))
	}
	if len(s.Triggers) == 0 {
		errs = append(errs, fmt.Errorf("spec.triggers is required"))
	}
	errs = append(errs, oneOf("spec.rolloutStrategy", s.RolloutStrategy, "gradual", "immediate"))
	if r := s.Rollout; r != nil {
		errs = append(errs, oneOf("spec.rollout.strategy", r.Strategy, "gradual", "immediate"),
			oneOf("spec.rollout.propagationPolicy", r.PropagationPolicy, "foreground", "background"))
	}
	if st := s.ScalingStrategy; st != nil {
		errs = append(errs, oneOf("spec.scalingStrategy.strategy", st.Strategy, "default", "custom", "accurate", "eager"),
			oneOf("spec.scalingStrategy.multipleScalersCalculation", st.MultipleScalersCalculation, "min", "avg", "sum", "max"))
	}
	for i, tr := range s.Triggers {
		if tr.Type == "" || tr.Metadata == nil {
			errs = append(errs, fmt.Errorf("spec.triggers[%d]: type and metadata are required", i))
		}
		if a := tr.AuthenticationRef; a != nil {
			if a.Name == "" {
				errs = append(errs, fmt.Errorf("spec.triggers[%d].authenticationRef.name is required", i))
			}
			errs = append(errs, oneOf(fmt.Sprintf("spec.triggers[%d].authenticationRef.kind", i), a.Kind, "TriggerAuthentication", "ClusterTriggerAuthentication"))
		}
	}
	return errs
}

// check enforces the CRD's required fields.
func (a *TriggerAuthentication) check() []error {
	var errs []error
	for i, r := range slices.Concat(a.Spec.SecretTargetRef, a.Spec.ConfigMapTargetRef) {
		if r.Parameter == "" || r.Name == "" || r.Key == "" {
			errs = append(errs, fmt.Errorf("target ref %d: parameter, name and key are required, got %+v", i, r))
		}
	}
	return errs
}

// check enforces the CRD's required fields and enums.
func (p *RabbitPolicy) check() []error {
	s := p.Spec
	var errs []error
	if s.Name == "" || s.Pattern == "" || s.Definition == nil {
		errs = append(errs, fmt.Errorf("spec.name, spec.pattern and spec.definition are required"))
	}
	errs = append(errs, oneOf("spec.applyTo", s.ApplyTo, "queues", "exchanges", "all"))
	return errs
}

// check enforces what the PodMonitor needs to scrape anything.
func (m *PodMonitor) check() []error {
	if len(m.Spec.PodMetricsEndpoints) == 0 {
		return []error{fmt.Errorf("spec.podMetricsEndpoints is empty")}
	}
	return nil
}
