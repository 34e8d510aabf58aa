// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// TracerName is the instrumentation scope of a2abus's spans.
const TracerName = "github.com/a2abus/a2abus"

// Span names.
const (
	SpanInvoke   = "a2a.invoke"   // a caller records and publishes a task
	SpanHandle   = "a2a.handle"   // an agent handles a task
	SpanFinalize = "a2a.finalize" // a caller stores a task's outcome
)

// TracingFromEnv builds the OTLP tracer provider the standard OTEL_*
// environment variables describe, or returns nil when they ask for none:
// tracing is on only when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, OTEL_TRACES_EXPORTER is unset
// or "otlp" and OTEL_SDK_DISABLED is not "true". The protocol is
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (the default) or
// grpc; the exporter itself reads the endpoint, headers, TLS and timeout
// variables, and the SDK OTEL_TRACES_SAMPLER, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. service is the default service.name.
func TracingFromEnv(ctx context.Context, service string) (*sdktrace.TracerProvider, error) {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return nil, nil
	}
	switch exp := strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")); exp {
	case "", "otlp":
	case "none":
		return nil, nil
	default:
		return nil, fmt.Errorf("ops: OTEL_TRACES_EXPORTER %q: only otlp and none are supported", exp)
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, nil
	}
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var exporter sdktrace.SpanExporter
	var err error
	switch protocol {
	case "", "http/protobuf":
		exporter, err = otlptracehttp.New(ctx)
	case "grpc":
		exporter, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("ops: OTEL_EXPORTER_OTLP_PROTOCOL %q: want http/protobuf or grpc", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("ops: build the OTLP trace exporter (%s): %w", protocol, err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("ops: tracing resource from OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)), nil
}

// tracing starts the spans of a2abus and carries their context in a2a.Trace
// (the traceparent and tracestate headers of every message).
type tracing struct {
	tracer trace.Tracer
	prop   propagation.TraceContext
}

// start starts a span called name whose parent is parent (a traceparent
// from the wire) when it is valid, else the span ctx carries, if any. It
// returns the span and its context as an a2a.Trace.
func (t *tracing) start(ctx context.Context, name string, parent a2a.Trace, kind trace.SpanKind, attrs ...attribute.KeyValue) (trace.Span, a2a.Trace) {
	if parent.Valid() {
		ctx = t.prop.Extract(ctx, traceCarrier{&parent})
	}
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	var out a2a.Trace
	t.prop.Inject(ctx, traceCarrier{&out})
	if !out.Valid() {
		out = parent // not sampled nor recorded: the wire keeps the caller's context
	}
	return span, out
}

// traceCarrier adapts an a2a.Trace to propagation.TextMapCarrier.
type traceCarrier struct{ t *a2a.Trace }

func (c traceCarrier) Get(key string) string {
	switch key {
	case a2a.HeaderTraceParent:
		return c.t.Parent
	case a2a.HeaderTraceState:
		return c.t.State
	}
	return ""
}

func (c traceCarrier) Set(key, value string) {
	switch key {
	case a2a.HeaderTraceParent:
		c.t.Parent = value
	case a2a.HeaderTraceState:
		c.t.State = value
	}
}

func (c traceCarrier) Keys() []string { return []string{a2a.HeaderTraceParent, a2a.HeaderTraceState} }
