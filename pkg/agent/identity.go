// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// sender is who the broker says published d (Options.Identities, for this
// agent's own broker user).
func (a *Agent) sender(d *bus.Delivery) bus.Sender {
	return a.opts.Identities.Sender(bus.UserOf(a.opts.Bus), &d.Message)
}

// checkCaller refuses a request whose caller field names someone its
// publisher may not act as: FORBIDDEN, logged, the request dead-lettered.
// Past it req.Caller is the broker-vouched caller (or, on a shared user,
// the body's word), which the policy, cancels and the reply then use.
func (a *Agent) checkCaller(d *bus.Delivery, req *a2a.TaskRequest, trace a2a.Trace) *outgoing {
	s := a.sender(d)
	if s.Allows(req.Caller) {
		return nil
	}
	a.log.Warn("task refused: its caller is not the broker user that sent it", zap.String("task", req.TaskID),
		zap.String("caller", req.Caller), zap.Stringer("sender", s), zap.String("message_id", d.MessageID))
	out := a.errorReply(req, trace, a2a.NewError(a2a.CodeForbidden, "%s may not act as caller %q", s, req.Caller))
	out.deadLetter = true
	return out
}

// cancelAllowed reports whether the publisher of d may cancel as m.Caller;
// a cancel it may not send is logged and dropped.
func (a *Agent) cancelAllowed(d *bus.Delivery, m *a2a.TaskCancel) bool {
	s := a.sender(d)
	if s.Allows(m.Caller) {
		return true
	}
	a.log.Warn("cancel refused: its caller is not the broker user that sent it", zap.String("task", m.TaskID),
		zap.String("caller", m.Caller), zap.Stringer("sender", s), zap.String("message_id", d.MessageID))
	return false
}
