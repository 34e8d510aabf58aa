// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llm_test

import (
	"context"
	"testing"

	"github.com/a2abus/a2abus/pkg/llm"
)

// fixedClient answers every request with resp.
type fixedClient struct{ resp llm.Response }

func (f fixedClient) Complete(context.Context, llm.Request) (*llm.Response, error) {
	r := f.resp
	return &r, nil
}

// Usage is what the endpoint reported (its total made of its parts when it
// sent only those), or, when it reported none, an estimate (a quarter of the
// bytes of the request's messages and of the answer) flagged as such.
func TestUsageReportedOrEstimated(t *testing.T) {
	req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "12345678"}}} // 2 tokens
	answer := llm.Message{Role: llm.RoleAssistant, Content: "abcd", ToolCalls: []llm.ToolCall{{Name: "ab", Arguments: "{}"}}}
	u, est := llm.UsageOf(req, &llm.Response{Message: answer})
	if !est || u != (llm.Usage{PromptTokens: 2, CompletionTokens: 2, TotalTokens: 4}) {
		t.Fatalf("no usage reported: %+v, estimated %v; want 2+2, estimated", u, est)
	}
	u, est = llm.UsageOf(req, &llm.Response{Message: answer, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5}})
	if est || u.TotalTokens != 15 {
		t.Fatalf("parts reported: %+v, estimated %v; want a total of 15, reported", u, est)
	}
	out, err := llm.Loop{Client: fixedClient{llm.Response{Message: llm.Message{Content: "abcd"}}}}.Run(t.Context(), req.Messages)
	if err != nil || !out.Estimated || out.Usage.TotalTokens != 3 {
		t.Fatalf("loop over an endpoint reporting no usage: %+v, %v; want 3 tokens, estimated", out, err)
	}
}
