// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package ops is the observability of a2abus's long-running processes:
// Prometheus metrics (names prefixed a2abus_, labels bounded, served by
// the small registry of pkg/ops/prom), OpenTelemetry
// spans linked through the traceparent every message carries, and the ops
// HTTP listener with /metrics, /healthz, /readyz and, when asked,
// /debug/pprof/.
//
// pkg/node builds one Ops per node from the configuration (ops.listen turns
// the metrics on, the OTEL_* environment variables the tracing) and hands
// its observers to every caller and agent it builds; a long-running command
// then starts the listener with node.StartOps. A process that turns neither
// on gets no Ops and pays nothing.
//
// Spans: a caller's a2a.invoke (producer) is the parent of the agent's
// a2a.handle (consumer), which is the parent of the handler's own calls and
// of the caller's a2a.finalize, so one trace shows caller → agent →
// sub-agent → result.
package ops

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/guard"
	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// Options configures an Ops.
type Options struct {
	// Metrics registers the metrics (served at /metrics); without it they
	// are not counted.
	Metrics bool
	// TracerProvider, when set, traces invokes, handling and finalization
	// (TracingFromEnv builds the standard one).
	TracerProvider trace.TracerProvider
	// CloseTracer makes Close shut TracerProvider down (flushing its spans)
	// when it has a Shutdown method: set it for a provider the Ops owns.
	CloseTracer bool
	// Logger receives the listener's errors; nil means none.
	Logger *zap.Logger
	// MessagingSystem is the spans' messaging.system ("rabbitmq"); empty
	// (the embedded bus) leaves the attribute out.
	MessagingSystem string
}

// Ops holds the metrics, the tracer and the readiness of one process (one
// node). It is safe for concurrent use; a nil *Ops observes nothing.
type Ops struct {
	opts  Options
	reg   *prom.Registry
	m     *metrics       // nil without Options.Metrics
	col   *collector     // nil without Options.Metrics
	rm    *remoteMetrics // nil without Options.Metrics
	tr    *tracing       // nil without a TracerProvider
	ready readiness
	log   *zap.Logger

	closed atomic.Bool
}

// New builds an Ops. With neither metrics nor a tracer it is still usable
// (health and readiness), and its observers are nil.
func New(o Options) (*Ops, error) {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	ops := &Ops{opts: o, reg: prom.NewRegistry(), log: o.Logger}
	ops.ready.init()
	if o.Metrics {
		if err := ops.reg.Register(prom.NewGoCollector()); err != nil {
			return nil, fmt.Errorf("ops: register the Go metrics: %w", err)
		}
		if err := ops.reg.Register(prom.NewProcessCollector()); err != nil {
			return nil, fmt.Errorf("ops: register the process metrics: %w", err)
		}
		if err := ops.reg.Register(newBuildInfo(CurrentBuild())); err != nil {
			return nil, fmt.Errorf("ops: register the build info: %w", err)
		}
		m, err := newMetrics(ops.reg)
		if err != nil {
			return nil, fmt.Errorf("ops: register the metrics: %w", err)
		}
		rm, err := newRemoteMetrics(ops.reg)
		if err != nil {
			return nil, fmt.Errorf("ops: register the remote agents' metrics: %w", err)
		}
		ops.m, ops.col, ops.rm = m, newCollector(), rm
		if err := ops.reg.Register(ops.col); err != nil {
			return nil, fmt.Errorf("ops: register the state metrics: %w", err)
		}
	}
	if o.TracerProvider != nil {
		ops.tr = &tracing{tracer: o.TracerProvider.Tracer(TracerName), system: o.MessagingSystem}
	}
	return ops, nil
}

// Registry is the registry /metrics serves (in the Prometheus text format).
func (o *Ops) Registry() *prom.Registry { return o.reg }

// observing reports whether o counts or traces anything.
func (o *Ops) observing() bool { return o != nil && (o.m != nil || o.tr != nil) }

// CallerObserver is the observer to give caller.Options.Observer: nil when
// o observes nothing (so the caller pays nothing).
func (o *Ops) CallerObserver() caller.Observer {
	if !o.observing() {
		return nil
	}
	return callerObserver{o}
}

// AgentObserver is the observer to give agent.Options.Observer: nil when o
// observes nothing.
func (o *Ops) AgentObserver() agent.Observer {
	if !o.observing() {
		return nil
	}
	return agentObserver{o}
}

// Watch makes the node's parts part of readiness and of the state metrics:
// the bus (connected, reconnects — when it is a BrokerState), the working
// memory (pinged by /readyz; nil when the node has none) and the guard
// (calls in flight, circuits, refusals; may be nil).
func (o *Ops) Watch(b bus.Bus, m memory.Memory, g *guard.Guard) {
	if o == nil {
		return
	}
	broker, _ := b.(BrokerState)
	o.ready.watch(broker, m)
	if o.col != nil {
		o.col.mu.Lock()
		o.col.guard, o.col.broker = g, broker
		o.col.mu.Unlock()
	}
}

// WatchDirectory reports d's agents by status (a2abus_directory_agents);
// the last directory watched is the one reported.
func (o *Ops) WatchDirectory(d *directory.Directory) {
	if o == nil || o.col == nil {
		return
	}
	o.col.mu.Lock()
	o.col.directory = d
	o.col.mu.Unlock()
}

// Expect makes readiness wait for a part ("agent SampleAgent", "caller
// X") to run: the process is not ready until every expected part runs. A
// part that stops is no longer expected.
func (o *Ops) Expect(part string) {
	if o != nil {
		o.ready.expect(part)
	}
}

// Check makes /readyz ask f too: the process is not ready while f returns
// an error, reported under name (a part with a state of its own, such as
// the exec bridge's agent process).
func (o *Ops) Check(name string, f func() error) {
	if o == nil {
		return
	}
	o.ready.mu.Lock()
	defer o.ready.mu.Unlock()
	o.ready.checks[name] = f
}

// Drain marks the process as draining: /readyz answers 503 from now on.
func (o *Ops) Drain() {
	if o != nil {
		o.ready.draining.Store(true)
	}
}

// Ready returns nil when the process is ready for work, else why not: the
// broker reconnecting, working memory not answering, an expected consumer
// not running, or draining.
func (o *Ops) Ready(ctx context.Context) error {
	if o == nil {
		return nil
	}
	return o.ready.check(ctx)
}

// closeTimeout bounds the flush of the tracer on Close.
const closeTimeout = 5 * time.Second

// Close flushes and shuts down the tracer provider when the Ops owns it
// (Options.CloseTracer), within a bound. Idempotent; a nil Ops does nothing.
func (o *Ops) Close() error {
	if o == nil || !o.closed.CompareAndSwap(false, true) || !o.opts.CloseTracer {
		return nil
	}
	sd, ok := o.opts.TracerProvider.(interface{ Shutdown(context.Context) error })
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := sd.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("ops: flush the tracer: %w", err)
	}
	return nil
}
