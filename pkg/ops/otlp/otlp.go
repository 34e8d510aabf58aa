// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package otlp links the OpenTelemetry OTLP trace exporters (HTTP and gRPC)
// into a program: Register makes them the tracer providers that
// ops.TracingFromEnv builds when the OTEL_* environment asks for tracing.
// It lives apart from pkg/ops because the exporters link gRPC and protobuf
// whichever the protocol (the HTTP exporter's configuration and the OTLP
// collector's generated code import gRPC): a2abus registers them, the agent
// mains do not.
package otlp

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/a2abus/a2abus/pkg/ops"
)

// Register makes New the program's tracer provider for both OTLP
// protocols (ops.RegisterTracing). The gRPC exporter adds 9 packages to
// the HTTP one's 381, so both are registered together.
func Register() {
	ops.RegisterTracing(ops.ProtocolHTTP, New)
	ops.RegisterTracing(ops.ProtocolGRPC, New)
}

// New builds the tracer provider of o: spans batched to the OTLP exporter
// of o.Protocol (which reads the OTEL_EXPORTER_OTLP_* endpoint, headers,
// TLS and timeout variables), the resource of o.Service and
// OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME, and a parent-based sampler
// at o.SampleRatio unless o.SamplerFromEnv (the SDK then reads
// OTEL_TRACES_SAMPLER and its argument).
func New(ctx context.Context, o ops.TracingOptions) (ops.TracerProvider, error) {
	var exporter sdktrace.SpanExporter
	var err error
	switch o.Protocol {
	case ops.ProtocolHTTP:
		exporter, err = otlptracehttp.New(ctx)
	case ops.ProtocolGRPC:
		exporter, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("otlp: protocol %q: want %s or %s", o.Protocol, ops.ProtocolHTTP, ops.ProtocolGRPC)
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: build the trace exporter (%s): %w", o.Protocol, err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", o.Service)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("otlp: tracing resource from OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)}
	if !o.SamplerFromEnv {
		opts = append(opts, sdktrace.WithSampler(Sampler(o.SampleRatio)))
	}
	return sdktrace.NewTracerProvider(opts...), nil
}

// Sampler is a2abus's default sampler: a span whose parent (local, or
// remote through a message's traceparent) was sampled is sampled, one
// whose parent was not is not, and a root is sampled at ratio (1: every
// trace).
func Sampler(ratio float64) sdktrace.Sampler {
	return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))
}
