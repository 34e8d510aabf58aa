// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Reply is the caller's answer to a question an agent asked (a task that
// waits for input: Outcome.WaitingForInput).
type Reply struct {
	// TaskID is the task that waits. Required.
	TaskID string
	// Text is the answer; Input an optional structured answer (a JSON
	// value, checked against the question's InputSchema when it has one).
	// At least one is required.
	Text  string
	Input json.RawMessage
	// MessageID identifies the answer: the same answer sent again (a
	// retried CLI call, a redelivered tool call) with the same id is
	// applied once and returns the same Invocation. Empty makes a new one.
	MessageID string
	// Timeout is the time the agent gets for the turn the answer starts;
	// 0 means the caller's default, clamped to its maximum.
	Timeout time.Duration
}

// Reply answers a task of this caller that waits for input: the agent's
// handler runs again (any replica of it) with the answer, the task's turn
// number and its history. It returns the Invocation of the new turn; wait
// for its end with Wait. Only the task's own caller may answer it
// (FORBIDDEN otherwise); a task that ended is TASK_FINISHED, and one that
// does not wait for an answer (it runs, or this question was answered
// already) INVALID_STATE: each an *a2a.Error naming the task.
func (c *Caller) Reply(ctx context.Context, r Reply) (Invocation, error) {
	return Invocation{}, errors.New("caller: Reply: not implemented")
}
