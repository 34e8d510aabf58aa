// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"encoding/json"
	"strings"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/llm"
)

// Task is a sub-task the conversation started, as this process has seen it.
type Task struct {
	// ID is the task id.
	ID string
	// Agent and Skill are what invoke_agent named.
	Agent, Skill string
	// State is the state of the task's latest notification; "" while no
	// notification of its latest turn came (the task runs).
	State a2a.TaskState
	// Question is true when that notification is a question waiting for an answer.
	Question bool
}

// Tasks lists the sub-tasks the conversation started, oldest first, with
// the state of each as the notifications seen so far say.
func (s *Session) Tasks() []Task { return s.state.tasks() }

// tasks is Session.Tasks.
func (s *state) tasks() []Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	calls := map[string]llm.ToolCall{} // by call id
	var out []Task
	for _, t := range s.turns {
		switch {
		case t.Meta[MetaKind] == KindToolCalls:
			for _, c := range toolCalls(t) {
				calls[c.ID] = c
			}
		case t.Role == memory.RoleTool && memory.MetaValue(t.Meta, MetaStartedTask) != "":
			id := memory.MetaValue(t.Meta, MetaStartedTask)
			if s.started[id] != t.Seq {
				continue // listed at the turn that started it
			}
			a := invokeTarget(calls[memory.MetaValue(t.Meta, MetaToolCallID)])
			task := Task{ID: id, Agent: a.AgentName, Skill: a.Skill}
			if n, ok := s.notified[id]; ok && turnOf(n.Meta, caller.MetaTurn) >= s.touched[id].turn {
				task.State, task.Question = a2a.TaskState(n.Meta[caller.MetaState]), isQuestion(n)
			}
			out = append(out, task)
		}
	}
	return out
}

// invokeArgs are the arguments of invoke_agent that name its target.
type invokeArgs struct {
	AgentName string `json:"agent_name"`
	Skill     string `json:"skill"`
	TaskID    string `json:"task_id"`
}

// invokeTarget decodes what c (an invoke_agent call) names; zero when its
// arguments do not decode.
func invokeTarget(c llm.ToolCall) invokeArgs {
	var a invokeArgs
	_ = json.Unmarshal([]byte(c.Arguments), &a) // a call the tool refused names nothing
	return a
}

// ToolCalls returns the tool calls a KindToolCalls turn asks for, nil for
// any other turn (or calls stored unreadably).
func ToolCalls(t memory.Turn) []llm.ToolCall {
	if t.Meta[MetaKind] != KindToolCalls {
		return nil
	}
	return toolCalls(t)
}

// CallSummary is one line for people saying what c asks: the tool's name,
// then for invoke_agent Agent.skill (and the task it answers), for the
// other tools their one naming argument (key, task_id, skill), if any.
func CallSummary(c llm.ToolCall) string {
	var args map[string]any
	_ = json.Unmarshal([]byte(c.Arguments), &args) // arguments that do not decode: the name alone
	word := func(key string) string {
		s, _ := args[key].(string)
		return strings.Join(strings.Fields(s), " ")
	}
	if c.Name == "invoke_agent" {
		out := c.Name
		if target := strings.Trim(word("agent_name")+"."+word("skill"), "."); target != "" {
			out += " " + target
		}
		if id := word("task_id"); id != "" {
			out += " (answers task " + id + ")"
		}
		return out
	}
	for _, key := range []string{"key", "task_id", "skill"} {
		if v := word(key); v != "" {
			return c.Name + " " + v
		}
	}
	return c.Name
}
