// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"testing"

	"github.com/a2abus/a2abus/pkg/ops"
)

// TestTracingFromEnv: off unless an OTLP endpoint is set, off when the SDK
// is disabled or the exporter is none, and a clear error for what it cannot do.
func TestTracingFromEnv(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		on, bad bool
	}{
		{"unset", map[string]string{}, false, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, false},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, false},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}, false, false},
		{"none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, false, false},
		{"zipkin", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "zipkin"}, false, true},
		{"protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
				t.Setenv(k, c.env[k])
			}
			tp, err := ops.TracingFromEnv(context.Background(), "test")
			if (err != nil) != c.bad {
				t.Fatalf("err = %v, want an error: %v", err, c.bad)
			}
			if (tp != nil) != c.on {
				t.Fatalf("provider = %v, want one: %v", tp, c.on)
			}
			if tp != nil {
				_ = tp.Shutdown(context.Background())
			}
		})
	}
}
