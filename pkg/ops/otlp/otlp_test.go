// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package otlp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/ops/otlp"
)

// TestRegisteredExporterSendsSpans: once registered, the provider
// TracingFromEnv builds posts the spans as OTLP protobuf to the endpoint
// of OTEL_EXPORTER_OTLP_ENDPOINT (flushed by Shutdown).
func TestRegisteredExporterSendsSpans(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" && r.Header.Get("Content-Type") == "application/x-protobuf" {
			posts.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "")
	t.Setenv("OTEL_TRACES_SAMPLER", "")
	otlp.Register()
	t.Cleanup(func() { ops.RegisterTracing(ops.ProtocolHTTP, nil); ops.RegisterTracing(ops.ProtocolGRPC, nil) })

	tp, err := ops.TracingFromEnv(t.Context(), "test", 1)
	if err != nil || tp == nil {
		t.Fatalf("TracingFromEnv = %v, %v", tp, err)
	}
	_, span := tp.Tracer("test").Start(t.Context(), "a2a.invoke")
	span.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 {
		t.Fatal("no OTLP request reached the endpoint")
	}
}

func TestNewRefusesAnUnknownProtocol(t *testing.T) {
	if tp, err := otlp.New(t.Context(), ops.TracingOptions{Protocol: "http/json"}); err == nil {
		_ = tp.Shutdown(context.Background())
		t.Fatal("New accepted protocol http/json")
	}
}

// TestSamplerIsParentBased: a span follows its parent's decision (a
// remote parent's included: the traceparent of a message), and roots are
// sampled at the ratio.
func TestSamplerIsParentBased(t *testing.T) {
	decide := func(s sdktrace.Sampler, parent trace.SpanContext, id trace.TraceID) bool {
		ctx := trace.ContextWithRemoteSpanContext(context.Background(), parent)
		r := s.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: id, Name: "a2a.handle"})
		return r.Decision == sdktrace.RecordAndSample
	}
	parent := func(sampled bool) trace.SpanContext {
		c := trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, Remote: true}
		if sampled {
			c.TraceFlags = trace.FlagsSampled
		}
		return trace.NewSpanContext(c)
	}
	none := trace.SpanContext{}
	if !decide(otlp.Sampler(0), parent(true), trace.TraceID{1}) {
		t.Error("ratio 0: the child of a sampled parent was dropped")
	}
	if decide(otlp.Sampler(1), parent(false), trace.TraceID{1}) {
		t.Error("ratio 1: the child of a parent not sampled was sampled")
	}
	roots := func(ratio float64) int {
		n := 0
		for i := range 10000 {
			var id trace.TraceID
			for b := range 8 { // TraceIDRatioBased reads the low 8 bytes
				id[8+b] = byte(uint64(i) * 0x9E3779B97F4A7C15 >> (8 * (7 - b)))
			}
			if decide(otlp.Sampler(ratio), none, id) {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		ratio    float64
		min, max int
	}{{0, 0, 0}, {1, 10000, 10000}, {ops.DefaultTraceSampleRatio, 800, 1200}} {
		if n := roots(c.ratio); n < c.min || n > c.max {
			t.Errorf("ratio %v: %d of 10000 roots sampled, want %d..%d", c.ratio, n, c.min, c.max)
		}
	}
}
