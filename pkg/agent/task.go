// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Handler runs one skill for one task and returns its result. Return an
// *a2a.Error to choose the error code (e.g. INVALID_INPUT); any other error
// becomes EXECUTION_FAILED with its message.
type Handler func(ctx context.Context, t *Task) (*Result, error)

// Middleware wraps a Handler (logging, metrics, auth, …).
type Middleware func(Handler) Handler

// Task is one request being handled, with the means to report progress.
type Task struct {
	// Request is the decoded task request.
	Request *a2a.TaskRequest
	// Attempt is 1 on first delivery and grows with redeliveries.
	Attempt int
	// Trace is the W3C trace context the request carried.
	Trace a2a.Trace

	publishStatus func(ctx context.Context, st *a2a.TaskStatus) error
	agentName     string
	now           func() time.Time
	memory        memoryReader // reads a caller context sent by reference; nil without working memory
}

// memoryReader reads a working-memory value (a memory.Memory is one).
type memoryReader interface {
	Get(ctx context.Context, key string) ([]byte, error)
}

// Text is the text of the request's message: on a later turn, the
// caller's answer to the agent's question.
func (t *Task) Text() string { return a2a.MessageText(t.Request.Message) }

// Turn is 0 for the task's first request and n for the request that
// carries the caller's n-th answer (the handler asked n questions before:
// Ask, AskAuth). Any replica of the agent may get any turn.
func (t *Task) Turn() int { return t.Request.Turn }

// History is the task's earlier messages, oldest first: the first request's
// message, the agent's question, the caller's answer, … up to (not
// including) the message of this turn. Empty on turn 0. The caller keeps it
// and sends it with every turn, so a replica that never saw the earlier
// turns can go on. When it was too long for the bus, its oldest messages
// were dropped and the first one left says how many.
func (t *Task) History() []*a2a.Message { return t.Request.History }

// ContextID is the id of the context the task belongs to: the
// conversation of related tasks the caller groups under it ("" from a
// caller that sets none).
func (t *Task) ContextID() string { return t.Request.ContextID }

// ContextHistory is the messages of the earlier tasks of the same context,
// oldest first: each task's request message and its final answer, bounded
// (the oldest dropped first).
func (t *Task) ContextHistory() []*a2a.Message { return t.Request.ContextHistory }

// CallerContext is the part of its own conversation the task's caller chose
// to send with the task, oldest first (nil when it sent none; empty when it
// chose to send nothing). One too large for the request went by reference:
// it is read from working memory (Options.Memory must be a memory.Memory),
// and a failure to read it is an UNAVAILABLE *a2a.Error.
func (t *Task) CallerContext(ctx context.Context) ([]a2a.ContextMessage, error) {
	cc := t.Request.CallerContext
	switch {
	case cc == nil:
		return nil, nil
	case cc.Key == "":
		return cc.Messages, nil
	case t.memory == nil:
		return nil, a2a.NewError(a2a.CodeUnavailable, "the caller context of task %s is in working memory at %q, and this agent has no working memory",
			t.Request.TaskID, cc.Key)
	}
	b, err := t.memory.Get(ctx, cc.Key)
	if err != nil {
		return nil, &a2a.Error{Code: a2a.CodeUnavailable, Retryable: true,
			Message: fmt.Sprintf("read the caller context of task %s at %q: %v", t.Request.TaskID, cc.Key, err)}
	}
	var v a2a.StoredCallerContext
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, a2a.NewError(a2a.CodeExecutionFailed, "decode the caller context of task %s at %q: %v", t.Request.TaskID, cc.Key, err)
	}
	return v.Messages, nil
}

// AllowsTool reports whether the task's caller lets the agent use tool for
// it: true unless the request narrows the tools (AllowedTools) to a list
// without it. The agent's own configuration applies besides: a caller
// narrows, never widens.
func (t *Task) AllowsTool(tool string) bool {
	return t.Request.AllowedTools == nil || slices.Contains(t.Request.AllowedTools, tool)
}

// ContextTokens is the token budget of the model context for the task:
// own (the agent's), or the caller's MaxContextTokens when it is smaller.
func (t *Task) ContextTokens(own int) int {
	if caller := t.Request.MaxContextTokens; caller > 0 && caller < own {
		return caller
	}
	return own
}

// DecodeInput decodes the request's structured input into v. Missing or
// ill-typed input is an INVALID_INPUT *a2a.Error naming the field.
func (t *Task) DecodeInput(v any) error {
	if len(t.Request.Input) == 0 {
		return a2a.NewError(a2a.CodeInvalidInput, "structured input is required for skill %q", t.Request.Skill)
	}
	if err := json.Unmarshal(t.Request.Input, v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			return a2a.NewError(a2a.CodeInvalidInput, "input field %q: want %s, got JSON %s", typ.Field, typ.Type, typ.Value)
		}
		return a2a.NewError(a2a.CodeInvalidInput, "input: %v", err)
	}
	return nil
}

// Progress publishes a working status with a text and a fraction done
// (0..1; a negative fraction publishes none) when the caller asked for
// status updates (Request.Stream); else it does nothing. It returns once the
// status is handed to the broker (status is advisory: no confirm awaited).
func (t *Task) Progress(ctx context.Context, text string, fraction float64) error {
	var progress *float64
	if fraction >= 0 {
		if fraction > 1 {
			return fmt.Errorf("agent: progress %v of task %q is outside 0..1", fraction, t.Request.TaskID)
		}
		progress = &fraction
	}
	if !t.Request.Stream {
		return nil
	}
	return t.publishStatus(ctx, t.status(text, progress))
}

// status is a working status of the task with an optional text and progress.
func (t *Task) status(text string, progress *float64) *a2a.TaskStatus {
	st := &a2a.TaskStatus{TaskID: t.Request.TaskID, Agent: t.agentName, State: a2a.TaskStateWorking, Time: t.now(), Progress: progress}
	if text != "" {
		st.Message = a2a.NewTextMessage(a2a.MessageRoleAgent, text)
	}
	return st
}

// Result is what a handler returns: a message and/or artifacts, plus the
// request/response contract's status, confidence and warnings; or a
// Question (Ask, AskAuth), which ends the handler's turn instead of the task.
type Result struct {
	Message   *a2a.Message
	Artifacts []*a2a.Artifact
	// Question, when set, ends this turn of the task waiting for the
	// caller's answer (TASK_STATE_INPUT_REQUIRED, or
	// TASK_STATE_AUTH_REQUIRED when it has an Auth): the agent publishes it
	// and acks the request, and nothing keeps running. The answer comes as
	// a new request for the same task (Task.Turn, Task.History), to any
	// replica. Status must be empty with a question.
	Question *a2a.Question
	// Status defaults to SUCCESS; PARTIAL still completes the task, ERROR fails it.
	Status a2a.ResultStatus
	// Confidence is how sure the handler is of the result, required by the
	// contract for SUCCESS and PARTIAL; a result without one is published
	// with DefaultConfidence (LOW).
	Confidence a2a.Confidence
	Warnings   []string
	TokensUsed int64
	// Extra is free-form metadata stored with the result.
	Extra map[string]any
}

// TextResult is a result whose message is one text part.
func TextResult(text string) *Result {
	return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, text)}
}

// Ask is a result that ends the handler's turn with a question for the
// caller (TASK_STATE_INPUT_REQUIRED), optionally offering options; the
// question is also the result's message. The caller's answer comes as the
// task's next turn (Task.Turn, Task.History, Task.Text).
func Ask(text string, options ...a2a.Option) *Result {
	return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, text), Question: &a2a.Question{Text: text, Options: options}}
}

// AskAuth is a result that ends the handler's turn asking the caller to
// authenticate (TASK_STATE_AUTH_REQUIRED): text says why, need names what
// is needed. The caller's answer (its credential, or word that it
// authenticated) comes as the task's next turn.
func AskAuth(text string, need a2a.AuthNeed) *Result {
	return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, text), Question: &a2a.Question{Text: text, Auth: &need}}
}

// state maps the contract status, or the question, onto the A2A task state.
func (r *Result) state() a2a.TaskState {
	switch {
	case r.Question != nil && r.Question.Auth != nil:
		return a2a.TaskStateAuthRequired
	case r.Question != nil:
		return a2a.TaskStateInputRequired
	}
	switch r.Status {
	case a2a.StatusError, a2a.StatusTimeout:
		return a2a.TaskStateFailed
	}
	return a2a.TaskStateCompleted
}
