// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/a2abus/a2abus/pkg/ops"
)

// otelVars are the variables TracingFromEnv reads.
var otelVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
	"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_TRACES_SAMPLER"}

func setOTel(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range otelVars {
		t.Setenv(k, env[k])
	}
}

// TestTracingFromEnv: off unless an OTLP endpoint is set, off when the SDK
// is disabled or the exporter is none, built by the exporter registered for
// the protocol with the service and the sampling asked for, and a clear
// error for what it cannot do.
func TestTracingFromEnv(t *testing.T) {
	var got []ops.TracingOptions
	fake := func(_ context.Context, o ops.TracingOptions) (ops.TracerProvider, error) {
		got = append(got, o)
		return sdktrace.NewTracerProvider(), nil
	}
	ops.RegisterTracing(ops.ProtocolHTTP, fake)
	ops.RegisterTracing(ops.ProtocolGRPC, fake)
	t.Cleanup(func() { ops.RegisterTracing(ops.ProtocolHTTP, nil); ops.RegisterTracing(ops.ProtocolGRPC, nil) })
	endpoint := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for k, v := range endpoint {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name  string
		env   map[string]string
		ratio float64
		want  *ops.TracingOptions // nil: no provider
		bad   string              // what the error names; "" for none
	}{
		{"unset", map[string]string{}, 0.1, nil, ""},
		{"endpoint", endpoint, 0.25, &ops.TracingOptions{Protocol: ops.ProtocolHTTP, Service: "test", SampleRatio: 0.25}, ""},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, 1,
			&ops.TracingOptions{Protocol: ops.ProtocolGRPC, Service: "test", SampleRatio: 1}, ""},
		{"traces protocol first", with("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"), 0.1, &ops.TracingOptions{Protocol: ops.ProtocolGRPC, Service: "test", SampleRatio: 0.1}, ""},
		{"sampler from env", with("OTEL_TRACES_SAMPLER", "always_on"), 0.1,
			&ops.TracingOptions{Protocol: ops.ProtocolHTTP, Service: "test", SampleRatio: 0.1, SamplerFromEnv: true}, ""},
		{"disabled", with("OTEL_SDK_DISABLED", "true"), 0.1, nil, ""},
		{"none", with("OTEL_TRACES_EXPORTER", "none"), 0.1, nil, ""},
		{"zipkin", with("OTEL_TRACES_EXPORTER", "zipkin"), 0.1, nil, "OTEL_TRACES_EXPORTER"},
		{"protocol", with("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"), 0.1, nil, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"ratio", endpoint, 1.5, nil, "sample ratio"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			setOTel(t, c.env)
			got = nil
			tp, err := ops.TracingFromEnv(context.Background(), "test", c.ratio)
			if c.bad != "" {
				if err == nil || !strings.Contains(err.Error(), c.bad) {
					t.Fatalf("err = %v, want one naming %s", err, c.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (tp != nil) != (c.want != nil) {
				t.Fatalf("provider = %v, want one: %v", tp, c.want != nil)
			}
			if tp == nil {
				if len(got) != 0 {
					t.Fatalf("the exporter was built: %+v", got)
				}
				return
			}
			_ = tp.Shutdown(context.Background())
			if len(got) != 1 || got[0] != *c.want {
				t.Fatalf("the exporter was asked for %+v, want %+v", got, *c.want)
			}
		})
	}
}

// TestTracingNotLinked: tracing asked for over a protocol whose exporter
// the program did not register is an ErrTracingNotLinked naming the
// protocol and what to do, never a process that runs untraced.
func TestTracingNotLinked(t *testing.T) {
	ops.RegisterTracing(ops.ProtocolHTTP, func(context.Context, ops.TracingOptions) (ops.TracerProvider, error) {
		return sdktrace.NewTracerProvider(), nil
	})
	t.Cleanup(func() { ops.RegisterTracing(ops.ProtocolHTTP, nil) })
	setOTel(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
	tp, err := ops.TracingFromEnv(context.Background(), "test", 0.1)
	if !errors.Is(err, ops.ErrTracingNotLinked) || tp != nil {
		t.Fatalf("TracingFromEnv = %v, %v; want ErrTracingNotLinked", tp, err)
	}
	for _, want := range []string{"grpc", "otlp.Register", "OTEL_EXPORTER_OTLP"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}
