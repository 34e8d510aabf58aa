// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package llmagent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/llm"
)

// unread is a conversation reader a test does not expect to be read.
type unread struct{ t *testing.T }

func (u unread) Turns(context.Context, string, int64, int) ([]memory.Turn, error) {
	u.t.Error("the session's conversation was read although the caller sent its context")
	return nil, nil
}

// callerMessages is conversation() as a caller would send it.
func callerMessages() []a2a.ContextMessage {
	var out []a2a.ContextMessage
	for _, t := range conversation() {
		role := t.Role
		if t.Meta != nil {
			role = RoleNotification
		}
		out = append(out, a2a.ContextMessage{Role: role, Text: t.Content, Time: t.Time})
	}
	return out
}

// The caller's context, when sent, is what the model gets — through the
// skill's own filter (its roles, age and last N), not the session's
// conversation.
func TestCallerContextGoesThroughTheSkillsFilter(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Content: "done", Expect: func(r llmtest.Request) error {
		block := r.Messages[1].Content
		if !strings.Contains(block, "(3 of 9 turns") || !strings.Contains(block, "[user 2026-02-11T11:55:00Z] Use bcrypt with cost 12.") ||
			strings.Contains(block, "logging") || strings.Contains(block, "Coder") {
			return fmt.Errorf("context block:\n%s", block)
		}
		return nil
	}})
	a := newAgent(t, testSpec(t), llmtest.Client(t, srv.URL, "m"), func(o *Options) { o.Conversations = unread{t} })
	tk := task("Summarise the plan")
	tk.Request.CallerContext = &a2a.CallerContext{Messages: callerMessages(), Count: 9}
	res, err := a.Handler(a.Spec().Skill("write"))(context.Background(), tk)
	if err != nil {
		t.Fatal(err)
	}
	if res.Extra[ExtraContextTurnsBefore] != 9 || res.Extra[ExtraContextTurnsAfter] != 3 {
		t.Errorf("extra %v", res.Extra)
	}
	// A caller context with nothing in it gives the model nothing: the caller chose so.
	empty := llmtest.New(t, llmtest.Reply{Content: "done", Expect: func(r llmtest.Request) error {
		if len(r.Messages) != 2 {
			return fmt.Errorf("messages %+v, want the system prompt and the task only", r.Messages)
		}
		return nil
	}})
	a = newAgent(t, testSpec(t), llmtest.Client(t, empty.URL, "m"), func(o *Options) { o.Conversations = unread{t} })
	tk.Request.CallerContext = &a2a.CallerContext{}
	if _, err := a.Handler(a.Spec().Skill("write"))(context.Background(), tk); err != nil {
		t.Fatal(err)
	}
}

// A caller narrows the model context budget, never widens it: the skill's
// max_context_tokens stays the ceiling.
func TestCallerNarrowsTheContextBudget(t *testing.T) {
	s := testSpec(t)
	s.Skills[0].Context = ContextFilter{LastMessages: -1, Roles: []string{"user"}}
	s.Skills[0].MaxContextTokens = 200
	var msgs []a2a.ContextMessage
	for i := range 40 {
		msgs = append(msgs, a2a.ContextMessage{Role: "user", Text: fmt.Sprintf("%02d %s", i, strings.Repeat("w", 76)), Time: now})
	}
	for _, tc := range []struct {
		callerBudget int
		maxTokens    int
	}{{0, 200}, {60, 60}, {100000, 200}} {
		srv := llmtest.New(t, llmtest.Reply{Content: "done"})
		a := newAgent(t, s, llmtest.Client(t, srv.URL, "m"))
		tk := task("go")
		tk.Request.CallerContext = &a2a.CallerContext{Messages: msgs, Count: len(msgs)}
		tk.Request.MaxContextTokens = tc.callerBudget
		res, err := a.Handler(a.Spec().Skill("write"))(context.Background(), tk)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := res.Extra[ExtraContextTokens].(int)
		if got > tc.maxTokens || got < tc.maxTokens-20 {
			t.Errorf("caller budget %d: the context took %d tokens, want at most %d (and near it)", tc.callerBudget, got, tc.maxTokens)
		}
	}
}

// A caller narrows the tools the model is offered to those of the skill it
// names, never more: a tool the skill does not allow stays out, and one
// the caller left out is refused naming the caller's list.
func TestCallerNarrowsTheTools(t *testing.T) {
	s := testSpec(t, ToolListKnownAgents, ToolInvokeAgent, ToolTaskStatus)
	sk := &s.Skills[0]
	tk := task("x")
	tk.Request.AllowedTools = []string{ToolListKnownAgents, ToolGetFromWorkingMemory, ToolCancelTask}
	box := &fakeBox{}
	g := newGate(box, sk, tk, "Writer", 5)
	if got := offeredNames(g); !slices.Equal(got, []string{ToolListKnownAgents}) {
		t.Fatalf("offered %v, want only list_known_agents (the skill's tools the caller named)", got)
	}
	out, isErr := g.dispatch(context.Background(), llm.ToolCall{ID: "c", Name: ToolTaskStatus, Arguments: `{}`})
	if !isErr || !strings.Contains(out, `"code":"FORBIDDEN"`) || !strings.Contains(out, "its caller Planner narrowed the tools to: list_known_agents, get_from_working_memory, cancel_task") {
		t.Errorf("a tool the caller left out: %s", out)
	}
	out, isErr = g.dispatch(context.Background(), llm.ToolCall{ID: "c", Name: ToolGetFromWorkingMemory, Arguments: `{}`})
	if !isErr || !strings.Contains(out, `is not available to skill \"write\"`) {
		t.Errorf("a tool the skill does not allow, named by the caller: %s", out)
	}
	if len(box.ran) != 0 {
		t.Errorf("the toolbox ran %v", box.ran)
	}
	tk.Request.AllowedTools = []string{}
	if got := offeredNames(newGate(box, sk, tk, "Writer", 5)); len(got) != 0 {
		t.Errorf("an empty list offered %v, want none", got)
	}
	tk.Request.AllowedTools = nil
	if got := offeredNames(newGate(box, sk, tk, "Writer", 5)); !slices.Equal(got, []string{ToolInvokeAgent, ToolListKnownAgents, ToolTaskStatus}) {
		t.Errorf("no narrowing offered %v, want the skill's tools", got)
	}
}
