// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
)

// TestToolArgumentsPastTheBoundAreRefused: a tool call whose arguments
// (valid JSON, padded) pass MaxToolArgumentBytes is not run: the model
// reads INVALID_ARGUMENTS naming llm.max_tool_argument_bytes, and the
// stored tool turn is marked failed.
func TestToolArgumentsPastTheBoundAreRefused(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		padded := `{"query":"x"` + strings.Repeat(" ", 2000) + `}`
		srv := llmtest.New(t,
			llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", padded)}},
			llmtest.Reply{Content: "too long", Expect: lastToolHas("1024 bytes (llm.max_tool_argument_bytes)")},
		)
		s := r.open(t, srv, r.caller, func(o *chat.Options) { o.MaxToolArgumentBytes = 1024 })
		user, err := s.Send(ctx, "list them", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user.Seq)
		if err != nil || settled.Err != nil || len(settled.Answers) != 1 || settled.Answers[0].Content != "too long" {
			t.Fatalf("settled %+v, %v", settled, err)
		}
		failed := 0
		for _, tr := range r.turns(t) {
			if tr.Meta[chat.MetaKind] == chat.KindToolResult && tr.Meta[chat.MetaToolError] == "true" && strings.Contains(tr.Content, "INVALID_ARGUMENTS") {
				failed++
			}
		}
		if failed != 1 {
			t.Fatalf("%d failed tool turns with INVALID_ARGUMENTS, want 1", failed)
		}
	})
}
