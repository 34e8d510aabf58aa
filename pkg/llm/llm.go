// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package llm is a2abus's port to a language model: one Chat Completions
// round trip (Client.Complete) in a small provider-neutral shape — messages,
// tool definitions, tool calls and token usage. OpenAI (openai.go) speaks it
// to any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server,
// LiteLLM); tests use internal/llmtest's scripted server.
package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Sentinel errors of a completion.
var (
	// ErrNotConfigured: no endpoint (llm.base_url) or model (llm.model) is set.
	ErrNotConfigured = errors.New("llm: not configured")
	// ErrUnavailable: the endpoint could not be reached, or kept failing
	// (429, 5xx) after its retries.
	ErrUnavailable = errors.New("llm: model unavailable")
	// ErrRejected: the endpoint refused the request (4xx other than 429):
	// a bad key, an unknown model, a request too large.
	ErrRejected = errors.New("llm: request rejected")
	// ErrBadResponse: the endpoint answered with no choice or a malformed one.
	ErrBadResponse = errors.New("llm: bad response")
	// ErrResponseTooLarge: the endpoint's answer was longer than the bound
	// (Options.MaxResponseBytes); see *ResponseTooLargeError.
	ErrResponseTooLarge = errors.New("llm: response too large")
)

// Message is one message of a conversation sent to or received from the model.
type Message struct {
	// Role is RoleSystem, RoleUser, RoleAssistant or RoleTool.
	Role string `json:"role"`
	// Content is the text (may be empty for an assistant message with tool calls).
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID names the call a RoleTool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolCall is one function call the model asks for.
type ToolCall struct {
	// ID identifies the call; the tool message answering it repeats it.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments, as the model wrote it
	// (possibly invalid JSON: the tool reports that back to the model).
	Arguments string `json:"arguments"`
}

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
}

// Request is one completion request. The model, token bound and
// temperature come from the client's configuration unless set here.
type Request struct {
	Messages []Message
	Tools    []Tool
	// MaxTokens overrides the client's bound on the completion when > 0.
	MaxTokens int
}

// Usage is the token count of one completion, as the endpoint reported it.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Response is the model's answer: one assistant message.
type Response struct {
	Message Message
	Usage   Usage
	// Model is the model that answered, as the endpoint named it.
	Model string
	// FinishReason is the endpoint's finish_reason (stop, tool_calls, length, …).
	FinishReason string
}

// Client completes conversations. Implementations are safe for concurrent use.
type Client interface {
	// Complete sends req and returns the model's message. Errors wrap
	// ErrUnavailable, ErrRejected or ErrBadResponse and name the endpoint
	// (never the key); ctx bounds the whole call, retries included.
	Complete(ctx context.Context, req Request) (*Response, error)
}

// EstimateTokens is the rough token count of text used where the endpoint
// reports none: a quarter of its bytes, rounded up (as the context filter's
// builder counts).
func EstimateTokens(text string) int { return (len(text) + 3) / 4 }

// UsageOf is the usage of one completion: as the endpoint reported it
// (TotalTokens filled in from its parts when only those came), else
// estimated (EstimateTokens) from the request's messages and the answer, with
// estimated true.
func UsageOf(req Request, resp *Response) (u Usage, estimated bool) {
	u = resp.Usage
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if u.TotalTokens > 0 {
		return u, false
	}
	u.PromptTokens = estimateMessages(req.Messages)
	u.CompletionTokens = estimateMessages([]Message{resp.Message})
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u, true
}

// estimateMessages estimates the tokens of msgs, tool calls included.
func estimateMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateTokens(m.Content)
		for _, c := range m.ToolCalls {
			n += EstimateTokens(c.Name + c.Arguments)
		}
	}
	return n
}
