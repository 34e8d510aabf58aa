// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrMaxToolRounds: the model still asked for tools after Loop.MaxRounds rounds.
var ErrMaxToolRounds = errors.New("llm: too many tool rounds")

// Dispatch runs one tool call the model asked for and returns the text fed
// back to it; isError marks a failed call whose text tells the model what
// went wrong (a tool error is a result the model can act on, not a failure
// of the loop).
type Dispatch func(ctx context.Context, call ToolCall) (result string, isError bool)

// Loop runs the tool loop the chat loop and LLM-backed agents share: ask
// the model; while it asks for tools, run them and ask again with their
// results; end with its first message that asks for none.
type Loop struct {
	// Client is the model. Required.
	Client Client
	// Tools are offered on every request; none means a plain completion.
	Tools []Tool
	// Dispatch runs the tool calls. Required when Tools is not empty.
	Dispatch Dispatch
	// MaxRounds bounds the requests that ask for tools; 0 means 8.
	MaxRounds int
	// MaxTokens bounds each completion when > 0 (else the client's bound).
	MaxTokens int
	// OnStep, when set, receives each finished step in order — an assistant
	// message and the results of all its tool calls, or the final message
	// alone — so the caller can store whole steps only; an error stops the loop.
	OnStep func(ctx context.Context, step []Message) error
	// BeforeRequest, when set, may refuse the next request (a token budget
	// spent, for one): its error stops the loop before the model is asked.
	BeforeRequest func(used Usage) error
}

// Outcome is what one Run produced.
type Outcome struct {
	// Messages are the new messages in order: assistant messages with tool
	// calls, tool results, then the final assistant message.
	Messages []Message
	// Final is the final assistant message's text.
	Final string
	// Usage sums the usage of every request (UsageOf: estimated where the
	// endpoint reported none, and then Estimated is true).
	Usage     Usage
	Estimated bool
	// Requests counts the model requests made.
	Requests int
	// ToolCalls names the tools called, in order.
	ToolCalls []string
	// Model is the model that answered last.
	Model string
}

// defaultMaxRounds bounds tool rounds when Loop.MaxRounds is 0.
const defaultMaxRounds = 8

// Run runs the loop from history (system prompt first, if any). On an
// error the Outcome holds the steps finished before it.
func (l Loop) Run(ctx context.Context, history []Message) (*Outcome, error) {
	if l.Client == nil {
		return nil, fmt.Errorf("%w: the loop has no client", ErrNotConfigured)
	}
	if len(l.Tools) > 0 && l.Dispatch == nil {
		return nil, fmt.Errorf("%w: tools without a dispatcher", ErrNotConfigured)
	}
	rounds := l.MaxRounds
	if rounds <= 0 {
		rounds = defaultMaxRounds
	}
	out := &Outcome{}
	msgs := append([]Message(nil), history...)
	for {
		if l.BeforeRequest != nil {
			if err := l.BeforeRequest(out.Usage); err != nil {
				return out, err
			}
		}
		req := Request{Messages: msgs, Tools: l.Tools, MaxTokens: l.MaxTokens}
		resp, err := l.Client.Complete(ctx, req)
		if err != nil {
			return out, err
		}
		out.Requests++
		out.Model = resp.Model
		u, estimated := UsageOf(req, resp)
		out.Usage.PromptTokens += u.PromptTokens
		out.Usage.CompletionTokens += u.CompletionTokens
		out.Usage.TotalTokens += u.TotalTokens
		out.Estimated = out.Estimated || estimated
		msg := resp.Message
		msg.Role = RoleAssistant
		if len(msg.ToolCalls) == 0 {
			if err := l.step(ctx, out, []Message{msg}); err != nil {
				return out, err
			}
			out.Final = msg.Content
			return out, nil
		}
		if out.Requests > rounds {
			return out, fmt.Errorf("%w: the model asked for tools (%s) after %d rounds", ErrMaxToolRounds, msg.ToolCalls[0].Name, rounds)
		}
		step := []Message{msg}
		for _, call := range msg.ToolCalls {
			result, _ := l.dispatch(ctx, call)
			out.ToolCalls = append(out.ToolCalls, call.Name)
			step = append(step, Message{Role: RoleTool, ToolCallID: call.ID, Content: result})
		}
		if err := ctx.Err(); err != nil { // stopped while the tools ran: the step is not stored half-done
			return out, err
		}
		if err := l.step(ctx, out, step); err != nil {
			return out, err
		}
		msgs = append(msgs, step...)
	}
}

// dispatch runs call. With no Dispatch (no tools offered) a call the
// model made up anyway is answered with an error it can read (shaped as
// tools.ErrorResult's), not a panic.
func (l Loop) dispatch(ctx context.Context, call ToolCall) (string, bool) {
	if l.Dispatch == nil {
		msg, _ := json.Marshal(fmt.Sprintf("no tools are available here: %q cannot be called; answer without tools", call.Name))
		return `{"error":{"code":"NOT_FOUND","message":` + string(msg) + `,"retryable":false}}`, true
	}
	return l.Dispatch(ctx, call)
}

// step records a finished step.
func (l Loop) step(ctx context.Context, out *Outcome, step []Message) error {
	if l.OnStep != nil {
		if err := l.OnStep(ctx, step); err != nil {
			return err
		}
	}
	out.Messages = append(out.Messages, step...)
	return nil
}
