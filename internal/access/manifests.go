// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package access

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ManifestOptions name the Kubernetes objects of the manifests.
type ManifestOptions struct {
	// Cluster is the RabbitmqCluster the objects refer to; default "rabbitmq".
	Cluster string
	// Namespace of the objects; empty leaves it to kubectl.
	Namespace string
}

// WriteManifests prints the plan as RabbitMQ Messaging Topology Operator
// objects (rabbitmq.com/v1beta1): per user a User, whose credentials come
// from the Secret <object>-credentials (keys username and password, created
// by the operator of the cluster, not printed here), a Permission and one
// TopicPermission per exchange.
func (p *Plan) WriteManifests(w io.Writer, opts ManifestOptions) error {
	if opts.Cluster == "" {
		opts.Cluster = "rabbitmq"
	}
	var docs []any
	for _, u := range p.Users {
		obj := objectName(u.Name)
		meta := func(suffix string) map[string]any {
			m := map[string]any{"name": obj + suffix, "labels": map[string]string{"app.kubernetes.io/part-of": "a2abus"}}
			if opts.Namespace != "" {
				m["namespace"] = opts.Namespace
			}
			return m
		}
		cluster := map[string]string{"name": opts.Cluster}
		docs = append(docs, map[string]any{
			"apiVersion": "rabbitmq.com/v1beta1", "kind": "User", "metadata": meta(""),
			"spec": map[string]any{"tags": []string{}, "rabbitmqClusterReference": cluster,
				"importCredentialsSecret": map[string]string{"name": obj + "-credentials"}},
		}, map[string]any{
			"apiVersion": "rabbitmq.com/v1beta1", "kind": "Permission", "metadata": meta("-permission"),
			"spec": map[string]any{"vhost": p.VHost, "userReference": map[string]string{"name": obj}, "rabbitmqClusterReference": cluster,
				"permissions": map[string]string{"configure": u.Configure, "write": u.Write, "read": u.Read}},
		})
		for _, t := range u.Topics {
			docs = append(docs, map[string]any{
				"apiVersion": "rabbitmq.com/v1beta1", "kind": "TopicPermission", "metadata": meta("-topic-" + slug(t.Exchange)),
				"spec": map[string]any{"vhost": p.VHost, "userReference": map[string]string{"name": obj}, "rabbitmqClusterReference": cluster,
					"permissions": map[string]string{"exchange": t.Exchange, "write": t.Write, "read": t.Read}},
			})
		}
	}
	var b strings.Builder
	b.WriteString("# a2abus access plan as RabbitMQ Messaging Topology Operator objects.\n")
	b.WriteString("# Each User reads its username and password from the Secret <name>-credentials.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("access: encode manifest: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("access: encode manifest: %w", err)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("access: write manifests: %w", err)
	}
	return nil
}

var nonDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// objectName is a Kubernetes object name for s: a2abus-<s> in lower case,
// other characters as '-'.
func objectName(s string) string { return "a2abus-" + slug(s) }

// slug is s in lower case with runs of other characters than [a-z0-9-] as '-'.
func slug(s string) string {
	return strings.Trim(nonDNS.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
