// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// invoke_agent's arguments of the caller's context per call: what of this
// conversation travels with the task (context), and what the called agent
// may use for it (max_context_tokens, allowed_tools, allow_nested_calls).
// The called agent's own configuration stays the ceiling: these narrow it,
// never widen it. Unlike an SDK call, a call made here forbids the agent's
// own calls to other agents unless allow_nested_calls is true.

// maxContextTokensArg bounds max_context_tokens.
const maxContextTokensArg = 1_000_000

// callerContextParams are the parameters invoke_agent adds for them.
func callerContextParams() []param {
	return []param{
		{name: "context", schema: map[string]any{
			"type": "object", "additionalProperties": false,
			"description": "Optional: send part of this conversation with the task, so the agent knows what it is about. " +
				"Omit it and the agent decides what it reads. {} sends the newest user and assistant messages that fit max_context_tokens.",
			"properties": map[string]any{
				"last_messages": map[string]any{"type": "integer", "minimum": 1, "maximum": a2a.MaxCallerContextMessages,
					"description": "Send at most the newest N messages that pass the other filters."},
				"roles": map[string]any{"type": "array", "uniqueItems": true, "maxItems": len(caller.ContextRoles),
					"items":       map[string]any{"type": "string", "enum": caller.ContextRoles},
					"description": "Send only messages of these roles; default user and assistant (notification: results notified here)."},
				"max_age_seconds": map[string]any{"type": "integer", "minimum": 1,
					"description": "Send only messages at most this many seconds old."},
			},
		}},
		{name: "max_context_tokens", schema: map[string]any{
			"type": "integer", "minimum": 1, "maximum": maxContextTokensArg,
			"description": "Optional token budget of the context: of what is sent (default 4000) and of the agent's own model " +
				"context for this task (it keeps its own budget when that is smaller).",
		}},
		{name: "allowed_tools", schema: map[string]any{
			"type": "array", "uniqueItems": true, "maxItems": a2a.MaxAllowedTools,
			"items":       map[string]any{"type": "string", "pattern": skillIDPattern},
			"description": "Optional: the only tools the agent may use for this task, of those it has ([] for none). Omit to leave its own.",
		}},
		{name: "allow_nested_calls", schema: map[string]any{
			"type": "boolean",
			"description": "true lets the agent call other agents for this task; default false (its calls are refused). " +
				"Set it when the agent must delegate: an orchestrator, a workflow, an agent that routes requests.",
		}},
	}
}

// callerContextArgs are their values.
type callerContextArgs struct {
	Context *struct {
		LastMessages  *float64 `json:"last_messages"`
		Roles         []string `json:"roles"`
		MaxAgeSeconds *float64 `json:"max_age_seconds"`
	} `json:"context"`
	// Integers are floats: JSON Schema counts 5.0 and 5e0 as integers.
	MaxContextTokens *float64 `json:"max_context_tokens"`
	AllowedTools     []string `json:"allowed_tools"`
	AllowNestedCalls bool     `json:"allow_nested_calls"`
}

// apply sets them on req: nested calls are forbidden unless allowed.
func (a *callerContextArgs) apply(req *caller.Request) {
	req.AllowNestedCalls = &a.AllowNestedCalls
	req.AllowedTools = a.AllowedTools
	if a.MaxContextTokens != nil {
		req.MaxContextTokens = int(*a.MaxContextTokens)
	}
	if c := a.Context; c != nil {
		f := &caller.ContextFilter{Roles: c.Roles}
		if c.LastMessages != nil {
			f.LastMessages = int(*c.LastMessages)
		}
		if c.MaxAgeSeconds != nil {
			f.MaxAge = time.Duration(*c.MaxAgeSeconds * float64(time.Second))
		}
		req.CallerContext = f
	}
}
