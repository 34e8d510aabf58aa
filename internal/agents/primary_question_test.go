// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/node"
)

var waitingTask = regexp.MustCompile(`"taskId":"([^"]+)"`)

// TestPrimaryAsksItsCaller: the Primary's model starts SampleAgent's
// confirm skill and waits; its question comes back inline and the model
// hands it to the user, so the chat task itself asks its caller (the
// answer's text, the sub-task's options). The caller's answer is the chat
// task's next turn: the model passes it on with the sub-task's id, and the
// chat task completes with what came of it.
func TestPrimaryAsksItsCaller(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sampleName, primary, front := w.N("Sample"), w.N("Primary"), w.N("Front")
		session := "primary-q-" + strings.ToLower(w.N("s"))
		srv := llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
			last := req.Last()
			switch {
			case last.Role == llm.RoleUser && last.Content == "yes":
				for _, m := range req.Messages {
					if m.Role == llm.RoleTool && strings.Contains(m.Content, `"state":"input_required"`) {
						id := waitingTask.FindStringSubmatch(m.Content)[1]
						return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"task_id": id, "message": "yes", "wait": true})}}
					}
				}
				t.Errorf("no waiting task in %+v", req.Messages)
				return llmtest.Reply{Content: "?"}
			case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "[Agent '"+sampleName):
				return llmtest.Reply{Content: "(noted)"} // the notifications repeat what the waited calls returned
			case last.Role == llm.RoleUser:
				return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{
					"agent_name": sampleName, "skill": sample.SkillConfirm, "message": "book the room for Friday", "wait": true})}}
			case last.Role == llm.RoleTool && strings.Contains(last.Content, `"state":"input_required"`):
				return llmtest.Reply{Content: "Do you confirm the booking of the room for Friday?"}
			case last.Role == llm.RoleTool && strings.Contains(last.Content, `"state":"completed"`):
				return llmtest.Reply{Content: "Booked."}
			}
			t.Errorf("unexpected request, last %+v", last)
			return llmtest.Reply{Content: "?"}
		})
		sampletest.Start(t, w.Connect(t), sampleName)
		n, err := node.With(scriptedConfig(srv), w.Connect(t), w.Memory, nil)
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		serveCtx, stopServe := context.WithCancel(context.Background())
		go func() { served <- node.ServeOn(serveCtx, n, reference(KindPrimary, primary)) }()
		defer func() {
			stopServe()
			if err := <-served; err != nil {
				t.Errorf("serve: %v", err)
			}
		}()
		c, err := caller.New(caller.Options{Name: front, Bus: w.Connect(t), Memory: w.Memory})
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, c, caller.ErrClosed)

		var out *caller.Outcome
		testenv.Eventually(t, "the Primary answers a chat task", func() bool {
			out, err = c.Call(ctx, caller.Request{Target: primary, Skill: SkillChat, Text: "book the room for Friday", SessionID: session, Timeout: 10 * time.Second}, nil)
			return err == nil
		}, testenv.Within(15*time.Second))
		q := out.Question()
		if !out.WaitingForInput() || q == nil || q.Text != "Do you confirm the booking of the room for Friday?" || len(q.Options) != 2 ||
			q.Options[0].ID != sample.OptionYes.ID || q.Options[1].ID != sample.OptionNo.ID {
			t.Fatalf("the chat task ended %+v (err %v), want it to ask with the sub-task's options", out.Result, out.Err())
		}
		final, err := c.Continue(ctx, caller.Reply{TaskID: out.TaskID, Option: "yes", Timeout: 10 * time.Second}, nil)
		if err != nil || final.Err() != nil || final.Turn != 1 || a2a.MessageText(final.Result.Message) != "Booked." {
			t.Fatalf("the chat task's turn 1 = %+v, %v (err %v)", final, err, final.Err())
		}
		// The sub-task's last notification is answered too before the Primary stops.
		testenv.Eventually(t, "the sub-task's end is answered in the conversation", func() bool {
			turns, err := w.Memory.Turns(ctx, session, 0, 0)
			if err != nil {
				return false
			}
			var end int64
			for _, tr := range turns {
				switch {
				case tr.Meta[caller.MetaAgent] == sampleName && tr.Meta[caller.MetaOutcome] == caller.OutcomeAnswer:
					end = tr.Seq
				case end > 0 && tr.Meta[chat.MetaKind] == chat.KindAnswer:
					if h, _ := strconv.ParseInt(tr.Meta[chat.MetaHandledTo], 10, 64); h >= end {
						return true
					}
				}
			}
			return false
		})
	})
}
