// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

// contextRig is a world with Echo, Relay (whose skill calls Echo through
// its own caller: a nested call) and Report (which answers with what its
// caller sent and narrowed), a caller Primary and its tools on a session
// with a conversation.
type contextRig struct {
	ctx     context.Context
	primary *caller.Caller
	set     *tools.Set
	session string
	echo    string
	relay   string
	report  string
}

func newContextRig(t *testing.T, w *testworld.World) *contextRig {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	r := &contextRig{ctx: ctx, session: w.N("conv"), echo: w.N("Echo"), relay: w.N("Relay"), report: w.N("Report")}
	serve := func(name, skill string, h agent.Handler) {
		a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Version: "1.0"}, Bus: w.Connect(t), Memory: w.Memory, StopTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Handle(skill, h); err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)
	}
	start := func(name string) *caller.Caller {
		c, err := caller.New(caller.Options{Name: name, Bus: w.Connect(t), Memory: w.Memory})
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, c, caller.ErrClosed)
		return c
	}
	serve(r.echo, "echo", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult("echo: " + task.Text()), nil
	})
	relayCaller := start(r.relay)
	serve(r.relay, "relay", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		out, err := relayCaller.Call(ctx, caller.Request{Target: r.echo, Skill: "echo", Text: task.Text()}, nil)
		if err == nil {
			err = out.Err()
		}
		if err != nil {
			return agent.TextResult(fmt.Sprintf("refused %s: %v", a2a.CodeOf(err), err)), nil
		}
		return agent.TextResult("relayed: " + out.Result.Text()), nil
	})
	serve(r.report, "report", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		msgs, err := task.CallerContext(ctx)
		if err != nil {
			return nil, err
		}
		var said []string
		for _, m := range msgs {
			said = append(said, m.Role+": "+m.Text)
		}
		tools := "all" // not narrowed
		if task.Request.AllowedTools != nil {
			tools = fmt.Sprint(task.Request.AllowedTools)
		}
		return agent.TextResult(fmt.Sprintf("[%s] tools=%s budget=%d nested=%v", strings.Join(said, " | "),
			tools, task.ContextTokens(4000), *task.Request.AllowNestedCalls)), nil
	})
	r.primary = start(w.N("Primary"))
	for _, turn := range []memory.Turn{{Role: "user", Content: "plan the trip"}, {Role: "assistant", Content: "where to?"},
		{Role: "tool", Content: `{"flights":3}`}, {Role: "user", Content: "Lisbon, in May"}} {
		if _, err := w.Memory.AppendTurn(ctx, r.session, turn); err != nil {
			t.Fatal(err)
		}
	}
	set, err := tools.New(tools.Deps{Caller: r.primary, Agents: &fakeLister{}, Memory: w.Memory, SessionID: r.session})
	if err != nil {
		t.Fatal(err)
	}
	r.set = set
	return r
}

// invoke calls invoke_agent with wait and the extra arguments, and returns the result's text.
func (r *contextRig) invoke(t *testing.T, agentName, skill, extra string) string {
	t.Helper()
	out, err := r.set.Dispatch(r.ctx, "invoke_agent", json.RawMessage(
		`{"agent_name":"`+agentName+`","skill":"`+skill+`","message":"hi","wait":true`+extra+`}`))
	if err != nil {
		t.Fatal(err)
	}
	var res tools.InvokeResult
	if err := json.Unmarshal(out, &res); err != nil || res.State != tools.StateCompleted {
		t.Fatalf("invoke_agent %s = %s, %v", agentName, out, err)
	}
	return res.Result
}

// A call made by an LLM through invoke_agent forbids the agent's own calls
// unless allow_nested_calls is true; an SDK call allows them unless it
// says otherwise.
func TestNestedCallsDefaultFalseForTheToolTrueForTheSDK(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newContextRig(t, w)
		if got := r.invoke(t, r.relay, "relay", ""); !strings.HasPrefix(got, "refused FORBIDDEN") || !strings.Contains(got, "does not allow nested calls") {
			t.Errorf("invoke_agent without allow_nested_calls: %q, want the relay's call refused FORBIDDEN", got)
		}
		if got := r.invoke(t, r.relay, "relay", `,"allow_nested_calls":true`); got != "relayed: echo: hi" {
			t.Errorf("invoke_agent with allow_nested_calls: %q, want the relayed echo", got)
		}
		out, err := r.primary.Call(r.ctx, caller.Request{Target: r.relay, Skill: "relay", Text: "hi"}, nil)
		if err != nil || out.Err() != nil || out.Result.Text() != "relayed: echo: hi" {
			t.Errorf("an SDK call: %+v, %v; want the relayed echo", out, err)
		}
		no := false
		out, err = r.primary.Call(r.ctx, caller.Request{Target: r.relay, Skill: "relay", Text: "hi", AllowNestedCalls: &no}, nil)
		if err != nil || out.Err() != nil || !strings.HasPrefix(out.Result.Text(), "refused FORBIDDEN") {
			t.Errorf("an SDK call that forbids them: %+v, %v; want the relay's call refused", out, err)
		}
	})
}

// invoke_agent's context, max_context_tokens and allowed_tools reach the
// agent: the chosen part of the conversation, the narrowing as asked.
func TestInvokeAgentSendsTheCallersContext(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		r := newContextRig(t, w)
		if got, want := r.invoke(t, r.report, "report", ""), "[] tools=all budget=4000 nested=false"; got != want {
			t.Errorf("no context: %q, want %q", got, want)
		}
		got := r.invoke(t, r.report, "report", `,"context":{"last_messages":2},"max_context_tokens":500,"allowed_tools":["get_from_working_memory"]`)
		if want := "[assistant: where to? | user: Lisbon, in May] tools=[get_from_working_memory] budget=500 nested=false"; got != want {
			t.Errorf("last 2: %q, want %q", got, want)
		}
		got = r.invoke(t, r.report, "report", `,"context":{"roles":["user","tool"],"max_age_seconds":3600},"allowed_tools":[]`)
		if want := `[user: plan the trip | tool: {"flights":3} | user: Lisbon, in May] tools=[] budget=4000 nested=false`; got != want {
			t.Errorf("user and tool: %q, want %q", got, want)
		}
	})
}
