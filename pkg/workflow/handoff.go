// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// HandoffVersion is the version of the Handoff format.
const HandoffVersion = 1

// Handoff is the contract's handoff context, which every step of a run receives
// in ONE place: the task request's handoff field (a2a.TaskRequest.Handoff,
// "handoff" on the wire), as JSON. The engine fills it for every step from
// the run's durable state, so a workflow author never copies context by
// hand; an agent reads it with HandoffOf.
type Handoff struct {
	Version int `json:"version"`
	// SessionID and UserID are the session and user the run works for.
	SessionID string `json:"sessionId,omitempty"`
	UserID    string `json:"userId,omitempty"`
	// OriginalRequest is the user's request in their words.
	OriginalRequest string `json:"originalRequest,omitempty"`
	// Workflow and RunID name the workflow and this run of it (also the
	// request's correlation id).
	Workflow string `json:"workflow"`
	RunID    string `json:"runId"`
	// Step is the step's id; WorkflowPosition says where it stands, as
	// "Step 3 of 5 (Financial Analysis)"; StepIndex counts from 1.
	Step             string `json:"step"`
	WorkflowPosition string `json:"workflowPosition"`
	StepIndex        int    `json:"stepIndex"`
	StepCount        int    `json:"stepCount"`
	// PriorAgents are the orchestrator, then the agents of the steps that
	// succeeded before this one, in workflow order.
	PriorAgents []string `json:"priorAgents"`
	// PriorOutputs are those steps' outputs by step id (texts cut to
	// Options.MaxHandoffText characters).
	PriorOutputs map[string]*Output `json:"priorOutputs,omitempty"`
	// Constraints are the run's constraints (the workflow's, overridden by
	// the run's).
	Constraints map[string]any `json:"constraints,omitempty"`
}

// HandoffOf returns the workflow handoff context of task t; ok is false when
// the task carries none (it was not sent by a workflow step). A handoff
// that is not a workflow handoff is an INVALID_INPUT error.
func HandoffOf(t *agent.Task) (h *Handoff, ok bool, err error) {
	if t == nil || t.Request == nil || len(t.Request.Handoff) == 0 || string(t.Request.Handoff) == "null" {
		return nil, false, nil
	}
	h = &Handoff{}
	if err := json.Unmarshal(t.Request.Handoff, h); err != nil {
		return nil, false, a2a.NewError(a2a.CodeInvalidInput, "workflow: the task's handoff is not a workflow handoff: %v", err)
	}
	if h.RunID == "" || h.Version == 0 {
		return nil, false, nil
	}
	return h, true, nil
}

// position formats "Step 3 of 5 (Financial Analysis)".
func position(index, count int, s *Step) string {
	return fmt.Sprintf("Step %d of %d (%s)", index, count, s.Name())
}

// cut shortens s to at most n characters (n <= 0: unbounded).
func cut(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
