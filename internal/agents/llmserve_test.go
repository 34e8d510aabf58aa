// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/llmagent"
	"github.com/a2abus/a2abus/pkg/node"
)

// llmWorld serves LLM agents and Go agents on one test world.
type llmWorld struct {
	t   *testing.T
	w   *testworld.World
	cfg *config.Config
	ctx context.Context
}

func newLLMWorld(t *testing.T, w *testworld.World) *llmWorld {
	cfg := testConfig(t)
	cfg.Bus.Exchange = w.Exchange
	cfg.LLM.Timeout = 10 * time.Second
	return &llmWorld{t: t, w: w, cfg: cfg, ctx: testCtx(t)}
}

// node is a node on a new connection of the world, sharing its memory.
func (l *llmWorld) node() *node.Node {
	n, err := node.With(l.cfg, l.w.Connect(l.t), keepOpen{l.w.Memory}, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	return n
}

// serve runs the agents of the YAML spec (its {name} replaced) with model
// until the test ends, and returns the agent's name.
func (l *llmWorld) serve(spec string, model llm.Client) string {
	name := l.w.N("Writer")
	s, err := llmagent.Parse("test.yaml", []byte(strings.ReplaceAll(strings.ReplaceAll(spec, "{name}", name), "{helper}", l.w.N("Helper"))))
	if err != nil {
		l.t.Fatal(err)
	}
	n := l.node() // its connection closes after the agent stops (cleanups run last first)
	l.run(func(ctx context.Context) error { return node.ServeOn(ctx, n, llmAgents([]*llmagent.Spec{s}, model)) })
	return name
}

// helper runs SampleAgent as Helper (its echo skill is the sub-agent).
func (l *llmWorld) helper() string {
	name := l.w.N("Helper")
	n := l.node()
	l.run(func(ctx context.Context) error { return node.ServeOn(ctx, n, reference(KindSample, name)) })
	return name
}

// run runs f until the test ends; it must then stop cleanly.
func (l *llmWorld) run(f func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	l.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			l.t.Errorf("serve = %v, want a clean stop", err)
		}
	})
}

// call calls skill of target from a Tester caller in session.
func (l *llmWorld) call(target, skill, session, text string, nested *bool) *caller.Outcome {
	l.t.Helper()
	tester := callers.Start(l.t, l.w, l.w.N("Tester"))
	out, err := tester.Call(l.ctx, caller.Request{Target: target, Skill: skill, SessionID: session, Text: text,
		Timeout: 15 * time.Second, AllowNestedCalls: nested}, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	return out
}

const answerSpec = `
name: "{name}"
description: Writes short summaries.
skills:
  - id: summarize
    system_prompt: You summarise.
    context: {last_messages: 2, roles: [user, assistant], max_age: 600s}
`

func TestLLMAgentAnswersWithMetadata(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		l := newLLMWorld(t, w)
		session := uuid.NewString()
		for i, turn := range []memory.Turn{
			{Role: "user", Content: "We deploy on Fridays."}, {Role: "tool", Content: `{"x":1}`},
			{Role: "assistant", Content: "Noted, Fridays."}, {Role: "user", Content: "And roll back on errors."},
		} {
			if _, err := w.Memory.AppendTurn(l.ctx, session, turn); err != nil {
				t.Fatalf("turn %d: %v", i, err)
			}
		}
		srv := llmtest.New(t, llmtest.Reply{Content: "Deploy Fridays; roll back on errors.", Usage: llm.Usage{PromptTokens: 50, CompletionTokens: 7, TotalTokens: 57},
			Expect: func(r llmtest.Request) error {
				block := r.Messages[1].Content
				if len(r.Messages) != 3 || !strings.Contains(block, "(2 of 4 turns") || strings.Contains(block, "We deploy on Fridays") ||
					!strings.Contains(block, "] And roll back on errors.") || !strings.HasSuffix(r.Last().Content, "Task: Summarise") {
					return fmt.Errorf("messages %+v", r.Messages)
				}
				return nil
			}})
		name := l.serve(answerSpec, llmtest.Client(t, srv.URL, "gpt-test"))

		// Its card is announced like any other agent's.
		d, stop, err := l.node().StartDirectory(l.ctx, node.Lister)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		testenv.Eventually(t, "the LLM agent's card announced", func() bool {
			return len(d.List(directory.Filter{Skill: "summarize", Query: name})) == 1
		})

		out := l.call(name, "summarize", session, "Summarise", nil)
		if err := out.Err(); err != nil || out.Result.Text() != "Deploy Fridays; roll back on errors." {
			t.Fatalf("outcome %v %q", err, out.Result.Text())
		}
		md := out.Result.Metadata
		want := map[string]any{"toolCalls": []any{}, "model": "gpt-test", "rounds": 1.0, "contextTurnsBefore": 4.0, "contextTurnsAfter": 2.0,
			"contextCharsBefore": 67.0, "contextCharsAfter": 39.0, "contextTokens": 10.0, "contextSummarized": 0.0}
		if md.TokensUsed != 57 || fmt.Sprint(md.Extra) != fmt.Sprint(want) || md.AgentVersion != llmagent.DefaultVersion {
			t.Errorf("metadata %+v\nwant extra %v", md, want)
		}
	})
}

const delegateSpec = `
name: "{name}"
description: Delegates to Helper.
skills:
  - id: relay
    system_prompt: You relay through Helper.
    allowed_tools: [invoke_agent, list_known_agents]
    allowed_agents: ["{helper}"]
    allow_sub_agent_calls: true
    max_tool_rounds: 2
`

func TestLLMAgentCallsSubAgent(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		l := newLLMWorld(t, w)
		helper := l.helper()
		srv := llmtest.New(t,
			llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": helper, "skill": "echo", "message": "ping"})},
				Expect: func(r llmtest.Request) error {
					if !slices.Equal(r.Tools, []string{"invoke_agent", "list_known_agents"}) {
						return fmt.Errorf("tools offered %v", r.Tools)
					}
					return nil
				}},
			llmtest.Reply{Content: "Helper answered ping.", Expect: func(r llmtest.Request) error {
				if m := r.Last(); m.Role != "tool" || !strings.Contains(m.Content, `"result":"ping"`) || !strings.Contains(m.Content, `"state":"completed"`) {
					return fmt.Errorf("tool result %+v", m)
				}
				return nil
			}})
		name := l.serve(delegateSpec, llmtest.Client(t, srv.URL, "gpt-test"))
		session := uuid.NewString()
		out := l.call(name, "relay", session, "Ask Helper", nil)
		if err := out.Err(); err != nil || out.Result.Text() != "Helper answered ping." {
			t.Fatalf("outcome %v %q", err, out.Result.Text())
		}
		if calls := fmt.Sprint(out.Result.Metadata.Extra["toolCalls"]); calls != "[invoke_agent]" || out.Result.Metadata.Extra["rounds"] != 2.0 {
			t.Errorf("extra %v", out.Result.Metadata.Extra)
		}
		// The sub-task was notified into the task's session, as every result is.
		testenv.Eventually(t, "the sub-task's notification in the session", func() bool {
			turns, _ := w.Memory.Turns(l.ctx, session, 0, 0)
			return slices.ContainsFunc(turns, func(t memory.Turn) bool {
				return t.Meta[caller.MetaKind] == caller.KindNotification && a2a.SameAgent(t.Meta[caller.MetaAgent], helper)
			})
		})
	})
}

func TestLLMAgentSubAgentCallRefused(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		l := newLLMWorld(t, w)
		helper := l.helper()
		srv := llmtest.New(t,
			// The task forbids nested calls: invoke_agent is not offered, and a call is refused.
			llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": helper, "skill": "echo", "message": "ping"})},
				Expect: func(r llmtest.Request) error {
					if !slices.Equal(r.Tools, []string{"list_known_agents"}) {
						return fmt.Errorf("tools offered %v", r.Tools)
					}
					return nil
				}},
			llmtest.Reply{Content: "I may not call Helper.", Expect: func(r llmtest.Request) error {
				if m := r.Last(); !strings.Contains(m.Content, `"code":"FORBIDDEN"`) || !strings.Contains(m.Content, "does not allow nested calls") {
					return fmt.Errorf("tool result %+v", m)
				}
				return nil
			}},
			// An agent outside allowed_agents is refused too.
			llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": "Stranger", "skill": "echo", "message": "ping"})}},
			llmtest.Reply{Content: "Stranger is not allowed.", Expect: func(r llmtest.Request) error {
				if m := r.Last(); !strings.Contains(m.Content, `may not call agent \"Stranger\"`) {
					return fmt.Errorf("tool result %+v", m)
				}
				return nil
			}})
		name := l.serve(delegateSpec, llmtest.Client(t, srv.URL, "gpt-test"))
		session := uuid.NewString()
		no := false
		out := l.call(name, "relay", session, "Ask Helper", &no)
		if err := out.Err(); err != nil || out.Result.Text() != "I may not call Helper." ||
			!strings.Contains(fmt.Sprint(out.Result.Metadata.Extra["subAgentCallsRefused"]), "does not allow nested calls") {
			t.Fatalf("outcome %v %q %v", err, out.Result.Text(), out.Result.Metadata.Extra)
		}
		out = l.call(name, "relay", session, "Ask Stranger", nil)
		if err := out.Err(); err != nil || out.Result.Text() != "Stranger is not allowed." {
			t.Fatalf("outcome %v %q", err, out.Result.Text())
		}
		turns, err := w.Memory.Turns(l.ctx, session, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, turn := range turns {
			if turn.Meta[caller.MetaKind] == caller.KindNotification && turn.Meta[caller.MetaAgent] != name {
				t.Errorf("a sub-task ran: %+v", turn)
			}
		}
	})
}

func TestLLMAgentModelDown(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		l := newLLMWorld(t, w)
		srv := llmtest.New(t)
		srv.Close()
		l.cfg.LLM.BaseURL, l.cfg.LLM.Model = srv.URL, "gpt-test"
		name := l.serve(answerSpec, llmtest.Client(t, srv.URL, "gpt-test"))
		out := l.call(name, "summarize", uuid.NewString(), "Summarise", nil)
		e := out.Result.Error
		if e == nil || e.Code != a2a.CodeUnavailable || !e.Retryable || !strings.Contains(e.Message, srv.URL) || !strings.Contains(e.Message, `skill "summarize"`) {
			t.Fatalf("outcome %+v, want UNAVAILABLE naming the endpoint", out.Result)
		}
	})
}

func TestServeFileRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "slow.yaml")
	spec := strings.ReplaceAll(delegateSpec, "{name}", "Slow")
	spec = strings.ReplaceAll(spec, "{helper}", "Helper")
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Bus.URL = "amqp://guest:guest@127.0.0.1:1/" // never dialled: refused before connecting
	cfg.LLM.Timeout = 10 * time.Minute              // × (2+1) = 30m > 25m
	err := ServeModel(testCtx(t), cfg, file, llmtest.Client(t, "http://127.0.0.1:1/v1", "m"), nil)
	if !errors.Is(err, llmagent.ErrDeadlineTooLong) || !strings.Contains(err.Error(), "agent.max_task_duration 25m0s") || !strings.Contains(err.Error(), file) {
		t.Errorf("fault 9: %v", err)
	}
	cfg.LLM.Timeout = time.Minute
	if err := ServeFile(testCtx(t), cfg, file, nil); !errors.Is(err, llm.ErrNotConfigured) || !strings.Contains(err.Error(), "llm.base_url") {
		t.Errorf("no model: %v", err)
	}
	if err := ServeFile(testCtx(t), cfg, filepath.Join(dir, "missing.yaml"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("name: B\ncolour: red\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ServeFile(testCtx(t), cfg, dir, nil); !errors.Is(err, llmagent.ErrInvalidSpec) || !strings.Contains(err.Error(), "bad.yaml: colour") {
		t.Errorf("bad file in folder: %v", err)
	}
	if err := ServeFile(testCtx(t), nil, file, nil); !errors.Is(err, ErrNoConfig) {
		t.Errorf("nil config: %v", err)
	}
}
