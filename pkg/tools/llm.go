// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/a2abus/a2abus/pkg/llm"
)

// LLMTools returns the offered tools as the model port offers them
// (llm.Loop.Tools), in the order of Tools.
func (s *Set) LLMTools() []llm.Tool {
	out := make([]llm.Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = llm.Tool{Name: t.Name, Description: t.Description, Parameters: json.RawMessage(slices.Clone(t.Parameters))}
	}
	return out
}

// Run runs one tool call of the model; it is an llm.Dispatch. It is the one
// place a tool's error becomes a result the model reads: invalid JSON
// arguments, an unknown tool, an argument that breaks the schema, an
// *a2a.Error, an unknown task, working memory or the bus being down all
// come back as ErrorResult's {"error":{code,message,retryable}} with
// isError true; a success is the tool's JSON result.
func (s *Set) Run(ctx context.Context, call llm.ToolCall) (result string, isError bool) {
	out, err := s.Dispatch(ctx, call.Name, json.RawMessage(call.Arguments))
	if err != nil {
		return string(ErrorResult(err)), true
	}
	return string(out), false
}

// The Set's Run is the loop's dispatcher.
var _ llm.Dispatch = (*Set)(nil).Run

// DefaultMaxArgumentBytes bounds a tool call's arguments when BoundArguments
// is given no bound (config's llm.max_tool_argument_bytes has the same default).
const DefaultMaxArgumentBytes = 1 << 20

// BoundArguments returns d refusing the calls whose arguments are longer
// than maxBytes (0: DefaultMaxArgumentBytes) before anything parses or
// validates them: d is not called, and the model reads ErrorResult's
// INVALID_ARGUMENTS error (an *ArgumentError wrapping ErrArgumentsTooLarge)
// naming the size and the bound.
func BoundArguments(d llm.Dispatch, maxBytes int) llm.Dispatch {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxArgumentBytes
	}
	return func(ctx context.Context, call llm.ToolCall) (string, bool) {
		if n := len(call.Arguments); n > maxBytes {
			return string(ErrorResult(&ArgumentError{Tool: call.Name, Err: ErrArgumentsTooLarge, Message: fmt.Sprintf(
				"the arguments are %d bytes, more than the bound of %d bytes (llm.max_tool_argument_bytes); call it again with shorter arguments",
				n, maxBytes)})), true
		}
		return d(ctx, call)
	}
}
