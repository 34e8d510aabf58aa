// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Observer watches an agent's tasks for metrics and tracing
// (Options.Observer; pkg/ops implements it). Every method is called on the
// path of a task, so it must be quick and must not block; a nil Observer
// costs nothing.
type Observer interface {
	// Handling is told that task req (delivery attempt, trace from its
	// request) was received. skill is req.Skill when the agent has that
	// skill, else "" (a label must stay bounded). It returns the trace the
	// task's handler passes on to its own calls and puts on its replies (its
	// span's, when tracing), and done, called once with the task's outcome.
	Handling(agent, skill string, req *a2a.TaskRequest, attempt int, trace a2a.Trace) (a2a.Trace, func(TaskOutcome))
	// DeadLettered is told that a task's request went to the dead-letter queue.
	DeadLettered(agent string)
	// Running is told when the agent's task consumer starts (true) and stops (false).
	Running(agent string, running bool)
}

// TaskOutcome is how one delivery of a task ended, for an Observer.
type TaskOutcome struct {
	// Code is the error the task was answered with; "" when it completed.
	Code a2a.ErrorCode
	// Requeued: the task was not answered (shutdown, a lost delivery).
	Requeued bool
	// Took is the time from receipt to the outcome.
	Took time.Duration
}

// observeTask tells Options.Observer that req arrived on d with trace; it
// returns the trace the task works under and the function that reports its
// outcome from process's results.
func (a *Agent) observeTask(req *a2a.TaskRequest, d *bus.Delivery, trace a2a.Trace) (a2a.Trace, func(*outgoing, bool)) {
	if a.opts.Observer == nil {
		return trace, func(*outgoing, bool) {}
	}
	a.mu.Lock()
	_, known := a.handlers[req.Skill]
	a.mu.Unlock()
	skill := ""
	if known {
		skill = req.Skill
	}
	start := time.Now()
	trace, done := a.opts.Observer.Handling(a.Name(), skill, req, d.Attempt, trace)
	return trace, func(reply *outgoing, requeue bool) {
		o := TaskOutcome{Requeued: requeue, Took: time.Since(start)}
		if reply != nil {
			if te, ok := reply.payload.(*a2a.TaskError); ok {
				o.Code = te.Code
			} else if reply.payload == nil {
				o.Code = a2a.CodeInvalidInput // nobody to answer: an undecodable or misdirected request
			}
		}
		done(o)
	}
}

// observeDeadLetter reports a request that went to the dead-letter queue.
func (a *Agent) observeDeadLetter() {
	if a.opts.Observer != nil {
		a.opts.Observer.DeadLettered(a.Name())
	}
}

// observeRunning reports the task consumer starting or stopping.
func (a *Agent) observeRunning(running bool) {
	if a.opts.Observer != nil {
		a.opts.Observer.Running(a.Name(), running)
	}
}
