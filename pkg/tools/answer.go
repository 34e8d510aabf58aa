// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// Replier answers a task that waits for input (*caller.Caller implements
// it): invoke_agent with task_id needs it.
type Replier interface {
	Reply(ctx context.Context, r caller.Reply) (caller.Invocation, error)
	// ReplyWatched is Reply with the task watched from before the answer's
	// publish, so its next turn can be waited for or followed.
	ReplyWatched(ctx context.Context, r caller.Reply) (caller.Invocation, *caller.Watch, error)
}

// Question is what an agent asks while its task waits for input, as
// invoke_agent (with wait) and task_status show it.
type Question struct {
	// Text is the question.
	Text string `json:"text"`
	// Options are the answers the agent offers: answer with invoke_agent's
	// option set to one's id (or that id or label as the message).
	Options []a2a.Option `json:"options,omitempty"`
	// InputSchema is the JSON Schema of a structured answer (invoke_agent's
	// input), when the agent expects one.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Auth names what to authenticate with, for state auth_required.
	Auth *a2a.AuthNeed `json:"auth,omitempty"`
	// AnswerBy is when the answer is due (RFC 3339, UTC): past it the task ends timeout.
	AnswerBy string `json:"answerBy,omitempty"`
}

// questionOf is the question of a stored result that waits for input.
func questionOf(res *caller.StoredResult) *Question {
	q := &Question{}
	if res.Question != nil {
		q.Text, q.Options, q.InputSchema, q.Auth = res.Question.Text, res.Question.Options, res.Question.InputSchema, res.Question.Auth
	}
	if q.Text == "" {
		q.Text = a2a.MessageText(res.Message)
	}
	if !res.AnswerBy.IsZero() {
		q.AnswerBy = res.AnswerBy.UTC().Format(time.RFC3339)
	}
	return q
}

// questionNote tells the model what to do about a question: answer it
// with invoke_agent and task_id, ask the user, or cancel the task.
func questionNote(agent, taskID, memoryKey string, q *Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Agent '%s' asks a question: task %s is not over, it waits for an answer", agent, taskID)
	if q != nil && q.AnswerBy != "" {
		fmt.Fprintf(&b, " until %s (then it ends as timeout)", q.AnswerBy)
	}
	fmt.Fprintf(&b, ". If this conversation already tells you the answer, call invoke_agent with task_id '%s' and the answer as message", taskID)
	if q != nil && len(q.Options) > 0 {
		b.WriteString(" (or option set to the id of one of the options)")
	}
	if q != nil && len(q.InputSchema) > 0 {
		b.WriteString(" and input shaped as its inputSchema")
	}
	fmt.Fprintf(&b, "; otherwise ask the user and pass their answer on the same way. To drop the task, call cancel_task. "+
		"The question is also stored at key '%s'.", memoryKey)
	return b.String()
}

// answerTask answers the question of a task of this conversation that
// waits for input (invoke_agent with task_id): through Replier.Reply, whose
// refusals (TASK_FINISHED, INVALID_STATE, FORBIDDEN, INVALID_INPUT) come
// back as they are, with their codes.
func (s *Set) answerTask(ctx context.Context, args invokeArgs) (any, error) {
	const tool = "invoke_agent"
	argErr := func(path, msg string) error {
		return &ArgumentError{Tool: tool, Path: path, Message: fmt.Sprintf("argument %q: %s", path, msg)}
	}
	if s.deps.Replier == nil || s.deps.Tasks == nil {
		return nil, argErr("task_id", "answering a task's question is not available here; start a new task instead")
	}
	input := bytes.TrimSpace(args.Input)
	if bytes.Equal(input, []byte("null")) {
		input = nil
	}
	switch {
	case args.Message == "" && args.Option == "" && len(input) == 0:
		return nil, &ArgumentError{Tool: tool, Path: "message", Message: fmt.Sprintf(
			"missing required argument %q: give your answer to the question of task '%s' as message (or option, or input)", "message", args.TaskID)}
	case args.ContextID != "":
		return nil, argErr("context_id", "an answer stays in its task's context; omit context_id with task_id")
	case args.Priority != "":
		return nil, argErr("priority", "a task keeps the priority it was invoked with; omit priority with task_id")
	}
	info, err := s.deps.Tasks.Task(ctx, args.TaskID)
	switch {
	case errors.Is(err, caller.ErrUnknownTask):
		info = nil // not this caller's: Reply says whose (FORBIDDEN) or that nobody's
	case err != nil:
		return nil, fmt.Errorf("%s: read task %q: %w", tool, args.TaskID, err)
	case info.SessionID != s.deps.SessionID:
		return nil, &TaskError{Tool: tool, TaskID: args.TaskID, Err: ErrOtherSession, Message: fmt.Sprintf(
			"task '%s' belongs to another conversation: only the tasks started in this conversation can be answered here", args.TaskID)}
	default:
		if args.AgentName != "" && !strings.EqualFold(args.AgentName, info.Target) {
			return nil, argErr("agent_name", fmt.Sprintf("task '%s' is agent '%s''s, not '%s''s: omit agent_name with task_id", args.TaskID, info.Target, args.AgentName))
		}
		if args.Skill != "" && args.Skill != info.Skill {
			return nil, argErr("skill", fmt.Sprintf("task '%s' runs skill '%s', not '%s': omit skill with task_id", args.TaskID, info.Skill, args.Skill))
		}
		if err := s.checkAllowed(tool, info.Target); err != nil {
			return nil, err
		}
	}
	r := caller.Reply{TaskID: args.TaskID, Text: args.Message, Input: json.RawMessage(input), Option: args.Option}
	if args.TimeoutSeconds != nil {
		r.Timeout = time.Duration(*args.TimeoutSeconds) * time.Second
	}
	var (
		inv   caller.Invocation
		watch *caller.Watch
	)
	if info != nil && (args.Wait || s.tasks.canFollow()) {
		inv, watch, err = s.deps.Replier.ReplyWatched(ctx, r)
	} else {
		inv, err = s.deps.Replier.Reply(ctx, r)
	}
	agent := inv.Target
	if info != nil {
		agent = info.Target
	}
	switch {
	case errors.Is(err, caller.ErrOutcomeUnknown) && inv.TaskID != "":
		s.deps.Logger.Warn("invoke_agent: answer sent, outcome unknown", zap.String("task", inv.TaskID), zap.Error(err))
		if watch != nil && args.Wait {
			return s.await(ctx, watch, StatusUnconfirmed), nil
		}
		s.release(watch)
		return InvokeResult{TaskID: inv.TaskID, MemoryKey: inv.MemoryKey, ContextID: inv.ContextID, Status: StatusUnconfirmed, Turn: inv.Turn,
			Note: fmt.Sprintf("The bus did not confirm the answer to agent '%s': it may or may not reach it. Do not answer again: "+
				"the task's result, its next question or a TIMEOUT will arrive as a notification in this conversation.", agent)}, nil
	case errors.Is(err, caller.ErrUnknownTask):
		return nil, s.unknownTask(tool, args.TaskID)
	case err != nil:
		return nil, fmt.Errorf("%s: answer task %q: %w", tool, args.TaskID, err)
	case args.Wait && watch != nil:
		return s.await(ctx, watch, StatusAnswered), nil
	}
	s.release(watch)
	return InvokeResult{TaskID: inv.TaskID, MemoryKey: inv.MemoryKey, ContextID: inv.ContextID, Status: StatusAnswered, Turn: inv.Turn,
		Note: fmt.Sprintf("Agent '%s' got the answer and goes on with task %s (turn %d). Do not wait or poll: its result, or its "+
			"next question, will arrive as a notification in this conversation; then call get_from_working_memory with key '%s'.",
			agent, inv.TaskID, inv.Turn, inv.MemoryKey)}, nil
}
