// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

// A served LLM agent gets the caller's context instead of reading the
// session, and the caller narrows its tools and budget without widening
// them: a tool its YAML lacks stays out, a budget above its own is capped.
func TestLLMAgentTakesTheCallersContextAndNarrowing(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		l := newLLMWorld(t, w)
		l.helper()
		srv := llmtest.New(t, llmtest.Reply{Content: "Rolled back.", Expect: func(r llmtest.Request) error {
			if !slices.Equal(r.Tools, []string{"list_known_agents"}) {
				return fmt.Errorf("tools offered %v, want only list_known_agents", r.Tools)
			}
			if len(r.Messages) != 3 || !strings.Contains(r.Messages[1].Content, "Roll back on errors.") || strings.Contains(r.Messages[1].Content, "Fridays") {
				return fmt.Errorf("messages %+v, want the caller's one message as context", r.Messages)
			}
			return nil
		}})
		name := l.serve(delegateSpec, llmtest.Client(t, srv.URL, "gpt-test"))
		session := uuid.NewString()
		for _, turn := range []memory.Turn{{Role: "user", Content: "We deploy on Fridays."}, {Role: "assistant", Content: "Noted."},
			{Role: "user", Content: "Roll back on errors."}} {
			if _, err := w.Memory.AppendTurn(l.ctx, session, turn); err != nil {
				t.Fatal(err)
			}
		}
		tester := callers.Start(t, w, w.N("Tester"))
		out, err := tester.Call(l.ctx, caller.Request{Target: name, Skill: "relay", SessionID: session, Text: "What now?", Timeout: 15 * time.Second,
			CallerContext: &caller.ContextFilter{LastMessages: 1}, AllowedTools: []string{"list_known_agents", "task_status", "cancel_task"},
			MaxContextTokens: 1 << 20}, nil)
		if err != nil || out.Err() != nil || out.Result.Text() != "Rolled back." {
			t.Fatalf("outcome %+v, %v", out, err)
		}
		if md := out.Result.Metadata.Extra; md["contextTurnsBefore"] != 1.0 || md["contextTurnsAfter"] != 1.0 {
			t.Errorf("extra %v, want the one message of the caller's context", md)
		}
	})
}
