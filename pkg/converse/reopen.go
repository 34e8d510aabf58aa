// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// Reopen is the person's action on a conversation that ended in error
// because its local agent was unavailable (Cause CauseLocalUnavailable):
// once the agent runs again, the conversation goes back to planning the
// turn it was at — its transcript, exchanges and tokens kept, its failures
// reset — for Drive to go on. by names who reopened it, for the audit. Any
// other conversation is refused with ErrInvalidCommand; one being driven
// with ErrDriven. max_duration still counts from the start.
func (o *Orchestrator) Reopen(ctx context.Context, id, by string) (*Conversation, error) {
	token := o.opts.InstanceID + "/reopen-" + randomHex(6)
	ok, err := o.st.acquire(ctx, id, token, o.opts.LeaseTTL)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrDriven, id)
	}
	defer o.st.release(context.WithoutCancel(ctx), id, token)
	c, err := o.st.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.State != Failed || c.Cause != CauseLocalUnavailable {
		return c, fmt.Errorf("%w: %s is %s (cause %q): only a conversation whose local agent was unavailable is reopened",
			ErrInvalidCommand, id, c.Status(), c.Cause)
	}
	now := o.opts.Now().UTC()
	c.State, c.Pending, c.Failures, c.Cause, c.Limit, c.Reason, c.EndedAt = Planning, nil, 0, "", "", "", time.Time{}
	c.UpdatedAt = now
	c.event(now, EventControl, fmt.Sprintf("reopened by %s after the local agent was unavailable", by), "")
	if err := o.st.save(ctx, c); err != nil {
		return nil, err
	}
	o.log.Info("converse reopened", zap.String("conversation", id), zap.String("by", by), zap.String("local", c.Spec.Local))
	return c, nil
}
