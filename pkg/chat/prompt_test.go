// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/llm"
)

// TestDefaultPromptKeepsAgentsInternal: with no chat.system_prompt, the
// model is told to say what work is being done rather than which internal
// agent does it, and to name an agent only when the user asks — the
// inter-agent contract's "do not expose internal agent architecture
// unnecessarily" — and no longer to say which agent a result came from.
func TestDefaultPromptKeepsAgentsInternal(t *testing.T) {
	w := testworld.Embedded(t)
	r := newRig(t, w)
	srv := llmtest.New(t, llmtest.Reply{Content: "hello", Expect: func(req llmtest.Request) error {
		sys := req.Messages[0]
		switch {
		case sys.Role != llm.RoleSystem:
			return fmt.Errorf("the first message is %s", sys.Role)
		case !strings.Contains(sys.Content, "Do not expose the internal agent architecture unnecessarily"),
			!strings.Contains(sys.Content, "Name an agent only when the user asks which one answered"),
			!strings.Contains(sys.Content, "the user's next message is the answer: pass it on the same way, with invoke_agent and that task_id"),
			strings.Contains(sys.Content, "saying which agent it came from"),
			strings.Contains(sys.Content, "what you asked and of whom"):
			return fmt.Errorf("the system prompt:\n%s", sys.Content)
		}
		return nil
	}})
	s := r.open(t, srv, r.caller, nil)
	turn, err := s.Send(timeout(t), "hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans, err := s.WaitAnswer(timeout(t), turn.Seq); err != nil || ans.Content != "hello" {
		t.Fatalf("%v %+v", err, ans)
	}
}
