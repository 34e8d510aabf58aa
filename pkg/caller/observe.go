// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Observer watches a caller for metrics and tracing (Options.Observer;
// pkg/ops implements it). Every method is called on the path of a call, so
// it must be quick and must not block; a nil Observer costs nothing.
type Observer interface {
	// Invoking is told that task tr is about to be recorded and published
	// with trace; it returns the trace the request carries on the wire (its
	// own span's, when tracing) and done, called once with the outcome of
	// the publish (nil: sent).
	Invoking(ctx context.Context, tr *a2a.TaskRequest, trace a2a.Trace) (a2a.Trace, func(err error))
	// Finalizing is told that a response (its trace) starts being finalized;
	// done is called once when it ends (err: it is requeued).
	Finalizing(ctx context.Context, caller string, trace a2a.Trace) (done func(err error))
	// Finished is told the outcome this process stored for a task: e is its
	// call-history entry (target, code, duration, late).
	Finished(e *HistoryEntry)
	// Swept is told that the deadline sweeper timed a task out.
	Swept(caller, target string)
	// Refused is told that a call was refused before it was published, with code.
	Refused(caller, target string, code a2a.ErrorCode)
	// MemoryRetry is told that a working-memory write of op failed and is retried.
	MemoryRetry(caller, op string)
	// Running is told when the caller's consumers start (true) and stop (false).
	Running(caller string, running bool)
}

// observeInvoke tells Options.Observer that tr is being sent; it returns
// the trace to send and the function that reports the publish's outcome.
// A request without a trace of its own, made from a handler, carries its
// task's (buildRequest inherits it into a copy of the request only).
func (c *Caller) observeInvoke(ctx context.Context, tr *a2a.TaskRequest, trace a2a.Trace) (a2a.Trace, func(error)) {
	if !trace.Valid() {
		if _, parent, nested := a2a.TaskFromContext(ctx); nested {
			trace = parent
		}
	}
	if c.opts.Observer == nil {
		return trace, func(error) {}
	}
	return c.opts.Observer.Invoking(ctx, tr, trace)
}

// observeFinalize tells Options.Observer that the response d is being
// finalized; the function returned reports how it ended.
func (c *Caller) observeFinalize(ctx context.Context, d *bus.Delivery) func(error) {
	if c.opts.Observer == nil {
		return func(error) {}
	}
	return c.opts.Observer.Finalizing(ctx, c.opts.Name, a2a.TraceOf(d.Envelope))
}

// observeFinished reports a task's stored outcome.
func (c *Caller) observeFinished(e *HistoryEntry) {
	if c.opts.Observer != nil {
		c.opts.Observer.Finished(e)
	}
}

// observeSwept reports a task the sweeper timed out.
func (c *Caller) observeSwept(rec *Record) {
	if c.opts.Observer != nil {
		c.opts.Observer.Swept(c.opts.Name, rec.Target)
	}
}

// observeRefused reports a refused call. The target of a call refused
// before it was vetted (an unknown agent, an invalid name) is not an agent
// that exists, so it is reported as "" to keep the metric's labels bounded.
func (c *Caller) observeRefused(req Request, code a2a.ErrorCode) {
	if c.opts.Observer == nil {
		return
	}
	target := req.Target
	switch code {
	case a2a.CodeAgentNotFound, a2a.CodeSkillNotSupported, a2a.CodeInvalidInput:
		target = ""
	}
	if a2a.ValidateAgentName(target) != nil {
		target = ""
	}
	c.opts.Observer.Refused(c.opts.Name, target, code)
}

// observeRetry reports a retried working-memory write.
func (c *Caller) observeRetry(op string) {
	if c.opts.Observer != nil {
		c.opts.Observer.MemoryRetry(c.opts.Name, op)
	}
}

// observeRunning reports the caller's consumers starting or stopping.
func (c *Caller) observeRunning(running bool) {
	if c.opts.Observer != nil {
		c.opts.Observer.Running(c.opts.Name, running)
	}
}
