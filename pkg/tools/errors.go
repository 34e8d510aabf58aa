// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Sentinel errors of the tools.
var (
	// ErrInvalidArguments: a tool's arguments break its schema; see *ArgumentError.
	ErrInvalidArguments = errors.New("tools: invalid arguments")
	// ErrArgumentsTooLarge: a tool call's arguments are longer than the
	// bound (llm.max_tool_argument_bytes); see BoundArguments.
	ErrArgumentsTooLarge = errors.New("tools: arguments too large")
	// ErrUnknownTool: no tool has the requested name.
	ErrUnknownTool = errors.New("tools: unknown tool")
	// ErrInvalidDeps: New was given incomplete or invalid dependencies.
	ErrInvalidDeps = errors.New("tools: invalid dependencies")
	// ErrUnknownTask: no task of that id was started by the caller (or it is forgotten); see *TaskError.
	ErrUnknownTask = errors.New("tools: unknown task")
	// ErrOtherSession: the task belongs to another conversation; see *TaskError.
	ErrOtherSession = errors.New("tools: task of another conversation")
	// ErrTaskFinished: the task already ended, so it cannot be canceled; see *TaskError.
	ErrTaskFinished = errors.New("tools: task already finished")
)

// Codes ErrorResult uses for failures that carry no *a2a.Error.
const (
	CodeInvalidArguments = "INVALID_ARGUMENTS"
	CodeUnknownTool      = "UNKNOWN_TOOL"
	CodeNotFound         = "NOT_FOUND"
	// CodeUnknownTask: task_status or cancel_task named a task this conversation did not start.
	CodeUnknownTask = "UNKNOWN_TASK"
	// CodeOtherSession: the task belongs to another conversation.
	CodeOtherSession = "OTHER_CONVERSATION"
	// CodeTaskFinished: cancel_task named a task that already ended.
	CodeTaskFinished = "TASK_FINISHED"
)

// ArgumentError says which argument of which tool is wrong and why, in
// words an LLM can act on. It wraps ErrInvalidArguments (and Err when set).
type ArgumentError struct {
	// Tool is the tool that was called.
	Tool string
	// Path is the argument concerned; "" when the arguments as a whole are wrong.
	Path string
	// Message names the argument and the rule, e.g. `argument "timeout_seconds": must be <= 300, got 900`.
	Message string
	// Err is an underlying cause (e.g. memory.ErrInvalidKey), or nil.
	Err error
}

// Error is the tool's name and the message.
func (e *ArgumentError) Error() string { return e.Tool + ": " + e.Message }

// Unwrap returns ErrInvalidArguments and the cause, if any.
func (e *ArgumentError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidArguments, e.Err}
	}
	return []error{ErrInvalidArguments}
}

// TaskError says why task_status or cancel_task cannot act on a task, in
// words an LLM can act on. It wraps ErrUnknownTask, ErrOtherSession or
// ErrTaskFinished.
type TaskError struct {
	// Tool is the tool that was called; TaskID the task it named.
	Tool   string
	TaskID string
	// State is the final state of a finished task (a State constant), else "".
	State string
	// Message says what is wrong and what to do instead.
	Message string
	// Err is the sentinel.
	Err error
}

// Error is the tool's name and the message.
func (e *TaskError) Error() string { return e.Tool + ": " + e.Message }

// Unwrap returns the sentinel.
func (e *TaskError) Unwrap() error { return e.Err }

// errorBody is the "error" object of ErrorResult.
type errorBody struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// ErrorResult renders err as {"error":{"code","message","retryable"}}, the
// tool result to feed back to an LLM. The code is the *a2a.Error's when err
// carries one, else one derived from the sentinel err wraps (INVALID_ARGUMENTS,
// NOT_FOUND, UNKNOWN_TASK, TASK_FINISHED, UNAVAILABLE, …; INTERNAL when none is known). A nil err renders
// as JSON null.
func ErrorResult(err error) json.RawMessage {
	if err == nil {
		return json.RawMessage("null")
	}
	code, retryable := classify(err)
	out, mErr := json.Marshal(map[string]errorBody{"error": {Code: code, Message: err.Error(), Retryable: retryable}})
	if mErr != nil { // cannot happen: strings and a bool always encode
		return json.RawMessage(`{"error":{"code":"INTERNAL","message":"unencodable error","retryable":false}}`)
	}
	return out
}

// classify maps err to a code and whether retrying the same call may succeed.
func classify(err error) (string, bool) {
	var ae *a2a.Error
	switch {
	case errors.As(err, &ae):
		return string(ae.Code), ae.Retryable
	case errors.Is(err, ErrInvalidArguments):
		return CodeInvalidArguments, false
	case errors.Is(err, ErrUnknownTool):
		return CodeUnknownTool, false
	case errors.Is(err, memory.ErrNotFound):
		return CodeNotFound, false
	case errors.Is(err, ErrUnknownTask), errors.Is(err, caller.ErrUnknownTask):
		return CodeUnknownTask, false
	case errors.Is(err, ErrOtherSession):
		return CodeOtherSession, false
	case errors.Is(err, ErrTaskFinished):
		return CodeTaskFinished, false
	case errors.Is(err, caller.ErrInvalidRequest), errors.Is(err, memory.ErrInvalidKey), errors.Is(err, a2a.ErrTooLarge):
		return string(a2a.CodeInvalidInput), false
	case errors.Is(err, memory.ErrUnavailable), errors.Is(err, bus.ErrNotConfirmed):
		return string(a2a.CodeUnavailable), true
	case errors.Is(err, context.DeadlineExceeded):
		return string(a2a.CodeTimeout), true
	case errors.Is(err, context.Canceled):
		return string(a2a.CodeCanceled), false
	}
	return string(a2a.CodeInternal), false
}
