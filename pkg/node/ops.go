// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/ops"
)

// serviceName is the default OpenTelemetry service.name (OTEL_SERVICE_NAME overrides it).
const serviceName = "a2abus"

// newOps builds the node's observability from cfg: metrics when ops.listen
// is set, tracing when the OTEL_* environment variables ask for it
// (ops.TracingFromEnv, sampled at ops.trace_sample_ratio; the program must
// have linked an exporter: pkg/ops/otlp). Neither on: nil, and the parts
// observe nothing.
func newOps(cfg *config.Config, log *zap.Logger) (*ops.Ops, error) {
	tp, err := ops.TracingFromEnv(context.Background(), serviceName, cfg.Ops.TraceSampleRatio)
	if err != nil {
		return nil, fmt.Errorf("node: tracing: %w", err)
	}
	if tp == nil && !cfg.Ops.Enabled() {
		return nil, nil
	}
	o := ops.Options{Metrics: cfg.Ops.Enabled(), CloseTracer: true, Logger: log}
	if !cfg.Bus.Embedded() {
		o.MessagingSystem = "rabbitmq"
	}
	if tp != nil {
		o.TracerProvider = tp
		log.Info("tracing on: spans are exported over OTLP (OTEL_* environment)")
	}
	return ops.New(o)
}

// StartOps starts the ops HTTP listener of a long-running process on
// ops.listen (/metrics, /healthz, /readyz, and /debug/pprof/ with
// ops.pprof), bounded by the http.* keys, and returns it; with ops.listen
// empty it starts nothing and returns a nil *ops.Server (whose Close does
// nothing). Once ctx ends /readyz answers 503 (draining); the node's Close
// stops the listener, once the process has stopped its parts. Every
// long-running command calls it right after opening its node, once.
func (n *Node) StartOps(ctx context.Context) (*ops.Server, error) {
	cfg := n.Config.Ops
	if !cfg.Enabled() {
		return nil, nil
	}
	if n.opsServer != nil {
		return nil, errors.New("node: the ops listener is already started")
	}
	if n.Ops == nil { // replaced by a program, or built by hand
		o, err := ops.New(ops.Options{Metrics: true, Logger: n.Log})
		if err != nil {
			return nil, err
		}
		o.Watch(n.Bus, n.Memory, n.Guard)
		n.Ops = o
	}
	s, err := ops.Serve(ctx, n.Ops, ops.ServerOptions{Addr: cfg.Listen, PProf: cfg.PProf, Limits: n.Config.HTTP.Limits()})
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	n.Log.Info("ops listener started", zap.String("addr", s.Addr().String()), zap.Bool("pprof", cfg.PProf))
	n.opsServer = s
	return s, nil
}
