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
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// maxTimeoutSeconds is invoke_agent's largest timeout_seconds: the caller's maximum.
const maxTimeoutSeconds = int(caller.DefaultMaxTimeout / time.Second)

// maxWaitSeconds is invoke_agent's largest wait_timeout_seconds: the caller's maximum wait.
const maxWaitSeconds = int(caller.DefaultMaxWait / time.Second)

// invoke_agent's statuses.
const (
	// StatusSubmitted: the task is queued for the agent.
	StatusSubmitted = "submitted"
	// StatusAnswered: the answer to the agent's question was sent: the
	// task's next turn is queued for the agent.
	StatusAnswered = "answered"
	// StatusUnconfirmed: the bus did not confirm the task (caller.ErrOutcomeUnknown);
	// it is tracked all the same: its result, or a TIMEOUT, will be notified.
	StatusUnconfirmed = "unconfirmed"
)

var invokeAgentDef = definition{
	name:  "invoke_agent",
	needs: []string{"Caller"},
	description: "Ask another agent to perform one of its skills. By default the call returns at once with a taskId, " +
		"a memoryKey and a contextId while the agent works in the background (it may not be running yet: the task waits for it). " +
		"When the task ends, a notification arrives in this conversation; then call get_from_working_memory with " +
		"the memoryKey to read the result. With wait set to true the call instead returns when the task ends " +
		"(at the latest at its timeout), with its state and the start of its result. Use list_known_agents to find " +
		"agent names and skill ids. An agent may instead ask a question (state input_required): the task waits; " +
		"answer it with this tool, giving the task's task_id and your answer as message (agent_name and skill are " +
		"then not needed), or pick one of the question's options with option. To continue a conversation with an " +
		"agent, give a new task the contextId of an earlier one as context_id.",
	params: append([]param{
		{name: "agent_name", requiredWithout: "task_id", hint: agentNameHint, schema: map[string]any{
			"type": "string", "pattern": agentNamePattern,
			"description": "The agent to call, as listed by list_known_agents (case-insensitive). Required, unless task_id is given.",
		}},
		{name: "skill", requiredWithout: "task_id", hint: skillIDHint, schema: map[string]any{
			"type": "string", "pattern": skillIDPattern,
			"description": "The id of the skill to run, one of the agent's skills from list_known_agents. Required, unless task_id is given.",
		}},
		{name: "message", requiredWithout: "task_id", schema: map[string]any{
			"type": "string", "minLength": 1,
			"description": "The task for the agent, in plain language, with everything it needs to know; with task_id, " +
				"your answer to the agent's question. Required, unless task_id is given with option or input.",
		}},
		{name: "input", schema: map[string]any{
			"description": "Optional structured input for the skill: any JSON value the skill expects; with task_id, " +
				"a structured answer (the question's inputSchema says its shape, when it has one).",
		}},
		{name: "timeout_seconds", schema: map[string]any{
			"type": "integer", "minimum": 1, "maximum": maxTimeoutSeconds,
			"description": fmt.Sprintf("How long the agent has to answer once it started the task, 1 to %d seconds; omit it for the default.", maxTimeoutSeconds),
		}},
		{name: "wait_timeout_seconds", schema: map[string]any{
			"type": "integer", "minimum": 1, "maximum": maxWaitSeconds,
			"description": fmt.Sprintf("How long the task may wait in the agent's queue for the agent to start it (an on-demand "+
				"agent may take minutes to start), 1 to %d seconds; omit it for the agent's default (long for on-demand agents). "+
				"Past it the task ends EXPIRED_IN_QUEUE without running.", maxWaitSeconds),
		}},
		{name: "priority", schema: map[string]any{
			"type": "string", "enum": []string{string(a2a.PriorityHigh), string(a2a.PriorityNormal), string(a2a.PriorityLow)},
			"description": "The task's priority in the agent's queue; default normal.",
		}},
		{name: "wait", schema: map[string]any{
			"type": "boolean",
			"description": "true to wait for the task to end and get its result in this call's result; default false " +
				"(the result is notified later). Use it when you need the result to continue.",
		}},
		{name: "task_id", hint: "letters, digits, '_' or '-', at most 128", schema: map[string]any{
			"type": "string", "pattern": taskIDPattern,
			"description": "To answer the question of an agent whose task waits for input (its notification or task_status " +
				"says so): that task's taskId. The answer goes to the same task; omit it to start a new task.",
		}},
		{name: "option", hint: "a letter or digit, then up to 63 letters, digits, '_', '.' or '-'", schema: map[string]any{
			"type": "string", "pattern": skillIDPattern,
			"description": "With task_id: the id of one of the options the question offers, to pick it (message may then " +
				"be left out, or be that option's id or label).",
		}},
		{name: "context_id", hint: "letters, digits, '_', '.', ':' or '-', at most 128", schema: map[string]any{
			"type": "string", "pattern": contextIDPattern,
			"description": "The contextId of an earlier task (invoke_agent returns it) to start this task in the same " +
				"context: the agent gets that context's earlier requests and answers. Omit it for a new context.",
		}},
	}, callerContextParams()...), // callercontext.go
}

// invokeArgs are invoke_agent's arguments.
type invokeArgs struct {
	AgentName string          `json:"agent_name"`
	Skill     string          `json:"skill"`
	Message   string          `json:"message"`
	Input     json.RawMessage `json:"input"`
	// TimeoutSeconds is a float: JSON Schema counts 30.0 and 3e1 as integers.
	TimeoutSeconds *float64 `json:"timeout_seconds"`
	// WaitTimeoutSeconds bounds the wait in the queue (caller.Request.WaitTimeout).
	WaitTimeoutSeconds *float64 `json:"wait_timeout_seconds"`
	Priority           string   `json:"priority"`
	Wait               bool     `json:"wait"`
	callerContextArgs
	TaskID    string `json:"task_id"`
	Option    string `json:"option"`
	ContextID string `json:"context_id"`
}

// InvokeResult is invoke_agent's result.
type InvokeResult struct {
	TaskID    string `json:"taskId"`
	MemoryKey string `json:"memoryKey"`
	// ContextID is the task's context: give it as context_id to a later
	// task to continue the conversation.
	ContextID string `json:"contextId,omitempty"`
	// Status is StatusSubmitted, StatusAnswered or StatusUnconfirmed.
	Status string `json:"status"`
	// Turn is the task's turn: 0 (left out) for a new task, n for the n-th answer.
	Turn int `json:"turn,omitempty"`
	// Note tells the LLM how the result will come back.
	Note string `json:"note"`
	// State, for a call with wait, is the task's state when the call
	// returned (a State constant: completed, failed, timeout, … or pending
	// and working when it had not ended).
	State string `json:"state,omitempty"`
	// Result, for a call with wait, is the text of the task's result, cut
	// at MaxInlineResult characters (Truncated then says so).
	Result    string `json:"result,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Error, for a call with wait, is the task's failure.
	Error *TaskFailure `json:"error,omitempty"`
	// Question, for a call with wait whose turn ended with a question
	// (state input_required or auth_required), is what the agent asks.
	Question *Question `json:"question,omitempty"`
}

// invokeAgent checks the agent against Deps.AllowedAgents, resolves it (when
// a Resolver is set), starts the task and, with wait, waits for its outcome.
func (s *Set) invokeAgent(ctx context.Context, raw json.RawMessage) (any, error) {
	const tool = "invoke_agent"
	var args invokeArgs
	if err := decodeArgs(tool, raw, &args); err != nil {
		return nil, err
	}
	if args.TaskID != "" {
		return s.answerTask(ctx, args)
	}
	if args.Option != "" {
		return nil, &ArgumentError{Tool: tool, Path: "option", Message: `argument "option": it picks an option of a question: ` +
			"give it with the task_id of the task that asks"}
	}
	if err := s.checkAllowed(tool, args.AgentName); err != nil {
		return nil, err
	}
	if args.Wait && s.deps.Watcher == nil {
		return nil, &ArgumentError{Tool: tool, Path: "wait", Message: `argument "wait": waiting is not available here; ` +
			"omit it: the result will arrive as a notification in this conversation"}
	}
	target := args.AgentName
	if s.deps.Resolver != nil {
		canonical, err := s.deps.Resolver.Resolve(ctx, args.AgentName, args.Skill)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
		if err := s.checkAllowed(tool, canonical); err != nil {
			return nil, err
		}
		target = canonical
	}
	priority, err := a2a.ParsePriority(args.Priority)
	if err != nil {
		return nil, &ArgumentError{Tool: tool, Path: "priority", Message: fmt.Sprintf("argument %q: %v", "priority", err), Err: err}
	}
	if args.ContextID != "" {
		if err := a2a.ValidateContextID(args.ContextID); err != nil {
			return nil, &ArgumentError{Tool: tool, Path: "context_id", Message: fmt.Sprintf("argument %q: %v", "context_id", err), Err: err}
		}
	}
	req := caller.Request{
		Target: target, Skill: args.Skill, Text: args.Message, SessionID: s.deps.SessionID, Priority: priority, ContextID: args.ContextID,
	}
	if in := bytes.TrimSpace(args.Input); len(in) > 0 && !bytes.Equal(in, []byte("null")) {
		req.Input = in
	}
	if args.TimeoutSeconds != nil {
		req.Timeout = time.Duration(*args.TimeoutSeconds) * time.Second
	}
	if args.WaitTimeoutSeconds != nil {
		req.WaitTimeout = time.Duration(*args.WaitTimeoutSeconds) * time.Second
	}
	args.callerContextArgs.apply(&req) // callercontext.go
	inv, watch, err := s.start(ctx, req, args.Wait)
	if errors.Is(err, caller.ErrOutcomeUnknown) && inv.TaskID != "" {
		// The agent may get the task: a second invoke could run it twice.
		s.deps.Logger.Warn("invoke_agent: task sent, outcome unknown", zap.String("task", inv.TaskID), zap.Error(err))
		if watch != nil && args.Wait {
			return s.await(ctx, watch, StatusUnconfirmed), nil
		}
		s.release(watch)
		return InvokeResult{
			TaskID: inv.TaskID, MemoryKey: inv.MemoryKey, ContextID: inv.ContextID, Status: StatusUnconfirmed,
			Note: fmt.Sprintf("The bus did not confirm the task to agent '%s': it may or may not reach it. Do not invoke it "+
				"again: its result, or a TIMEOUT, will arrive as a notification in this conversation; then call "+
				"get_from_working_memory with key '%s'.", target, inv.MemoryKey),
		}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: invoke skill %q of %q: %w", tool, args.Skill, target, err)
	}
	if args.Wait {
		return s.await(ctx, watch, StatusSubmitted), nil
	}
	s.release(watch)
	return InvokeResult{
		TaskID: inv.TaskID, MemoryKey: inv.MemoryKey, ContextID: inv.ContextID, Status: StatusSubmitted,
		Note: fmt.Sprintf("Agent '%s' is working on it. Do not wait or poll: the result will arrive as a notification "+
			"in this conversation; then call get_from_working_memory with key '%s' to read it.", target, inv.MemoryKey),
	}, nil
}

// checkAllowed refuses an agent Deps.AllowedAgents does not list, with a
// FORBIDDEN *a2a.Error naming the allowed ones.
func (s *Set) checkAllowed(tool, agent string) error {
	if s.allowed == nil || s.allowed[strings.ToLower(agent)] {
		return nil
	}
	if len(s.allowed) == 0 {
		return fmt.Errorf("%s: %w", tool, a2a.NewError(a2a.CodeForbidden, "no agent may be invoked here (asked for %q)", agent))
	}
	return fmt.Errorf("%s: %w", tool, a2a.NewError(a2a.CodeForbidden, "agent %q may not be invoked here; the agents allowed are: %s",
		agent, strings.Join(s.deps.AllowedAgents, ", ")))
}

// start invokes req: watched when a Watcher is at hand and the call waits
// or its task can be followed (see follow), else through Invoke.
func (s *Set) start(ctx context.Context, req caller.Request, wait bool) (caller.Invocation, *caller.Watch, error) {
	if s.deps.Watcher != nil && (wait || s.tasks.canFollow()) {
		return s.deps.Watcher.InvokeWatched(ctx, req)
	}
	inv, err := s.deps.Caller.Invoke(ctx, req)
	return inv, nil, err
}

// release hands a watched task over to a follower.
func (s *Set) release(w *caller.Watch) {
	if w != nil {
		s.follow(w)
	}
}

// waitGrace is how long past its deadline a waiting invoke_agent waits for
// the task's TIMEOUT (the caller's sweeper stores it within a second or two).
const waitGrace = 10 * time.Second

// await waits for the outcome of a watched task, at most until its
// deadline and waitGrace or the end of ctx, and returns it inline. A task
// that has not ended by then is handed over to a follower and reported with
// its state so far.
func (s *Set) await(ctx context.Context, w *caller.Watch, status string) InvokeResult {
	inv := w.Invocation()
	wctx, cancel := context.WithDeadline(ctx, inv.Deadline.Add(waitGrace))
	defer cancel()
	out, err := w.Wait(wctx, s.onStatus(inv.TaskID))
	r := InvokeResult{TaskID: inv.TaskID, MemoryKey: inv.MemoryKey, ContextID: inv.ContextID, Status: status, Turn: inv.Turn}
	if out == nil {
		r.State = StatePending
		if st := s.tasks.status(inv.TaskID); st != nil {
			r.State = stateName(st.State)
		}
		if wctx.Err() == nil {
			s.deps.Logger.Warn("invoke_agent: wait for the outcome failed", zap.String("task", inv.TaskID), zap.Error(err))
		}
		s.follow(w)
		r.Note = fmt.Sprintf("Agent '%s' has not finished the task yet (state=%s) and this call stopped waiting. Do not "+
			"invoke it again: the result will arrive as a notification in this conversation; then call "+
			"get_from_working_memory with key '%s' to read it.", inv.Target, r.State, inv.MemoryKey)
		return r
	}
	w.Close()
	s.tasks.forget(inv.TaskID)
	res := out.Result
	r.State, r.Turn = finalState(res), out.Turn
	if out.WaitingForInput() {
		r.Question = questionOf(res)
		r.Note = questionNote(inv.Target, inv.TaskID, inv.MemoryKey, r.Question)
		return r
	}
	s.tasks.markDelivered(inv.TaskID)
	if res.Error != nil {
		r.Error = &TaskFailure{Code: string(res.Error.Code), Message: truncate(res.Error.Message, MaxInlineResult), Retryable: res.Error.Retryable}
	} else {
		text := resultText(res)
		r.Result, r.Truncated = truncate(text, MaxInlineResult), utf8.RuneCountInString(text) > MaxInlineResult
	}
	r.Note = fmt.Sprintf("The task has ended (state=%s). The full result, with all its artifacts and metadata, is at "+
		"key '%s': read it with get_from_working_memory if you need more than shown here. A notification of this "+
		"task will still arrive in this conversation; it repeats this outcome.", r.State, inv.MemoryKey)
	return r
}
