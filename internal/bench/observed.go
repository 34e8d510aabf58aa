// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/ops/otlp"
)

// TargetObservedThroughputRatio is the lowest acceptable throughput of the
// a2abus chain with metrics and tracing on ÷ the same chain with them off.
const TargetObservedThroughputRatio = 0.97

// observedChainName names the a2abus chain measured with metrics and tracing on.
const observedChainName = "a2abus+ops"

// newObservability builds what the observed chain reports to: the
// Prometheus metrics of pkg/ops, and spans sampled at ratio (parent-based,
// as ops.trace_sample_ratio samples them) and exported in batches, as an OTLP exporter would get them, to an exporter that drops
// them (the cost measured is the process's, not a collector's).
// Without tracing, only the metrics are on.
func newObservability(tracing bool, ratio float64) (*ops.Ops, func(), error) {
	if !tracing {
		o, err := ops.New(ops.Options{Metrics: true})
		if err != nil {
			return nil, nil, fmt.Errorf("bench: observability: %w", err)
		}
		return o, func() { _ = o.Close() }, nil
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(otlp.Sampler(ratio)), sdktrace.WithBatcher(discard{}))
	o, err := ops.New(ops.Options{Metrics: true, TracerProvider: tp, CloseTracer: true})
	if err != nil {
		_ = tp.Shutdown(context.Background())
		return nil, nil, fmt.Errorf("bench: observability: %w", err)
	}
	return o, func() { _ = o.Close() }, nil
}

// discard is a span exporter that drops every span.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// observedRatios sets the observed chain's ratios to the plain a2abus chain's.
func (r *Report) observedRatios() {
	if r.Observed == nil {
		return
	}
	r.Observed.finish()
	r.ObservedThroughputRatio = ratio(r.Observed.Throughput, r.Project.Throughput)
	r.ObservedLatencyP50Ratio = ratio(r.Observed.LatencyP50Ms, r.Project.LatencyP50Ms)
	r.Targets.ObservedThroughputRatioMin = TargetObservedThroughputRatio
}
