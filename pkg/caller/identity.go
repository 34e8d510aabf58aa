// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// sender is who the broker says published d (Options.Identities, for this
// caller's own broker user).
func (c *Caller) sender(d *bus.Delivery) bus.Sender {
	return c.opts.Identities.Sender(bus.UserOf(c.opts.Bus), &d.Message)
}

// answeredBy is the task and the agent an answer on the response queue
// claims to come from (a result, error or status); ok is false for other payloads.
func answeredBy(p a2a.Payload) (taskID, agent string, ok bool) {
	switch r := p.(type) {
	case *a2a.TaskResult:
		return r.TaskID, r.Agent, true
	case *a2a.TaskError:
		return r.TaskID, r.Agent, true
	case *a2a.TaskStatus:
		return r.TaskID, r.Agent, true
	}
	return "", "", false
}

// forgedAnswer reports (and logs) an answer whose agent field names an agent
// its publisher may not act as: FORBIDDEN, never accepted. Past it the
// answer's agent is the broker-vouched one (or, on a shared user, the body's
// word), which finalize then matches against the task's target.
func (c *Caller) forgedAnswer(d *bus.Delivery, p a2a.Payload) bool {
	taskID, agent, ok := answeredBy(p)
	if !ok {
		return false
	}
	s := c.sender(d)
	if s.Allows(agent) {
		return false
	}
	c.log.Warn("response refused (FORBIDDEN): its agent is not the broker user that sent it", zap.String("task", taskID),
		zap.String("agent", agent), zap.Stringer("sender", s), zap.String("type", string(d.Kind)), zap.String("message_id", d.MessageID))
	return true
}

// foreignEvent reports (and logs) an event that another identity than this
// caller's own published on its replicas' event key.
func (c *Caller) foreignEvent(d *bus.Delivery) bool {
	s := c.sender(d)
	if s.Allows(c.opts.Name) {
		return false
	}
	c.log.Warn("replica event refused: not published by this caller's identity", zap.Stringer("sender", s),
		zap.String("message_id", d.MessageID))
	return true
}
