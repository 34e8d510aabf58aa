// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Outcomes of the a2abus_calls_total metric.
const (
	OutcomeCompleted = "completed"
	OutcomeFailed    = "failed"
	OutcomeTimeout   = "timeout"
	OutcomeRefused   = "refused"
)

// callerObserver is the caller.Observer of an Ops: metrics, tracing, or both.
type callerObserver struct{ o *Ops }

var _ caller.Observer = callerObserver{}

// Invoking starts the invoke span (ended once the publish is done) and
// returns its context as the trace the request carries.
func (c callerObserver) Invoking(ctx context.Context, tr *a2a.TaskRequest, in a2a.Trace) (a2a.Trace, func(error)) {
	if c.o.tr == nil {
		return in, func(error) {}
	}
	span, wire := c.o.tr.start(ctx, SpanInvoke, in, trace.SpanKindProducer, append(c.o.tr.messaging("send", queueOf(a2a.TaskRoutingKey(tr.Target)), tr.TaskID),
		attribute.String("a2a.caller", tr.Caller), attribute.String("a2a.target", tr.Target),
		attribute.String("a2a.skill", tr.Skill), attribute.String("a2a.task_id", tr.TaskID),
		attribute.String("a2a.session_id", tr.SessionID))...)
	return wire, func(err error) { endSpan(span, err) }
}

// Finalizing starts the finalize span, a child of the answer's trace.
func (c callerObserver) Finalizing(ctx context.Context, name string, t a2a.Trace) func(error) {
	if c.o.tr == nil {
		return func(error) {}
	}
	span, _ := c.o.tr.start(ctx, SpanFinalize, t, trace.SpanKindConsumer, append(c.o.tr.messaging("process", queueOf(a2a.ResponseRoutingKey(name)), ""),
		attribute.String("a2a.caller", name))...)
	return func(err error) { endSpan(span, err) }
}

// Finished counts a stored outcome: the call (once: a late result replacing
// a TIMEOUT counts as late only), its latency and the finalization.
func (c callerObserver) Finished(e *caller.HistoryEntry) {
	m := c.o.m
	if m == nil {
		return
	}
	m.finalized.With(e.Caller).Inc()
	if e.Late {
		m.late.With(e.Caller).Inc()
		return
	}
	outcome := OutcomeCompleted
	switch {
	case e.Code.TimedOut():
		outcome = OutcomeTimeout
	case e.Code != "":
		outcome = OutcomeFailed
	}
	m.calls.With(e.Caller, e.Target, outcome, string(e.Code)).Inc()
	m.callDuration.With(e.Caller, e.Target).Observe(e.Duration().Seconds())
}

// Swept counts a task the sweeper timed out.
func (c callerObserver) Swept(name, _ string) {
	if c.o.m != nil {
		c.o.m.swept.With(name).Inc()
	}
}

// Refused counts a call refused before it was sent.
func (c callerObserver) Refused(name, target string, code a2a.ErrorCode) {
	if c.o.m != nil {
		c.o.m.calls.With(name, target, OutcomeRefused, string(code)).Inc()
	}
}

// MemoryRetry counts a retried working-memory write.
func (c callerObserver) MemoryRetry(name, op string) {
	if c.o.m != nil {
		c.o.m.memoryRetries.With(name, op).Inc()
	}
}

// Running tells readiness about the caller's consumers.
func (c callerObserver) Running(name string, running bool) {
	c.o.ready.running("caller "+name, running)
}

// agentObserver is the agent.Observer of an Ops.
type agentObserver struct{ o *Ops }

var _ agent.Observer = agentObserver{}

// Handling counts the task and starts its handle span, a child of the
// request's trace; done counts its outcome and ends the span.
func (a agentObserver) Handling(name, skill string, req *a2a.TaskRequest, attempt int, t a2a.Trace) (a2a.Trace, func(agent.TaskOutcome)) {
	m := a.o.m
	if m != nil {
		m.tasksReceived.With(name, skill).Inc()
		if attempt > 1 {
			m.redelivered.With(name).Inc()
		}
	}
	var span trace.Span
	if a.o.tr != nil {
		span, t = a.o.tr.start(context.Background(), SpanHandle, t, trace.SpanKindConsumer, append(a.o.tr.messaging("process", queueOf(a2a.TaskRoutingKey(name)), req.TaskID),
			attribute.String("a2a.agent", name), attribute.String("a2a.skill", req.Skill),
			attribute.String("a2a.caller", req.Caller), attribute.String("a2a.task_id", req.TaskID),
			attribute.Int("a2a.attempt", attempt))...)
	}
	return t, func(out agent.TaskOutcome) {
		if m != nil {
			switch {
			case out.Requeued:
				m.tasksRequeued.With(name, skill).Inc()
			case out.Code == "":
				m.tasksCompleted.With(name, skill).Inc()
			default:
				m.tasksFailed.With(name, skill, string(out.Code)).Inc()
			}
			if !out.Requeued {
				m.taskDuration.With(name, skill).Observe(out.Took.Seconds())
			}
		}
		if span != nil {
			switch {
			case out.Requeued:
				span.SetAttributes(attribute.Bool("a2a.requeued", true))
			case out.Code != "":
				span.SetAttributes(attribute.String("a2a.code", string(out.Code)))
				span.SetStatus(codes.Error, string(out.Code))
			}
			span.End()
		}
	}
}

// DeadLettered counts a request sent to the dead-letter queue.
func (a agentObserver) DeadLettered(name string) {
	if a.o.m != nil {
		a.o.m.deadLettered.With(name).Inc()
	}
}

// Running tells readiness about the agent's task consumer.
func (a agentObserver) Running(name string, running bool) { a.o.ready.running("agent "+name, running) }

// endSpan ends span, marking it failed with err.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
