// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/tools"
)

func names(set *tools.Set) []string {
	var out []string
	for _, t := range set.Tools() {
		out = append(out, t.Name)
	}
	return out
}

// TestOnlyOffersTheNamedTools checks Deps.Only: the tools offered, their
// order, and that only their dependencies are required.
func TestOnlyOffersTheNamedTools(t *testing.T) {
	f := newFixture(t, nil, func(d *tools.Deps) { d.Only = []string{"get_from_working_memory", "invoke_agent"} })
	if got := names(f.set); !slices.Equal(got, []string{"invoke_agent", "get_from_working_memory"}) {
		t.Fatalf("tools %v", got)
	}
	if len(f.set.Definitions()) != 2 || len(f.set.LLMTools()) != 2 {
		t.Fatalf("definitions and llm tools do not follow Only")
	}
	_, err := f.set.Dispatch(context.Background(), "list_known_agents", nil)
	want := `tools: unknown tool "list_known_agents"; the tools are: invoke_agent, get_from_working_memory`
	if !errors.Is(err, tools.ErrUnknownTool) || err.Error() != want {
		t.Fatalf("a tool not offered: %v, want %q", err, want)
	}
	if f.agents.calls != 0 {
		t.Fatal("a tool not offered ran")
	}

	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = mem.Close() })
	cases := []struct {
		name  string
		deps  tools.Deps
		tools []string
		err   string
	}{
		{"memory only", tools.Deps{Memory: mem, Only: []string{"get_from_working_memory"}}, []string{"get_from_working_memory"}, ""},
		{"lister only", tools.Deps{Agents: &fakeLister{}, Only: []string{"list_known_agents"}}, []string{"list_known_agents"}, ""},
		{"none", tools.Deps{Only: []string{}}, nil, ""},
		{"status without tasks", tools.Deps{Caller: &fakeInvoker{}, Only: []string{"task_status", "cancel_task"}}, nil,
			"tools: invalid dependencies: Canceler, Tasks required"},
		{"status with tasks", tools.Deps{Tasks: &fakeTasks{}, Only: []string{"task_status"}}, []string{"task_status"}, ""},
		{"unknown tool", tools.Deps{Memory: mem, Only: []string{"get_from_working_memory", "web_search"}}, nil,
			`tools: invalid dependencies: Only: unknown tool "web_search"; the tools are: invoke_agent, list_known_agents, get_from_working_memory, task_status, cancel_task`},
		{"default without tasks", tools.Deps{Caller: &fakeInvoker{}, Agents: &fakeLister{}, Memory: mem},
			[]string{"invoke_agent", "list_known_agents", "get_from_working_memory"}, ""},
		{"default with tasks only", tools.Deps{Caller: &fakeInvoker{}, Agents: &fakeLister{}, Memory: mem, Tasks: &fakeTasks{}},
			[]string{"invoke_agent", "list_known_agents", "get_from_working_memory", "task_status"}, ""},
		{"bad allowed agent", tools.Deps{Memory: mem, Only: []string{"get_from_working_memory"}, AllowedAgents: []string{"Echo", "no such"}}, nil,
			`tools: invalid dependencies: AllowedAgents: a2a: invalid name: agent name "no such" must match`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.deps.SessionID = session
			set, err := tools.New(c.deps)
			if c.err != "" {
				if set != nil || !errors.Is(err, tools.ErrInvalidDeps) || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("New = %v; want ErrInvalidDeps %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(set); !slices.Equal(got, c.tools) {
				t.Fatalf("tools %v, want %v", got, c.tools)
			}
		})
	}
}

// TestAllowedAgents checks Deps.AllowedAgents on invoke_agent and list_known_agents.
func TestAllowedAgents(t *testing.T) {
	resolver := fakeResolver{"Echo": {"echo"}, "Research": {"search"}, "Shell": {"run"}}
	all := []tools.AgentInfo{{Name: "Echo"}, {Name: "research"}, {Name: "Shell"}}
	f := newFixture(t, resolver, func(d *tools.Deps) { d.AllowedAgents = []string{"echo", "Research"} })
	f.agents.agents = all

	for _, args := range []string{`{"agent_name":"ECHO","skill":"echo","message":"hi"}`, `{"agent_name":"research","skill":"search","message":"hi"}`} {
		if _, err := f.call(t, "invoke_agent", args); err != nil {
			t.Errorf("invoke_agent(%s) = %v", args, err)
		}
	}
	_, err := f.call(t, "invoke_agent", `{"agent_name":"shell","skill":"run","message":"rm -rf /"}`)
	want := `invoke_agent: FORBIDDEN: agent "shell" may not be invoked here; the agents allowed are: echo, Research`
	if err == nil || err.Error() != want || a2a.CodeOf(err) != a2a.CodeForbidden {
		t.Fatalf("invoke_agent(shell) = %v, want %q", err, want)
	}
	if n := len(f.inv.requests()); n != 2 {
		t.Fatalf("%d invocations, want 2 (the forbidden one is not sent)", n)
	}
	got, err := f.call(t, "list_known_agents", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	var list tools.AgentList
	_ = json.Unmarshal(raw, &list)
	if list.Total != 2 || len(list.Agents) != 2 || list.Agents[0].Name != "Echo" || list.Agents[1].Name != "research" {
		t.Fatalf("list_known_agents = %s, want Echo and research only", raw)
	}

	none := newFixture(t, resolver, func(d *tools.Deps) { d.AllowedAgents = []string{} })
	none.agents.agents = all
	_, err = none.call(t, "invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi"}`)
	if err == nil || err.Error() != `invoke_agent: FORBIDDEN: no agent may be invoked here (asked for "Echo")` {
		t.Fatalf("invoke_agent with no agent allowed = %v", err)
	}
	if got, _ := none.call(t, "list_known_agents", `{}`); got.(map[string]any)["total"] != float64(0) {
		t.Fatalf("list_known_agents with no agent allowed = %v", got)
	}
}

// An allowed name that the resolver canonicalises to another agent (an
// alias) is checked again after resolving.
func TestAllowedAgentsCheckedAfterResolving(t *testing.T) {
	f := newFixture(t, aliasResolver{"helper": "Shell"}, func(d *tools.Deps) { d.AllowedAgents = []string{"helper"} })
	_, err := f.call(t, "invoke_agent", `{"agent_name":"helper","skill":"run","message":"hi"}`)
	if a2a.CodeOf(err) != a2a.CodeForbidden || len(f.inv.requests()) != 0 {
		t.Fatalf("an alias of a forbidden agent: %v, %d invocations", err, len(f.inv.requests()))
	}
}

type aliasResolver map[string]string

func (a aliasResolver) Resolve(_ context.Context, agent, _ string) (string, error) {
	return a[agent], nil
}
func (aliasResolver) InputSchema(string, string) (json.RawMessage, bool) { return nil, false }
