// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/llm"
)

// testSpec is one skill; tools, when given, are allowed with Helper as the
// callable agent.
func testSpec(t *testing.T, tools ...string) *Spec {
	t.Helper()
	s := &Spec{Name: "Writer", Description: "writes", Skills: []Skill{{ID: "write", SystemPrompt: "You write.",
		Context: ContextFilter{LastMessages: 3, Roles: []string{"user", "assistant"}, MaxAge: 600 * time.Second}}}}
	if len(tools) > 0 {
		sk := &s.Skills[0]
		sk.AllowedTools = tools
		if slices.Contains(tools, ToolInvokeAgent) {
			sk.AllowSubAgentCalls, sk.AllowedAgents = true, []string{"Helper"}
		}
	}
	if err := s.Normalize(); err != nil {
		t.Fatal(err)
	}
	return s
}

func newAgent(t *testing.T, s *Spec, model llm.Client, opts ...func(*Options)) *Agent {
	t.Helper()
	o := Options{Spec: s, Model: model, LLMTimeout: time.Minute, MaxTaskDuration: 25 * time.Minute, Now: func() time.Time { return now }}
	for _, f := range opts {
		f(&o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func task(text string) *agent.Task {
	return &agent.Task{Request: &a2a.TaskRequest{TaskID: "t-1", SessionID: "s-1", Caller: "Planner", Target: "Writer", Skill: "write",
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, text)}}
}

// turns reads a fixed conversation.
type turns []memory.Turn

func (c turns) Turns(context.Context, string, int64, int) ([]memory.Turn, error) { return c, nil }

func TestDeadlineRefusal(t *testing.T) {
	s := testSpec(t, ToolListKnownAgents)
	s.Skills[0].MaxToolRounds = 5
	_, err := New(Options{Spec: s, Model: llmtest.Client(t, "http://127.0.0.1:1/v1", "m"), Tools: fakeFactory(nil), LLMTimeout: 5 * time.Minute, MaxTaskDuration: 25 * time.Minute})
	if !errors.Is(err, ErrDeadlineTooLong) {
		t.Fatalf("err = %v, want ErrDeadlineTooLong", err)
	}
	for _, want := range []string{"llm.timeout 5m0s × (max_tool_rounds 5 + 1) = 30m0s", "agent.max_task_duration 25m0s", "bus.consumer_timeout", `skill "write"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	// 5m × (4+1) = 25m fits exactly.
	s.Skills[0].MaxToolRounds = 4
	if _, err := New(Options{Spec: s, Model: llmtest.Client(t, "http://127.0.0.1:1/v1", "m"), Tools: fakeFactory(nil), LLMTimeout: 5 * time.Minute, MaxTaskDuration: 25 * time.Minute}); err != nil {
		t.Errorf("25m of model time within 25m: %v", err)
	}
	// Without tools a task makes one request, whatever max_tool_rounds says.
	plain := testSpec(t)
	plain.Skills[0].MaxToolRounds = 50
	if _, err := New(Options{Spec: plain, Model: llmtest.Client(t, "http://127.0.0.1:1/v1", "m"), LLMTimeout: 20 * time.Minute, MaxTaskDuration: 25 * time.Minute}); err != nil {
		t.Errorf("one request of 20m within 25m: %v", err)
	}
	if _, err := New(Options{Spec: plain, Model: llmtest.Client(t, "http://127.0.0.1:1/v1", "m"), LLMTimeout: 30 * time.Minute, MaxTaskDuration: 25 * time.Minute}); !errors.Is(err, ErrDeadlineTooLong) {
		t.Errorf("one request of 30m: %v", err)
	}
	if _, err := New(Options{Spec: plain, Model: llmtest.Client(t, "http://127.0.0.1:1/v1", "m"), MaxTaskDuration: 25 * time.Minute}); !errors.Is(err, ErrDeadlineTooLong) || !strings.Contains(err.Error(), "llm.timeout is 0s") {
		t.Errorf("unbounded model requests: %v", err)
	}
	if _, err := New(Options{Spec: plain}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("no model: %v", err)
	}
	if _, err := New(Options{Spec: testSpec(t, ToolListKnownAgents), Model: llmtest.Client(t, "http://127.0.0.1:1/v1", "m"), LLMTimeout: time.Minute, MaxTaskDuration: time.Hour}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("tools without a factory: %v", err)
	}
}

func TestHandlerSendsPromptContextAndTask(t *testing.T) {
	conv := turns(conversation())
	srv := llmtest.New(t, llmtest.Reply{Content: "Bcrypt, cost 12, and email checks.", Usage: llm.Usage{PromptTokens: 90, CompletionTokens: 10, TotalTokens: 100},
		Expect: func(r llmtest.Request) error {
			if len(r.Messages) != 3 || r.Messages[0].Role != "system" || r.Messages[0].Content != "You write." {
				return fmt.Errorf("messages %+v", r.Messages)
			}
			ctxBlock := r.Messages[1].Content
			if !strings.HasPrefix(ctxBlock, contextOpen) || !strings.HasSuffix(ctxBlock, contextClose) ||
				!strings.Contains(ctxBlock, "(3 of 9 turns") || !strings.Contains(ctxBlock, "[user 2026-02-11T11:55:00Z] Use bcrypt with cost 12.") ||
				strings.Contains(ctxBlock, "logging") || strings.Contains(ctxBlock, "taskId") {
				return fmt.Errorf("context block:\n%s", ctxBlock)
			}
			if r.Last().Content != "[Called by: Planner]\nTask: Summarise the plan" || len(r.Tools) != 0 {
				return fmt.Errorf("task message %q, tools %v", r.Last().Content, r.Tools)
			}
			return nil
		}})
	a := newAgent(t, testSpec(t), llmtest.Client(t, srv.URL, "gpt-test"), func(o *Options) { o.Conversations = conv })
	res, err := a.Handler(a.Spec().Skill("write"))(context.Background(), task("Summarise the plan"))
	if err != nil {
		t.Fatal(err)
	}
	if a2a.MessageText(res.Message) != "Bcrypt, cost 12, and email checks." || res.TokensUsed != 100 {
		t.Errorf("result %q, tokens %d", a2a.MessageText(res.Message), res.TokensUsed)
	}
	want := map[string]any{ExtraToolCalls: []string{}, ExtraModel: "gpt-test", ExtraRounds: 1,
		ExtraContextTurnsBefore: 9, ExtraContextTurnsAfter: 3, ExtraContextCharsBefore: 273, ExtraContextCharsAfter: 77,
		ExtraContextTokens: 20, ExtraContextSummarized: 0}
	if fmt.Sprint(res.Extra) != fmt.Sprint(want) {
		t.Errorf("extra %v\nwant  %v", res.Extra, want)
	}
}

func TestHandlerModelFailures(t *testing.T) {
	down := llmtest.New(t)
	down.Close()
	a := newAgent(t, testSpec(t), llmtest.Client(t, down.URL, "m"), func(o *Options) { o.Endpoint = down.URL })
	_, err := a.Handler(a.Spec().Skill("write"))(context.Background(), task("hi"))
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != a2a.CodeUnavailable || !e.Retryable || !strings.Contains(e.Message, down.URL) {
		t.Errorf("model down: %#v", err)
	}

	rejected := llmtest.New(t, llmtest.Reply{Status: 401})
	a = newAgent(t, testSpec(t), llmtest.Client(t, rejected.URL, "m"), func(o *Options) { o.Endpoint = rejected.URL })
	_, err = a.Handler(a.Spec().Skill("write"))(context.Background(), task("hi"))
	if !errors.As(err, &e) || e.Code != a2a.CodeExecutionFailed || e.Retryable || strings.Count(e.Message, rejected.URL) != 1 {
		t.Errorf("model refused: %#v", err)
	}

	loops := llmtest.New(t, llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call(ToolListKnownAgents, map[string]any{})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call(ToolListKnownAgents, map[string]any{})}})
	s := testSpec(t, ToolListKnownAgents)
	s.Skills[0].MaxToolRounds = 1
	a = newAgent(t, s, llmtest.Client(t, loops.URL, "m"), func(o *Options) { o.Tools = fakeFactory(&fakeBox{}) })
	_, err = a.Handler(a.Spec().Skill("write"))(context.Background(), task("hi"))
	if !errors.As(err, &e) || e.Code != a2a.CodeExecutionFailed || !strings.Contains(e.Message, "max_tool_rounds (1) reached") {
		t.Errorf("tool rounds: %#v", err)
	}

	empty := llmtest.New(t, llmtest.Reply{Content: "  "})
	a = newAgent(t, testSpec(t), llmtest.Client(t, empty.URL, "m"))
	if _, err = a.Handler(a.Spec().Skill("write"))(context.Background(), task("hi")); !errors.As(err, &e) || !strings.Contains(e.Message, "empty") {
		t.Errorf("empty answer: %#v", err)
	}

	if _, err = a.Handler(a.Spec().Skill("write"))(context.Background(), task("  ")); !errors.As(err, &e) || e.Code != a2a.CodeInvalidInput {
		t.Errorf("empty task: %#v", err)
	}
}

// fakeBox offers every tool and records the calls it runs.
type fakeBox struct{ ran []string }

func (b *fakeBox) LLMTools() []llm.Tool {
	out := make([]llm.Tool, len(KnownTools))
	for i, n := range KnownTools {
		out[i] = llm.Tool{Name: n, Parameters: []byte(`{"type":"object"}`)}
	}
	return out
}

func (b *fakeBox) Run(_ context.Context, call llm.ToolCall) (string, bool) {
	b.ran = append(b.ran, call.Name+" "+call.Arguments)
	return `{"ok":true}`, false
}

func fakeFactory(b *fakeBox) ToolboxFactory {
	return func(context.Context, *agent.Task, *Skill) (Toolbox, error) { return b, nil }
}

func offeredNames(g *gate) []string {
	var out []string
	for _, t := range g.offered {
		out = append(out, t.Name)
	}
	return out
}

func TestGateOffersOnlyWhatTheSkillAllows(t *testing.T) {
	s := testSpec(t, ToolListKnownAgents, ToolInvokeAgent)
	sk := &s.Skills[0]
	call := func(name, args string) llm.ToolCall { return llm.ToolCall{ID: "c", Name: name, Arguments: args} }
	ctx := context.Background()

	box := &fakeBox{}
	g := newGate(box, sk, task("x"), "Writer", 5)
	if got := offeredNames(g); !slices.Equal(got, []string{ToolInvokeAgent, ToolListKnownAgents}) || g.refused != "" {
		t.Fatalf("offered %v, refused %q", got, g.refused)
	}
	if out, isErr := g.dispatch(ctx, call(ToolInvokeAgent, `{"agent_name":"helper","skill":"echo","message":"m"}`)); isErr || out != `{"ok":true}` {
		t.Errorf("allowed call: %s", out)
	}
	out, isErr := g.dispatch(ctx, call(ToolInvokeAgent, `{"agent_name":"Other","skill":"echo","message":"m"}`))
	if !isErr || !strings.Contains(out, `"code":"FORBIDDEN"`) || !strings.Contains(out, `may not call agent \"Other\"; allowed_agents: Helper`) {
		t.Errorf("agent outside allowed_agents: %s", out)
	}
	out, isErr = g.dispatch(ctx, call(ToolGetFromWorkingMemory, `{"key":"k"}`))
	if !isErr || !strings.Contains(out, `tool \"get_from_working_memory\" is not available to skill \"write\"; its tools are: invoke_agent, list_known_agents`) {
		t.Errorf("tool outside allowed_tools: %s", out)
	}
	if len(box.ran) != 1 {
		t.Errorf("the toolbox ran %v, want only the allowed call", box.ran)
	}

	no := false
	forbidden := task("x")
	forbidden.Request.AllowNestedCalls = &no
	g = newGate(&fakeBox{}, sk, forbidden, "Writer", 5)
	if got := offeredNames(g); !slices.Equal(got, []string{ToolListKnownAgents}) || !strings.Contains(g.refused, "does not allow nested calls") {
		t.Errorf("nested calls forbidden: offered %v, refused %q", got, g.refused)
	}
	if out, isErr := g.dispatch(ctx, call(ToolInvokeAgent, `{"agent_name":"Helper"}`)); !isErr || !strings.Contains(out, "sub-agent call refused: task t-1 does not allow nested calls") {
		t.Errorf("refused call: %s", out)
	}

	deep := task("x")
	deep.Request.CallChain = []string{"A", "B", "C", "D"}
	if g := newGate(&fakeBox{}, sk, deep, "Writer", 5); !strings.Contains(g.refused, "A -> B -> C -> D -> Writer already has 5 agents, the limit is 5") {
		t.Errorf("depth: %q", g.refused)
	}
	deep.Request.CallChain = []string{"A"}
	if g := newGate(&fakeBox{}, sk, deep, "Writer", 2); !strings.Contains(g.refused, "the limit is 2 (max_sub_agent_depth 5, caller.max_depth 2)") {
		t.Errorf("caller depth: %q", g.refused)
	}
	sk.MaxSubAgentDepth = 3
	if g := newGate(&fakeBox{}, sk, deep, "Writer", 5); g.refused != "" {
		t.Errorf("chain A -> Writer within 3: %q", g.refused)
	}
}

// TestResultExtraIsCamelCase: the metadata an LLM agent puts in its
// results' extra is camelCase, like the rest of the stored result.
func TestResultExtraIsCamelCase(t *testing.T) {
	extra := map[string]any{}
	for _, k := range []string{ExtraToolCalls, ExtraModel, ExtraRounds, ExtraContextTurnsBefore, ExtraContextTurnsAfter, ExtraContextCharsBefore,
		ExtraContextCharsAfter, ExtraContextTokens, ExtraContextSummarized, ExtraSubAgentRefusal, ExtraTokensEstimated} {
		extra[k] = 1
	}
	if bad := testenv.NotCamelCaseJSON(extra); len(bad) > 0 {
		t.Fatalf("%q", bad)
	}
}

// The task and the caller's context leave for a model: their secrets are hidden.
func TestTaskReachesTheModelRedacted(t *testing.T) {
	conv := turns{{Seq: 1, Role: "user", Content: "my db is postgres://app:hunter2@db/x", Time: now.Add(-time.Minute)}}
	srv := llmtest.New(t, llmtest.Reply{Content: "done", Expect: func(r llmtest.Request) error {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "hunter2") || strings.Contains(m.Content, "sk-proj-0123456789abcdefXYZ") {
				return fmt.Errorf("the model got a secret: %q", m.Content)
			}
		}
		if !strings.Contains(r.Last().Content, "key xxxxx") {
			return fmt.Errorf("task message %q", r.Last().Content)
		}
		return nil
	}})
	a := newAgent(t, testSpec(t), llmtest.Client(t, srv.URL, "gpt-test"), func(o *Options) { o.Conversations = conv })
	if _, err := a.Handler(a.Spec().Skill("write"))(context.Background(), task("rotate key sk-proj-0123456789abcdefXYZ")); err != nil {
		t.Fatal(err)
	}
}
