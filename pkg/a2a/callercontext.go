// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"fmt"
	"time"
)

// The caller's context per call. A caller may send the part of its own
// conversation it chooses (TaskRequest.CallerContext) and narrow what the
// callee may use for the task: its tools (TaskRequest.AllowedTools) and the
// token budget of its model's context (TaskRequest.MaxContextTokens). The
// callee's own configuration stays the ceiling: a caller can narrow, never
// widen. docs/call-safety.md describes the rules.

// CallerContext is the slice of the caller's conversation that travels
// with a task: inline (Messages), or, when it would not fit the message
// size limit, stored in working memory at Key and read by the agent.
type CallerContext struct {
	// Messages are the chosen messages of the caller's conversation, oldest
	// first; empty when they went by reference (Key).
	Messages []ContextMessage `json:"messages,omitempty"`
	// Key, when set, is the working-memory key the messages are stored at
	// (the JSON of {"messages": [...]}), because they did not fit the
	// request.
	Key string `json:"key,omitempty"`
	// Count is how many messages were chosen, inline or at Key.
	Count int `json:"count,omitempty"`
}

// StoredCallerContext is the JSON stored at CallerContext.Key.
type StoredCallerContext struct {
	Messages []ContextMessage `json:"messages"`
}

// ContextMessage is one message of a caller's conversation.
type ContextMessage struct {
	// Role is who spoke: user, assistant, system, tool or notification
	// (an agent's answer notified into the conversation). Required.
	Role string `json:"role"`
	// Text is what was said.
	Text string `json:"text"`
	// Time is when it was said, when known.
	Time time.Time `json:"time,omitzero"`
}

// Bounds of the caller's context and narrowing.
const (
	// MaxCallerContextMessages bounds CallerContext.Messages.
	MaxCallerContextMessages = 256
	// MaxAllowedTools bounds TaskRequest.AllowedTools.
	MaxAllowedTools = 64
	// maxContextKeyBytes bounds CallerContext.Key.
	maxContextKeyBytes = 512
	// maxContextRoleBytes bounds ContextMessage.Role.
	maxContextRoleBytes = 32
)

// validateCallerContext checks a request's caller context and narrowing.
func (r *TaskRequest) validateCallerContext() error {
	if r.MaxContextTokens < 0 {
		return fieldErr("maxContextTokens", ErrInvalidField, fmt.Sprintf("must not be negative, got %d", r.MaxContextTokens))
	}
	if len(r.AllowedTools) > MaxAllowedTools {
		return fieldErr("allowedTools", ErrInvalidField, fmt.Sprintf("at most %d tools, got %d", MaxAllowedTools, len(r.AllowedTools)))
	}
	for i, tool := range r.AllowedTools {
		if err := ValidateToolName(tool); err != nil {
			return nameErr(fmt.Sprintf("allowedTools[%d]", i), err)
		}
	}
	c := r.CallerContext
	if c == nil {
		return nil
	}
	switch {
	case len(c.Messages) > MaxCallerContextMessages:
		return fieldErr("callerContext.messages", ErrInvalidField, fmt.Sprintf("at most %d messages, got %d", MaxCallerContextMessages, len(c.Messages)))
	case len(c.Key) > maxContextKeyBytes:
		return fieldErr("callerContext.key", ErrInvalidField, fmt.Sprintf("at most %d bytes, got %d", maxContextKeyBytes, len(c.Key)))
	case c.Count < 0:
		return fieldErr("callerContext.count", ErrInvalidField, fmt.Sprintf("must not be negative, got %d", c.Count))
	}
	for i, m := range c.Messages {
		if m.Role == "" || len(m.Role) > maxContextRoleBytes {
			return fieldErr(fmt.Sprintf("callerContext.messages[%d].role", i), ErrInvalidField,
				fmt.Sprintf("required, at most %d bytes, got %q", maxContextRoleBytes, m.Role))
		}
	}
	return nil
}

// ValidateToolName reports whether name can be a tool's name: the rule of
// a skill id (a letter or digit, then up to 63 letters, digits, '_', '.'
// or '-'), which every tool of the project follows (invoke_agent, …).
func ValidateToolName(name string) error {
	return matchID("tool name", name, skillIDPattern)
}
