// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/llmagent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

// scriptedConfig is the default configuration with the scripted server as
// its model, every call allowed (allowAll).
func scriptedConfig(srv *llmtest.Server) *config.Config {
	cfg := config.Default()
	cfg.LLM.BaseURL, cfg.LLM.Model = srv.URL, "scripted"
	return allowAll(cfg)
}

var notifiedKey = regexp.MustCompile(`key '([^']+)'`)

// TestPrimaryServesChat runs `serve --agent Primary` on both buses with a
// real SampleAgent: a chat task's result is the first answer; the answer
// that follows the sub-task's notification is appended to the session's
// conversation, where a subscriber sees it. The task's own notification
// (to the front end's caller, in the same session) does not wake the model.
func TestPrimaryServesChat(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sampleName, primary, front := w.N("Sample"), w.N("Primary"), w.N("Front")
		session := "primary-" + strings.ToLower(w.N("s"))
		srv := llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
			last := req.Last()
			for _, m := range req.Messages {
				if strings.Contains(m.Content, "[Agent '"+primary) {
					t.Errorf("the model saw the notification of the Primary's own task: %q", m.Content)
				}
			}
			switch {
			case last.Role == "user" && last.Content == "and now?":
				return llmtest.Reply{Content: "nothing new"}
			case last.Role == "user" && strings.HasPrefix(last.Content, "[Agent '"+sampleName):
				return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("get_from_working_memory", map[string]string{"key": notifiedKey.FindStringSubmatch(last.Content)[1]})}}
			case last.Role == "user":
				return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": sampleName, "skill": "echo", "message": "from the primary"})}}
			case last.Role == "tool" && strings.Contains(last.Content, `"memoryKey"`):
				return llmtest.Reply{Content: "asked " + sampleName}
			case last.Role == "tool" && strings.Contains(last.Content, "from the primary"):
				return llmtest.Reply{Content: "it says: from the primary"}
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
		turns, err := w.Memory.SubscribeTurns(ctx, session, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out *caller.Outcome
		testenv.Eventually(t, "the Primary answers a chat task", func() bool {
			out, err = c.Call(ctx, caller.Request{Target: primary, Skill: SkillChat, Text: "echo something", SessionID: session, Timeout: 10 * time.Second}, nil)
			return err == nil
		}, testenv.Within(15*time.Second))
		if out.Err() != nil || a2a.MessageText(out.Result.Message) != "asked "+sampleName {
			t.Fatalf("outcome %+v: %v", out.Result, out.Err())
		}
		var seen []memory.Turn
		for t0 := range turns {
			seen = append(seen, t0)
			if t0.Meta[chat.MetaKind] == chat.KindAnswer && t0.Content == "it says: from the primary" {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("no follow-up answer; saw %+v", seen)
		}
		// The first task's notification to the front end landed in the
		// session before its outcome was returned: had it woken the model, a
		// run would come before the answer to this second task.
		out2, err := c.Call(ctx, caller.Request{Target: primary, Skill: SkillChat, Text: "and now?", SessionID: session, Timeout: 10 * time.Second}, nil)
		if err != nil || out2.Err() != nil || a2a.MessageText(out2.Result.Message) != "nothing new" {
			t.Fatalf("second task %+v, %v", out2, err)
		}
		if n := len(srv.Requests()); n != 5 {
			t.Fatalf("%d model requests, want 5", n)
		}
		answers := 0
		for _, tr := range seen {
			if tr.Meta[chat.MetaKind] == chat.KindAnswer {
				answers++
			}
		}
		if answers != 2 || !slices.ContainsFunc(seen, func(tr memory.Turn) bool { return tr.Meta["a2aTask"] == out.TaskID }) {
			t.Fatalf("conversation %+v", seen)
		}
	})
}

// TestPrimaryFailsTheTaskWhenTheModelFails: the task fails with
// EXECUTION_FAILED naming the endpoint; without a model, serve refuses to start.
func TestPrimaryFailsTheTaskWhenTheModelFails(t *testing.T) {
	w := testworld.Embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := llmtest.New(t, llmtest.Reply{Status: 400})
	c, err := caller.New(caller.Options{Name: "Front", Bus: w.Connect(t), Memory: w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	p, err := NewPrimary(PrimaryOptions{Model: llmtest.Client(t, srv.URL, "scripted"), Caller: c, Agents: noAgents{}, Memory: w.Memory, Idle: 500 * time.Millisecond}) // longer than a loaded machine takes to run the turn
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, err := agent.New(agent.Options{Card: PrimaryCard("Primary"), Bus: w.Connect(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Register(a); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
	out, err := c.Call(ctx, caller.Request{Target: "Primary", Skill: SkillChat, Text: "hi", SessionID: "s-fail"}, nil)
	var ae *a2a.Error
	if err != nil || !errors.As(out.Err(), &ae) || ae.Code != a2a.CodeExecutionFailed || !strings.Contains(ae.Message, srv.URL) {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	// A quiet session with nothing pending is no longer watched.
	testenv.Eventually(t, "the idle session is dropped", func() bool { return len(p.Watching()) == 0 })

	if err := Serve(ctx, config.Default(), "primary", "", nil); !errors.Is(err, llm.ErrNotConfigured) || !strings.Contains(err.Error(), "llm.base_url") {
		t.Fatalf("serve without a model: %v", err)
	} // Fault 9: a turn's model time that could outlast the task's maximum
	// duration (and so the broker's consumer_timeout) is refused at start.
	slow := config.Default()
	slow.LLM.BaseURL, slow.LLM.Model, slow.LLM.Timeout = srv.URL, "scripted", 5*time.Minute // × (8+1) = 45m > 25m
	if err := Serve(ctx, slow, "primary", "", nil); !errors.Is(err, llmagent.ErrDeadlineTooLong) ||
		!strings.Contains(err.Error(), "agent.max_task_duration 25m0s") || !strings.Contains(err.Error(), "45m0s") {
		t.Fatalf("serve with a turn longer than a task may run: %v", err)
	}
}

type noAgents struct{}

func (noAgents) ListAgents(string, string) []tools.AgentInfo { return nil }
