// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// cancelTimeout bounds the cancel sent to a sub-task when its parent stops.
const cancelTimeout = 5 * time.Second

// subTaskMargin is at most how much earlier than its parent a sub-task is due.
const subTaskMargin = 100 * time.Millisecond

// delegateInput is the delegate skill's structured input.
type delegateInput struct {
	Agent string          `json:"agent"`
	Skill string          `json:"skill"`
	Text  string          `json:"text"`
	Input json.RawMessage `json:"input"`
}

// delegator runs the delegate skill: one nested call through its caller.
type delegator struct {
	self   string         // the agent's own name
	caller *caller.Caller // nil: delegation is not configured
}

// handle invokes the input's agent and skill with the task's session,
// correlation id, call chain, trace and remaining time, and returns the
// sub-task's message and artifacts, or its error as the same *a2a.Error.
// When the task is cancelled or times out, the sub-task is cancelled too.
func (d *delegator) handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	if d.caller == nil {
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "delegation is not configured")
	}
	var in delegateInput
	if err := decodeInput(t, &in); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	left := time.Until(t.Request.Deadline)
	if left <= 0 {
		return nil, context.DeadlineExceeded
	}
	// The sub-task is due a little before this task, so its answer can still
	// be passed on in time.
	left -= min(left/10, subTaskMargin)
	// ctx carries the task: the caller gives the sub-task its session,
	// correlation id (this task's id when it has none), call chain and trace,
	// and refuses the call (FORBIDDEN, CYCLE_DETECTED, DEPTH_EXCEEDED, or the
	// policy's and limits' refusals) when the task or the chain forbid it.
	inv, err := d.caller.Invoke(ctx, caller.Request{
		Target: in.Agent, Skill: in.Skill, Text: in.Text, Input: in.Input,
		ContextID: t.Request.ContextID, Timeout: left, Priority: t.Request.Priority,
	})
	if err != nil {
		return nil, invokeError(ctx, in, err)
	}
	_ = t.Progress(ctx, fmt.Sprintf("delegated to %s (skill %s) as task %s", inv.Target, in.Skill, inv.TaskID), -1)
	out, err := d.caller.Wait(ctx, inv.TaskID, func(st *a2a.TaskStatus) { forwardStatus(ctx, t, inv.Target, st) })
	if err != nil {
		if ctx.Err() != nil {
			d.cancel(ctx, inv.TaskID)
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("delegate: wait for %s task %s: %w", inv.Target, inv.TaskID, err)
	}
	if err := out.Err(); err != nil {
		return nil, err
	}
	r := out.Result
	return &agent.Result{
		Message: r.Message, Artifacts: r.Artifacts, Status: r.Status, Confidence: r.Confidence, Warnings: r.Warnings,
		Extra: map[string]any{"delegatedTo": inv.Target, "delegatedTaskId": inv.TaskID},
	}, nil
}

// validate names the first missing or malformed field.
func (in *delegateInput) validate() error {
	bad := func(field string, err error) error {
		return a2a.NewError(a2a.CodeInvalidInput, "delegate: input field %q: %v", field, err)
	}
	if err := a2a.ValidateAgentName(in.Agent); err != nil {
		return bad("agent", err)
	}
	if err := a2a.ValidateSkillID(in.Skill); err != nil {
		return bad("skill", err)
	}
	if string(in.Input) == "null" {
		in.Input = nil
	}
	if in.Text == "" && len(in.Input) == 0 {
		return bad("text", errors.New("a text (or a structured \"input\") for the agent is required"))
	}
	return nil
}

// invokeError turns a failed Invoke into the task's error: the context's
// error when the task ended, a typed error as is, a refused request as
// INVALID_INPUT, anything else as EXECUTION_FAILED.
func invokeError(ctx context.Context, in delegateInput, err error) error {
	var typed *a2a.Error
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &typed):
		return typed
	case errors.Is(err, caller.ErrInvalidRequest):
		return a2a.NewError(a2a.CodeInvalidInput, "delegate: %v", err)
	}
	return fmt.Errorf("delegate: invoke %s skill %s: %w", in.Agent, in.Skill, err)
}

// forwardStatus republishes a sub-task's progress as the task's own.
func forwardStatus(ctx context.Context, t *agent.Task, target string, st *a2a.TaskStatus) {
	text := a2a.MessageText(st.Message)
	if text == "" && st.Progress == nil {
		return // the sub-task's bare "working": already reported as delegated
	}
	frac := -1.0
	if st.Progress != nil {
		frac = *st.Progress
	}
	if text == "" {
		text = "working"
	}
	_ = t.Progress(ctx, target+": "+text, frac) // advisory, like every status
}

// cancel asks the sub-task's agent to stop, on a context that outlives the task's.
func (d *delegator) cancel(ctx context.Context, taskID string) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer stop()
	_ = d.caller.Cancel(cctx, taskID) // best effort: the sub-task's deadline ends it anyway
}
