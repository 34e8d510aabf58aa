// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/ops/prom/promtest"
)

// A remote call's span is a child of the task's trace, the trace it returns
// (for the traceparent header) is the span's, and the call, its outcome and
// the card checks are counted.
func TestRemoteCallSpanAndMetrics(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	o, err := ops.New(ops.Options{Metrics: true, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	parent := a2a.Trace{Parent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	wire, done := o.RemoteCall("Weather", "stream", parent)
	if !wire.Valid() || wire.Parent == parent.Parent || !strings.Contains(wire.Parent, "0af7651916cd43dd8448eb211c80319c") {
		t.Fatalf("wire trace %q: want a child in the parent's trace", wire.Parent)
	}
	done(ops.RemoteOK, nil)
	_, done = o.RemoteCall("Weather", "send", parent)
	done(ops.RemoteTransient, errors.New("HTTP 503"))
	if w, done := o.RemoteCall("Weather", "card", a2a.Trace{}); w.Valid() { // a card check: counted, not traced
		t.Errorf("a card check's trace = %q, want none", w.Parent)
	} else {
		done(ops.RemoteOK, nil)
	}
	o.RemoteCardCheck("Weather", true, time.Unix(1700000000, 0))
	o.RemoteCardCheck("Weather", false, time.Now())

	spans := exp.GetSpans()
	if len(spans) != 2 || spans[0].Name != ops.SpanRemote || spans[0].Parent.SpanID().String() != "b7ad6b7169203331" ||
		spans[0].SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Fatalf("spans = %+v", spans)
	}
	families, err := promtest.Gather(o.Registry())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName() + labels(m)
			switch {
			case m.Counter != nil:
				got[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				got[key] = m.GetGauge().GetValue()
			}
		}
	}
	for key, want := range map[string]float64{
		"a2abus_remote_calls_total{op=stream,outcome=ok,remote=Weather}":      1,
		"a2abus_remote_calls_total{op=send,outcome=transient,remote=Weather}": 1,
		"a2abus_remote_card_checks_total{outcome=ok,remote=Weather}":          1,
		"a2abus_remote_card_checks_total{outcome=failed,remote=Weather}":      1,
		"a2abus_remote_last_seen_timestamp_seconds{remote=Weather}":           1700000000,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
	// A nil Ops (neither metrics nor tracing) passes the task's trace on.
	var none *ops.Ops
	if w, done := none.RemoteCall("Weather", "get", parent); w != parent {
		t.Errorf("nil Ops trace = %v", w)
	} else {
		done(ops.RemoteOK, nil)
	}
	none.RemoteCardCheck("Weather", true, time.Now())
}

func labels(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	return "{" + strings.Join(parts, ",") + "}"
}
