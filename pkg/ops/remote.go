// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// SpanRemote names the span of one call a bridge makes to a remote A2A
// agent over HTTP (client kind), a child of the task's a2a.handle; its
// context is the traceparent header the HTTP request carries.
const SpanRemote = "a2a.remote"

// Outcomes of a2abus_remote_calls_total.
const (
	RemoteOK        = "ok"        // the call answered
	RemoteTransient = "transient" // a failure that is retried (connection, 502/503/504, 429)
	RemoteFailed    = "failed"    // any other failure
	RemoteCanceled  = "canceled"  // the task ended (cancelled, or its deadline) during the call
)

// remoteMetrics count the bridges' calls to remote A2A agents; the labels
// are the remotes' bus names, the call kinds and outcomes, all bounded.
type remoteMetrics struct {
	calls      *prom.CounterVec   // remote, op, outcome
	duration   *prom.HistogramVec // remote, op
	cardChecks *prom.CounterVec   // remote, outcome
	lastSeen   *prom.GaugeVec     // remote
}

func newRemoteMetrics(reg *prom.Registry) (*remoteMetrics, error) {
	m := &remoteMetrics{
		calls: prom.NewCounterVec(Namespace+"_remote_calls_total",
			"Calls of bridges to remote A2A agents, by kind (card, send, stream, subscribe, get, cancel) and outcome (ok, transient, failed, canceled).",
			[]string{"remote", "op", "outcome"}...),
		duration: prom.NewHistogramVec(Namespace+"_remote_call_duration_seconds",
			"Time of one call of a bridge to a remote A2A agent (a stream: until it ended).",
			durationBuckets, []string{"remote", "op"}...),
		cardChecks: prom.NewCounterVec(Namespace+"_remote_card_checks_total",
			"Periodic fetches of remote A2A agents' cards, by outcome (ok, failed).",
			[]string{"remote", "outcome"}...),
		lastSeen: prom.NewGaugeVec(Namespace+"_remote_last_seen_timestamp_seconds",
			"When a remote A2A agent's card was last fetched, as a Unix time.",
			[]string{"remote"}...),
	}
	for _, c := range []prom.Collector{m.calls, m.duration, m.cardChecks, m.lastSeen} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// RemoteCall starts the span of one call (op) a bridge makes to remote, a
// child of parent (the task's trace), and returns the trace its HTTP
// requests carry in traceparent — parent itself when nothing is traced —
// and done, which counts the call with its outcome (RemoteOK, …) and ends
// the span. A call outside a task (parent not valid: a card check) is
// counted, not traced: it would start a trace of its own every check. A
// nil Ops traces and counts nothing.
func (o *Ops) RemoteCall(remote, op string, parent a2a.Trace) (a2a.Trace, func(outcome string, err error)) {
	if o == nil || (o.rm == nil && o.tr == nil) {
		return parent, func(string, error) {}
	}
	start := time.Now()
	var span trace.Span
	wire := parent
	if o.tr != nil && parent.Valid() {
		span, wire = o.tr.start(context.Background(), SpanRemote, parent, trace.SpanKindClient,
			attribute.String("a2a.remote", remote), attribute.String("a2a.remote.op", op))
	}
	return wire, func(outcome string, err error) {
		if o.rm != nil {
			o.rm.calls.With(remote, op, outcome).Inc()
			o.rm.duration.With(remote, op).Observe(time.Since(start).Seconds())
		}
		if span != nil {
			span.SetAttributes(attribute.String("a2a.remote.outcome", outcome))
			if err != nil && outcome != RemoteOK {
				span.RecordError(err)
				span.SetStatus(codes.Error, outcome)
			}
			span.End()
		}
	}
}

// RemoteCardCheck counts one periodic fetch of remote's card; a good one
// at `at` is the remote's last-seen time.
func (o *Ops) RemoteCardCheck(remote string, ok bool, at time.Time) {
	if o == nil || o.rm == nil {
		return
	}
	outcome := RemoteOK
	if !ok {
		outcome = RemoteFailed
	}
	o.rm.cardChecks.With(remote, outcome).Inc()
	if ok {
		o.rm.lastSeen.With(remote).Set(float64(at.UnixNano()) / 1e9)
	}
}
