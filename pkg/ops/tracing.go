// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
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

// The OTLP protocols of OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL.
const (
	ProtocolHTTP = "http/protobuf" // the default
	ProtocolGRPC = "grpc"
)

// DefaultTraceSampleRatio is ops.trace_sample_ratio's default: one trace in
// ten is sampled where it starts; a span whose parent was sampled is
// sampled too, so a trace is kept whole or not at all.
const DefaultTraceSampleRatio = 0.1

// ErrTracingNotLinked: the OTEL_* environment asks for tracing over a
// protocol whose OTLP exporter the program did not link (RegisterTracing).
var ErrTracingNotLinked = errors.New("ops: no OTLP trace exporter for this protocol is linked into this program")

// TracerProvider is a tracer provider a process owns: Ops.Close shuts it
// down, flushing its spans.
type TracerProvider interface {
	trace.TracerProvider
	Shutdown(ctx context.Context) error
}

// TracingOptions is what TracingFromEnv asks a registered exporter for.
type TracingOptions struct {
	// Protocol is ProtocolHTTP or ProtocolGRPC.
	Protocol string
	// Service is the default service.name (OTEL_SERVICE_NAME overrides it).
	Service string
	// SampleRatio is the share of traces sampled where they start
	// (ops.trace_sample_ratio), parent-based; unused when SamplerFromEnv.
	SampleRatio float64
	// SamplerFromEnv: OTEL_TRACES_SAMPLER is set, and the SDK's sampler of
	// it applies instead of SampleRatio.
	SamplerFromEnv bool
}

// TracingFactory builds the OTLP tracer provider of o; the exporter reads
// the endpoint, headers, TLS and timeout variables itself.
type TracingFactory func(ctx context.Context, o TracingOptions) (TracerProvider, error)

var tracingFactories struct {
	mu sync.RWMutex
	m  map[string]TracingFactory
}

// RegisterTracing makes f the program's tracer provider for protocol
// (ProtocolHTTP, ProtocolGRPC). The OTLP exporters link gRPC and protobuf
// whichever the protocol, so pkg/node links none: a program that traces
// registers them (pkg/ops/otlp.Register; a2abus does). A nil f removes
// the protocol's.
func RegisterTracing(protocol string, f TracingFactory) {
	tracingFactories.mu.Lock()
	defer tracingFactories.mu.Unlock()
	if tracingFactories.m == nil {
		tracingFactories.m = map[string]TracingFactory{}
	}
	tracingFactories.m[protocol] = f
}

// TracingFromEnv builds the OTLP tracer provider the standard OTEL_*
// environment variables describe, or returns nil when they ask for none:
// tracing is on only when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, OTEL_TRACES_EXPORTER is unset
// or "otlp" and OTEL_SDK_DISABLED is not "true". The protocol is
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (the default) or
// grpc, built by the exporter registered for it (RegisterTracing), else an
// error wrapping ErrTracingNotLinked. Sampling is parent-based at
// sampleRatio unless OTEL_TRACES_SAMPLER says otherwise. service is the
// default service.name.
//
// The variables are read here by hand rather than by the contrib package
// autoexport, which would link every exporter it knows into every program
// that calls this, gRPC's included. Measured (docs/performance.md): a
// program calling autoexport.NewSpanExporter links 483 packages (66 of
// gRPC, 19 of Prometheus) and is 16.3 MB stripped; one building the OTLP
// HTTP exporter alone, 383 packages and 13.7 MB; pkg/ops, no exporter at
// all (sample-agent: 387 packages, 16.4 MB with everything else it runs).
func TracingFromEnv(ctx context.Context, service string, sampleRatio float64) (TracerProvider, error) {
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
	if protocol == "" {
		protocol = ProtocolHTTP
	}
	if protocol != ProtocolHTTP && protocol != ProtocolGRPC {
		return nil, fmt.Errorf("ops: OTEL_EXPORTER_OTLP_PROTOCOL %q: want %s or %s", protocol, ProtocolHTTP, ProtocolGRPC)
	}
	if sampleRatio < 0 || sampleRatio > 1 {
		return nil, fmt.Errorf("ops: trace sample ratio %v: want 0..1", sampleRatio)
	}
	tracingFactories.mu.RLock()
	f := tracingFactories.m[protocol]
	tracingFactories.mu.RUnlock()
	if f == nil {
		return nil, fmt.Errorf("%w (OTEL_EXPORTER_OTLP_ENDPOINT is set, protocol %s): trace with a2abus "+
			"(a2abus serve --agent NAME links the exporters), unset the OTEL_EXPORTER_OTLP_* endpoint, "+
			"or link one into the program (github.com/a2abus/a2abus/pkg/ops/otlp: otlp.Register())", ErrTracingNotLinked, protocol)
	}
	tp, err := f(ctx, TracingOptions{Protocol: protocol, Service: service, SampleRatio: sampleRatio,
		SamplerFromEnv: strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER")) != ""})
	if err != nil {
		return nil, fmt.Errorf("ops: tracing over OTLP %s: %w", protocol, err)
	}
	return tp, nil
}

// tracing starts the spans of a2abus and carries their context in a2a.Trace
// (the traceparent and tracestate headers of every message).
type tracing struct {
	tracer trace.Tracer
	prop   propagation.TraceContext
	system string // messaging.system; empty: left out
}

// messaging gives a span the OpenTelemetry messaging attributes that fit a
// task on the bus: the operation (send or process), the queue it crosses,
// and the task id as the conversation that pairs a request and its answer.
func (t *tracing) messaging(op, queue, taskID string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4)
	if t.system != "" {
		attrs = append(attrs, attribute.String("messaging.system", t.system))
	}
	attrs = append(attrs, attribute.String("messaging.operation.type", op),
		attribute.String("messaging.destination.name", queue))
	if taskID != "" {
		attrs = append(attrs, attribute.String("messaging.message.conversation_id", taskID))
	}
	return attrs
}

// queueOf is the queue a routing key names (each agent.task.<name> and
// agent.response.<name> key has the queue of that name); a name refused
// as a key has none.
func queueOf(key string, err error) string {
	if err != nil {
		return ""
	}
	return key
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
