package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// maxTimeoutSeconds is invoke_agent's largest timeout_seconds: the caller's maximum.
const maxTimeoutSeconds = int(caller.DefaultMaxTimeout / time.Second)

// StatusSubmitted is invoke_agent's status: the task is queued for the agent.
const StatusSubmitted = "submitted"

var invokeAgentDef = definition{
	name: "invoke_agent",
	description: "Ask another agent to perform one of its skills. The call returns at once with a task_id and a " +
		"memory_key while the agent works in the background (it may not be running yet: the task waits for it). " +
		"When the task ends, a notification arrives in this conversation; then call get_from_working_memory with " +
		"the memory_key to read the result. Use list_known_agents to find agent names and skill ids.",
	params: []param{
		{name: "agent_name", required: true, hint: agentNameHint, schema: map[string]any{
			"type": "string", "pattern": agentNamePattern,
			"description": "The agent to call, as listed by list_known_agents (case-insensitive).",
		}},
		{name: "skill", required: true, hint: skillIDHint, schema: map[string]any{
			"type": "string", "pattern": skillIDPattern,
			"description": "The id of the skill to run, one of the agent's skills from list_known_agents.",
		}},
		{name: "message", required: true, schema: map[string]any{
			"type": "string", "minLength": 1,
			"description": "The task for the agent, in plain language, with everything it needs to know.",
		}},
		{name: "input", schema: map[string]any{
			"description": "Optional structured input for the skill: any JSON value the skill expects.",
		}},
		{name: "timeout_seconds", schema: map[string]any{
			"type": "integer", "minimum": 1, "maximum": maxTimeoutSeconds,
			"description": fmt.Sprintf("How long the agent has to answer, 1 to %d seconds; omit it for the default.", maxTimeoutSeconds),
		}},
		{name: "priority", schema: map[string]any{
			"type": "string", "enum": []string{string(a2a.PriorityHigh), string(a2a.PriorityNormal), string(a2a.PriorityLow)},
			"description": "The task's priority in the agent's queue; default normal.",
		}},
	},
}

// invokeArgs are invoke_agent's arguments.
type invokeArgs struct {
	AgentName string          `json:"agent_name"`
	Skill     string          `json:"skill"`
	Message   string          `json:"message"`
	Input     json.RawMessage `json:"input"`
	// TimeoutSeconds is a float: JSON Schema counts 30.0 and 3e1 as integers.
	TimeoutSeconds *float64 `json:"timeout_seconds"`
	Priority       string   `json:"priority"`
}

// InvokeResult is invoke_agent's result.
type InvokeResult struct {
	TaskID    string `json:"task_id"`
	MemoryKey string `json:"memory_key"`
	Status    string `json:"status"`
	// Note tells the LLM how the result will come back.
	Note string `json:"note"`
}

// invokeAgent resolves the agent (when a Resolver is set) and starts the task.
func (s *Set) invokeAgent(ctx context.Context, raw json.RawMessage) (any, error) {
	const tool = "invoke_agent"
	var args invokeArgs
	if err := decodeArgs(tool, raw, &args); err != nil {
		return nil, err
	}
	target := args.AgentName
	if s.deps.Resolver != nil {
		canonical, err := s.deps.Resolver.Resolve(args.AgentName, args.Skill)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
		target = canonical
	}
	priority, err := a2a.ParsePriority(args.Priority)
	if err != nil {
		return nil, &ArgumentError{Tool: tool, Path: "priority", Message: fmt.Sprintf("argument %q: %v", "priority", err), Err: err}
	}
	req := caller.Request{
		Target: target, Skill: args.Skill, Text: args.Message, SessionID: s.deps.SessionID, Priority: priority,
	}
	if in := bytes.TrimSpace(args.Input); len(in) > 0 && !bytes.Equal(in, []byte("null")) {
		req.Input = in
	}
	if args.TimeoutSeconds != nil {
		req.Timeout = time.Duration(*args.TimeoutSeconds) * time.Second
	}
	inv, err := s.deps.Caller.Invoke(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: invoke skill %q of %q: %w", tool, args.Skill, target, err)
	}
	return InvokeResult{
		TaskID: inv.TaskID, MemoryKey: inv.MemoryKey, Status: StatusSubmitted,
		Note: fmt.Sprintf("Agent '%s' is working on it. Do not wait or poll: the result will arrive as a notification "+
			"in this conversation; then call get_from_working_memory with key '%s' to read it.", target, inv.MemoryKey),
	}, nil
}
