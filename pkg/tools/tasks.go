// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// States of a task, as task_status and a waiting invoke_agent report them.
const (
	// StatePending: no status update seen: the task waits in the agent's queue, or runs without reporting.
	StatePending = "pending"
	// StateWorking: the agent reported that it works on the task.
	StateWorking = "working"
	// StateInputRequired and StateAuthRequired: the agent reported that it waits for its caller.
	StateInputRequired = "input_required"
	StateAuthRequired  = "auth_required"
	// StateCompleted: the task ended with a result.
	StateCompleted = "completed"
	// StateFailed: the task ended with an error.
	StateFailed = "failed"
	// StateCanceled: the task was canceled.
	StateCanceled = "canceled"
	// StateRejected: the agent refused the task.
	StateRejected = "rejected"
	// StateTimeout: the agent did not answer before the task's deadline
	// (TIMEOUT), or no agent took the task in time (EXPIRED_IN_QUEUE).
	StateTimeout = "timeout"
	// StateExpired: the task ended, but its outcome is no longer kept.
	StateExpired = "expired"
)

// Bounds of the result text a tool returns inline.
const (
	// MaxPreview bounds, in characters, task_status's preview of a result.
	MaxPreview = 300
	// MaxInlineResult bounds, in characters, the result text a waiting invoke_agent returns.
	MaxInlineResult = 4000
)

// taskIDPattern is a2a.ValidateTaskID's rule; contextIDPattern is
// a2a.ValidateContextID's (which also refuses "..").
const (
	taskIDPattern    = `^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`
	contextIDPattern = `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`
)

// taskIDParam is the task_id argument of task_status and cancel_task.
var taskIDParam = param{name: "task_id", required: true, hint: "letters, digits, '_' or '-', at most 128", schema: map[string]any{
	"type": "string", "pattern": taskIDPattern,
	"description": "The taskId returned by invoke_agent or named in a notification.",
}}

var taskStatusDef = definition{
	name:  "task_status",
	needs: []string{"Tasks"}, optional: true,
	description: "Check a task this conversation started with invoke_agent: its agent and skill, its state (pending, " +
		"working, input_required, auth_required, completed, failed, canceled, rejected, timeout or expired), its turn, " +
		"the agent's latest status message, the time left before its deadline, the question the agent asks while the " +
		"task waits for input (its text, options and the shape of a structured answer) and, once it ended, a short " +
		"preview of its result. Do not poll: a notification arrives in this conversation when the task ends or asks " +
		"something. Read the full result with get_from_working_memory.",
	params: []param{taskIDParam},
}

var cancelTaskDef = definition{
	name:  "cancel_task",
	needs: []string{"Tasks", "Canceler"}, optional: true,
	description: "Cancel a task this conversation started with invoke_agent and no longer needs. The agent is asked " +
		"to stop; the task then ends as canceled (or with its result, if it finished first) and a notification " +
		"arrives in this conversation. A task that already ended cannot be canceled.",
	params: []param{taskIDParam},
}

// taskArgs are the arguments of task_status and cancel_task.
type taskArgs struct {
	TaskID string `json:"task_id"`
}

// TaskFailure is how a task failed: its error code, message and whether
// invoking it again may succeed.
type TaskFailure struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// TaskStatusResult is task_status's result.
type TaskStatusResult struct {
	TaskID string `json:"taskId"`
	Agent  string `json:"agent"`
	Skill  string `json:"skill"`
	// State is one of the State constants.
	State string `json:"state"`
	// Finished is true once the task ended.
	Finished bool `json:"finished"`
	// Turn is the task's current turn: 0 (left out) for its first request,
	// n once n of its agent's questions were answered.
	Turn int `json:"turn,omitempty"`
	// Question is what the agent asks while the task waits for input
	// (state input_required or auth_required).
	Question *Question `json:"question,omitempty"`
	// StatusMessage is the agent's latest status update while the task runs, if one arrived.
	StatusMessage string `json:"statusMessage,omitempty"`
	// Progress is the fraction done (0..1) the latest status update gave, if any.
	Progress *float64 `json:"progress,omitempty"`
	// Deadline is when the task times out (RFC 3339, UTC).
	Deadline string `json:"deadline"`
	// SecondsLeft is the time left before the deadline while the task
	// runs, before the answer is due while it waits for input.
	SecondsLeft *int   `json:"secondsLeft,omitempty"`
	MemoryKey   string `json:"memoryKey"`
	// Preview is the start of the result's text (MaxPreview characters), once it completed.
	Preview string `json:"preview,omitempty"`
	// Error is the task's failure, once it failed.
	Error *TaskFailure `json:"error,omitempty"`
	// Late is true for a result that arrived after the task had timed out.
	Late bool `json:"late,omitempty"`
	// Note tells the model what to do next.
	Note string `json:"note"`
}

// CancelResult is cancel_task's result.
type CancelResult struct {
	TaskID    string `json:"taskId"`
	MemoryKey string `json:"memoryKey"`
	// Status is "cancel_requested".
	Status string `json:"status"`
	Note   string `json:"note"`
}

// StatusCancelRequested is cancel_task's status: the agent was asked to stop.
const StatusCancelRequested = "cancel_requested"

// taskStatus describes a task of this session.
func (s *Set) taskStatus(ctx context.Context, raw json.RawMessage) (any, error) {
	info, err := s.sessionTask(ctx, taskStatusDef.name, raw)
	if err != nil {
		return nil, err
	}
	return s.describe(info), nil
}

// cancelTask cancels a task of this session that has not ended.
func (s *Set) cancelTask(ctx context.Context, raw json.RawMessage) (any, error) {
	const tool = "cancel_task"
	info, err := s.sessionTask(ctx, tool, raw)
	if err != nil {
		return nil, err
	}
	if !info.Pending {
		d := s.describe(info)
		msg := fmt.Sprintf("task '%s' of agent '%s' already finished (state=%s): there is nothing to cancel", info.TaskID, info.Target, d.State)
		if info.Result != nil {
			msg += fmt.Sprintf("; read its result with get_from_working_memory with key '%s'", info.MemoryKey)
		}
		return nil, &TaskError{Tool: tool, TaskID: info.TaskID, State: d.State, Message: msg, Err: ErrTaskFinished}
	}
	if err := s.deps.Canceler.Cancel(ctx, info.TaskID); err != nil {
		if errors.Is(err, caller.ErrUnknownTask) {
			return nil, s.unknownTask(tool, info.TaskID)
		}
		return nil, fmt.Errorf("%s: cancel task %q: %w", tool, info.TaskID, err)
	}
	note := fmt.Sprintf("Agent '%s' was asked to stop task %s. The task ends as canceled (or with its result, if it "+
		"finished first) and a notification arrives in this conversation.", info.Target, info.TaskID)
	if info.WaitingForInput() {
		note = fmt.Sprintf("Task %s of agent '%s' waited for an answer to its question, so no agent was running it: it ends as "+
			"canceled now, and a notification arrives in this conversation.", info.TaskID, info.Target)
	}
	return CancelResult{TaskID: info.TaskID, MemoryKey: info.MemoryKey, Status: StatusCancelRequested, Note: note}, nil
}

// sessionTask reads the task named by the arguments: a *TaskError when the
// caller does not know it or it belongs to another session.
func (s *Set) sessionTask(ctx context.Context, tool string, raw json.RawMessage) (*caller.TaskInfo, error) {
	var args taskArgs
	if err := decodeArgs(tool, raw, &args); err != nil {
		return nil, err
	}
	info, err := s.deps.Tasks.Task(ctx, args.TaskID)
	if errors.Is(err, caller.ErrUnknownTask) {
		return nil, s.unknownTask(tool, args.TaskID)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read task %q: %w", tool, args.TaskID, err)
	}
	if info.SessionID != s.deps.SessionID {
		return nil, &TaskError{Tool: tool, TaskID: args.TaskID, Err: ErrOtherSession, Message: fmt.Sprintf(
			"task '%s' belongs to another conversation: only the tasks started in this conversation can be seen or canceled",
			args.TaskID)}
	}
	return info, nil
}

func (s *Set) unknownTask(tool, taskID string) *TaskError {
	return &TaskError{Tool: tool, TaskID: taskID, Err: ErrUnknownTask, Message: fmt.Sprintf(
		"no task '%s' was started here, or it ended long ago and is forgotten; use a taskId returned by invoke_agent "+
			"or named in a notification", taskID)}
}

// describe is what task_status shows of info.
func (s *Set) describe(info *caller.TaskInfo) TaskStatusResult {
	r := TaskStatusResult{TaskID: info.TaskID, Agent: info.Target, Skill: info.Skill, MemoryKey: info.MemoryKey,
		Deadline: info.Deadline.UTC().Format(time.RFC3339), Turn: info.Turn}
	switch res := info.Result; {
	case info.Asked != nil:
		r.State, r.Question = stateName(info.Asked.State), questionOf(info.Asked)
		left := max(0, int(math.Ceil(time.Until(info.Asked.AnswerBy).Seconds())))
		r.SecondsLeft = &left
		r.Note = questionNote(info.Target, info.TaskID, info.MemoryKey, r.Question)
	case res != nil:
		r.Finished, r.State, r.Late = true, finalState(res), res.Late
		if res.Error != nil {
			r.Error = &TaskFailure{Code: string(res.Error.Code), Message: truncate(res.Error.Message, MaxPreview), Retryable: res.Error.Retryable}
		} else {
			r.Preview = truncate(strings.Join(strings.Fields(resultText(res)), " "), MaxPreview)
		}
		r.Note = fmt.Sprintf("The task has ended (state=%s). Read the full result with get_from_working_memory with key '%s'.", r.State, info.MemoryKey)
	case info.Expired():
		r.Finished, r.State = true, StateExpired
		r.Note = "The task has ended, but its result is no longer kept (results expire after a while)."
	default:
		left := max(0, int(math.Ceil(time.Until(info.Deadline).Seconds())))
		r.SecondsLeft = &left
		r.State = StatePending
		if st := s.tasks.status(info.TaskID); st != nil {
			r.State = stateName(st.State)
			r.StatusMessage = truncate(strings.Join(strings.Fields(a2a.MessageText(st.Message)), " "), MaxPreview)
			r.Progress = st.Progress
		}
		r.Note = fmt.Sprintf("The task is still running. Do not poll: when it ends a notification arrives in this "+
			"conversation; then read the result with get_from_working_memory with key '%s'.", info.MemoryKey)
		if left == 0 {
			r.Note = "The task's deadline has passed: it is being timed out, and a notification will arrive. " + r.Note[len("The task is still running. "):]
		}
	}
	return r
}

// stateName is an A2A state as the tools name it: TASK_STATE_WORKING → working.
func stateName(st a2a.TaskState) string {
	return strings.ToLower(strings.TrimPrefix(string(st), "TASK_STATE_"))
}

// finalState is the state of an ended task: StateTimeout for the TIMEOUT
// (or EXPIRED_IN_QUEUE) of a task that got no answer in time.
func finalState(res *caller.StoredResult) string {
	if res.Error != nil && res.Error.Code.TimedOut() {
		return StateTimeout
	}
	return stateName(res.State)
}

// resultText is the result's message text, else its artifacts' text; ""
// for a structured result only.
func resultText(res *caller.StoredResult) string {
	if t := a2a.MessageText(res.Message); t != "" {
		return t
	}
	var parts []string
	for _, a := range res.Artifacts {
		if a == nil {
			continue
		}
		if t := a2a.MessageText(&a2a.Message{Parts: a.Parts}); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}
