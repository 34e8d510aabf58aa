// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

func TestLLMToolsMatchTools(t *testing.T) {
	f := newFixture(t, nil)
	lt := f.set.LLMTools()
	ts := f.set.Tools()
	if len(lt) != len(ts) || len(lt) != 5 {
		t.Fatalf("%d llm tools, %d tools", len(lt), len(ts))
	}
	for i := range ts {
		if lt[i].Name != ts[i].Name || lt[i].Description != ts[i].Description || string(lt[i].Parameters) != string(ts[i].Parameters) {
			t.Errorf("llm tool %d = %+v, tool %+v", i, lt[i], ts[i])
		}
	}
	lt[0].Parameters[0] = ' '
	if f.set.LLMTools()[0].Parameters[0] != '{' {
		t.Fatal("mutating an llm.Tool changed the set")
	}
}

// failingMemory is working memory that is down.
type failingMemory struct{}

func (failingMemory) Get(context.Context, string) ([]byte, error) {
	return nil, fmt.Errorf("redis: dial tcp: %w", memory.ErrUnavailable)
}

// TestRunRendersErrors checks that Run turns every kind of failure into a
// result the model reads, and a success into the tool's JSON.
func TestRunRendersErrors(t *testing.T) {
	f := newFixture(t, fakeResolver{"Echo": {"echo"}})
	down := newFixture(t, nil, func(d *tools.Deps) { d.Memory = failingMemory{} })
	cases := []struct {
		name      string
		set       *tools.Set
		call      llm.ToolCall
		isError   bool
		code      string
		message   string
		retryable bool
	}{
		{"success", f.set, llm.ToolCall{ID: "1", Name: "invoke_agent", Arguments: `{"agent_name":"echo","skill":"echo","message":"hi"}`}, false, "", "", false},
		{"invalid JSON", f.set, llm.ToolCall{ID: "2", Name: "invoke_agent", Arguments: `{"agent_name": "echo",`}, true,
			"INVALID_ARGUMENTS", "invoke_agent: the arguments are not a JSON object: unexpected EOF", false},
		{"empty arguments", f.set, llm.ToolCall{ID: "3", Name: "task_status", Arguments: ``}, true,
			"INVALID_ARGUMENTS", `task_status: missing required argument "task_id"`, false},
		{"unknown tool", f.set, llm.ToolCall{ID: "4", Name: "web_search", Arguments: `{}`}, true, "UNKNOWN_TOOL",
			`tools: unknown tool "web_search"; the tools are: invoke_agent, list_known_agents, get_from_working_memory, task_status, cancel_task`, false},
		{"argument error", f.set, llm.ToolCall{ID: "5", Name: "invoke_agent", Arguments: `{"agent_name":"echo","skill":"echo","message":"hi","wait":"yes"}`}, true,
			"INVALID_ARGUMENTS", `invoke_agent: argument "wait": must be a boolean, got "yes"`, false},
		{"wait unavailable", f.set, llm.ToolCall{ID: "6", Name: "invoke_agent", Arguments: `{"agent_name":"echo","skill":"echo","message":"hi","wait":true}`}, true,
			"INVALID_ARGUMENTS", `invoke_agent: argument "wait": waiting is not available here; omit it: the result will arrive as a notification in this conversation`, false},
		{"a2a error", f.set, llm.ToolCall{ID: "7", Name: "invoke_agent", Arguments: `{"agent_name":"Ghost","skill":"echo","message":"hi"}`}, true,
			"AGENT_NOT_FOUND", `invoke_agent: AGENT_NOT_FOUND: no agent named "Ghost"`, false},
		{"unknown task", f.set, llm.ToolCall{ID: "8", Name: "cancel_task", Arguments: `{"task_id":"nope"}`}, true,
			"UNKNOWN_TASK", "cancel_task: no task 'nope' was started here", false},
		{"memory down", down.set, llm.ToolCall{ID: "9", Name: "get_from_working_memory", Arguments: `{"key":"session/s1/a2a/Echo/t/result"}`}, true,
			"UNAVAILABLE", `get_from_working_memory: read "session/s1/a2a/Echo/t/result": redis: dial tcp: memory: unavailable`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			result, isError := c.set.Run(context.Background(), c.call)
			if isError != c.isError {
				t.Fatalf("Run = %s, isError %v; want %v", result, isError, c.isError)
			}
			if !c.isError {
				var r tools.InvokeResult
				if err := json.Unmarshal([]byte(result), &r); err != nil || r.TaskID == "" || r.Status != tools.StatusSubmitted {
					t.Fatalf("Run = %s: not invoke_agent's result", result)
				}
				return
			}
			var body struct {
				Error struct {
					Code, Message string
					Retryable     bool
				}
			}
			if err := json.Unmarshal([]byte(result), &body); err != nil {
				t.Fatalf("Run = %s: not JSON: %v", result, err)
			}
			if e := body.Error; e.Code != c.code || !strings.HasPrefix(e.Message, c.message) || e.Retryable != c.retryable {
				t.Fatalf("Run = %s; want code %s retryable %v message %q", result, c.code, c.retryable, c.message)
			}
		})
	}
}

// scriptedModel is an llm.Client that asks for the tool calls of its
// script in turn, then answers with the text of the last tool result.
type scriptedModel struct {
	mu     sync.Mutex
	script [][]llm.ToolCall
	seen   []llm.Request
}

func (m *scriptedModel) Complete(_ context.Context, req llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, req)
	if len(m.script) == 0 {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "done: " + req.Messages[len(req.Messages)-1].Content}}, nil
	}
	calls := m.script[0]
	m.script = m.script[1:]
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}}, nil
}

// TestSetDrivesTheToolLoop plugs the Set into the shared llm.Loop: the model
// is offered the tools, a wrong call comes back as an error it can read, the
// corrected call succeeds.
func TestSetDrivesTheToolLoop(t *testing.T) {
	f := newFixture(t, fakeResolver{"Echo": {"echo"}}, func(d *tools.Deps) { d.AllowedAgents = []string{"Echo"} })
	f.agents.agents = []tools.AgentInfo{{Name: "Echo", Skills: []tools.SkillInfo{{ID: "echo"}}}}
	model := &scriptedModel{script: [][]llm.ToolCall{
		{{ID: "a", Name: "list_known_agents", Arguments: `{}`}},
		{{ID: "b", Name: "invoke_agent", Arguments: `{"agent_name":"Shell","skill":"run","message":"ls"}`}},
		{{ID: "c", Name: "invoke_agent", Arguments: `{"agent_name":"echo","skill":"echo","message":"hi"}`}},
	}}
	out, err := llm.Loop{Client: model, Tools: f.set.LLMTools(), Dispatch: f.set.Run}.Run(context.Background(),
		[]llm.Message{{Role: llm.RoleUser, Content: "say hi through Echo"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.ToolCalls, []string{"list_known_agents", "invoke_agent", "invoke_agent"}) {
		t.Fatalf("tool calls %v", out.ToolCalls)
	}
	var offered []string
	for _, tl := range model.seen[0].Tools {
		offered = append(offered, tl.Name)
	}
	if !slices.Equal(offered, names(f.set)) {
		t.Fatalf("offered %v", offered)
	}
	results := map[string]string{}
	for _, m := range out.Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	if !strings.Contains(results["a"], `"name":"Echo"`) || !strings.Contains(results["b"], `"code":"FORBIDDEN"`) ||
		!strings.Contains(results["c"], `"status":"submitted"`) {
		t.Fatalf("tool results %v", results)
	}
	if reqs := f.inv.requests(); len(reqs) != 1 || reqs[0].Target != "Echo" || a2a.PriorityNormal != reqs[0].Priority {
		t.Fatalf("invocations %+v", reqs)
	}
}
