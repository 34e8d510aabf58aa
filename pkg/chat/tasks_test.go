// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"encoding/json"
	"testing"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
)

func TestCallSummary(t *testing.T) {
	for _, tc := range []struct {
		name, args, want string
	}{
		{"invoke_agent", `{"agent_name":"SampleAgent","skill":"echo","message":"hi"}`, "invoke_agent SampleAgent.echo"},
		{"invoke_agent", `{"agent_name":"SampleAgent","task_id":"t-1","message":"yes"}`, "invoke_agent SampleAgent (answers task t-1)"},
		{"invoke_agent", `{"agent_name":"Two\nLines"}`, "invoke_agent Two Lines"},
		{"get_from_working_memory", `{"key":"session/s/a2a/A/t/result"}`, "get_from_working_memory session/s/a2a/A/t/result"},
		{"cancel_task", `{"task_id":"t-2"}`, "cancel_task t-2"},
		{"list_known_agents", `{}`, "list_known_agents"},
		{"invoke_agent", `not json`, "invoke_agent"},
	} {
		if got := CallSummary(llm.ToolCall{Name: tc.name, Arguments: tc.args}); got != tc.want {
			t.Errorf("CallSummary(%s %s) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

// tasks lists each sub-task once, at the turn that started it, with the
// target its call named and the state of its latest notification.
func TestTasksOfTheConversation(t *testing.T) {
	s := newState()
	raw, _ := json.Marshal([]llm.ToolCall{
		{ID: "c1", Name: "invoke_agent", Arguments: `{"agent_name":"A","skill":"echo"}`},
		{ID: "c2", Name: "invoke_agent", Arguments: `{"agent_name":"B","skill":"confirm"}`},
		{ID: "c3", Name: "get_from_working_memory", Arguments: `{"key":"k"}`},
	})
	note := func(task, state, outcome string) memory.Turn {
		return memory.Turn{Role: memory.RoleUser, Meta: map[string]string{MetaKind: caller.KindNotification, caller.MetaTaskID: task,
			caller.MetaAgent: "A", caller.MetaState: state, caller.MetaOutcome: outcome}}
	}
	for i, turn := range []memory.Turn{
		{Role: memory.RoleUser, Content: "go", Meta: map[string]string{MetaKind: KindUser}},
		{Role: memory.RoleAssistant, Meta: map[string]string{MetaKind: KindToolCalls, MetaToolCalls: string(raw)}},
		{Role: memory.RoleTool, Meta: map[string]string{MetaKind: KindToolResult, MetaToolCallID: "c1", MetaStartedTask: "t1"}},
		{Role: memory.RoleTool, Meta: map[string]string{MetaKind: KindToolResult, MetaToolCallID: "c2", MetaStartedTask: "t2"}},
		{Role: memory.RoleTool, Meta: map[string]string{MetaKind: KindToolResult, MetaToolCallID: "c3"}},
		note("t1", string(a2a.TaskStateCompleted), caller.OutcomeAnswer),
		note("t2", string(a2a.TaskStateInputRequired), caller.OutcomeQuestion),
	} {
		turn.Seq = int64(i + 1)
		s.add(turn)
	}
	got := s.tasks()
	want := []Task{
		{ID: "t1", Agent: "A", Skill: "echo", State: a2a.TaskStateCompleted},
		{ID: "t2", Agent: "B", Skill: "confirm", State: a2a.TaskStateInputRequired, Question: true},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("tasks = %+v\nwant %+v", got, want)
	}
	// An answer to t2's question starts its turn 1: it runs again until that turn's notification.
	s.add(memory.Turn{Seq: 8, Role: memory.RoleTool, Meta: map[string]string{MetaKind: KindToolResult, MetaToolCallID: "c4",
		MetaAnsweredTask: "t2", MetaAnsweredTurn: "1"}})
	if got := s.tasks(); len(got) != 2 || got[1].State != "" || got[1].Question {
		t.Fatalf("after the answer: %+v, want t2 running", got)
	}
}
