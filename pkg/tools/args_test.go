// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/tools"
)

// TestInvalidArguments checks each tool rejects bad arguments before acting,
// with the exact message an LLM will read and the argument's path.
func TestInvalidArguments(t *testing.T) {
	const invokeKnown = "(known: agent_name, skill, message, input, timeout_seconds, wait_timeout_seconds, priority, wait, task_id, option, context_id, context, max_context_tokens, allowed_tools, allow_nested_calls)"
	long := strings.Repeat("q", 201)
	cases := []struct {
		tool, args string
		path       string // of the first problem
		want       string // the whole error text
	}{
		// invoke_agent
		{"invoke_agent", `{"agent_name":"Echo","message":"hi"}`, "skill",
			`invoke_agent: missing required argument "skill"`},
		{"invoke_agent", `{}`, "agent_name",
			"invoke_agent: missing required argument \"agent_name\"\ninvoke_agent: missing required argument \"skill\"\ninvoke_agent: missing required argument \"message\""},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":900}`, "timeout_seconds",
			`invoke_agent: argument "timeout_seconds": must be <= 300, got 900`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":0}`, "timeout_seconds",
			`invoke_agent: argument "timeout_seconds": must be >= 1, got 0`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":2.5}`, "timeout_seconds",
			`invoke_agent: argument "timeout_seconds": must be an integer, got 2.5`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":"30"}`, "timeout_seconds",
			`invoke_agent: argument "timeout_seconds": must be an integer, got "30"`},
		{"invoke_agent", `{"agnet":"Echo","agent_name":"Echo","skill":"echo","message":"hi"}`, "agnet",
			`invoke_agent: unknown argument "agnet" ` + invokeKnown},
		{"invoke_agent", `{"agent_name":"bad name","skill":"echo","message":"hi"}`, "agent_name",
			`invoke_agent: argument "agent_name": must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$ (a letter, then up to 63 letters, digits, '_' or '-'), got "bad name"`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"a/b","message":"hi"}`, "skill",
			`invoke_agent: argument "skill": must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ (a letter or digit, then up to 63 letters, digits, '_', '.' or '-'), got "a/b"`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":""}`, "message",
			`invoke_agent: argument "message": must not be empty`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":{"text":"hi"}}`, "message",
			`invoke_agent: argument "message": must be a string, got {"text":"hi"}`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","priority":"urgent"}`, "priority",
			`invoke_agent: argument "priority": must be one of "high", "normal", "low", got "urgent"`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","priority":null}`, "priority",
			`invoke_agent: argument "priority": must be a string, got null`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":1000,"x":1}`, "timeout_seconds",
			"invoke_agent: argument \"timeout_seconds\": must be <= 300, got 1000\ninvoke_agent: unknown argument \"x\" " + invokeKnown},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","context":{"last":3}}`, "context/last",
			`invoke_agent: unknown argument "context/last" (known: context/last_messages, context/max_age_seconds, context/roles)`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","context":{"roles":["robot"]}}`, "context/roles/0",
			`invoke_agent: argument "context/roles/0": must be one of "user", "assistant", "system", "tool", "notification", got "robot"`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","context":{"last_messages":0}}`, "context/last_messages",
			`invoke_agent: argument "context/last_messages": must be >= 1, got 0`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","max_context_tokens":0}`, "max_context_tokens",
			`invoke_agent: argument "max_context_tokens": must be >= 1, got 0`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","allowed_tools":["rm -rf"]}`, "allowed_tools/0",
			`invoke_agent: argument "allowed_tools/0": must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$, got "rm -rf"`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","allow_nested_calls":"yes"}`, "allow_nested_calls",
			`invoke_agent: argument "allow_nested_calls": must be a boolean, got "yes"`},
		{"invoke_agent", `[1,2]`, "", `invoke_agent: the arguments are not a JSON object: got [1,2]`},
		{"invoke_agent", `null`, "", `invoke_agent: the arguments are not a JSON object: got null`},
		{"invoke_agent", `"agent_name=Echo"`, "", `invoke_agent: the arguments are not a JSON object: got "agent_name=Echo"`},
		{"invoke_agent", `{"agent_name":`, "", `invoke_agent: the arguments are not a JSON object: unexpected EOF`},
		{"invoke_agent", `agent_name: Echo`, "",
			`invoke_agent: the arguments are not a JSON object: invalid character 'a' looking for beginning of value (at byte 1)`},
		{"invoke_agent", `{"agent_name":"Echo"} {}`, "", `invoke_agent: the arguments are not a JSON object: invalid character after top-level value`},
		// list_known_agents
		{"list_known_agents", `{"skill":"web search"}`, "skill",
			`list_known_agents: argument "skill": must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ (a letter or digit, then up to 63 letters, digits, '_', '.' or '-'), got "web search"`},
		{"list_known_agents", `{"query":"` + long + `"}`, "query",
			`list_known_agents: argument "query": must be at most 200 characters long, got 201`},
		{"list_known_agents", `{"agent":"Echo"}`, "agent",
			`list_known_agents: unknown argument "agent" (known: skill, query, limit, cursor)`},
		{"list_known_agents", `{"limit":0}`, "limit",
			`list_known_agents: argument "limit": must be >= 1, got 0`},
		{"list_known_agents", `{"limit":500}`, "limit",
			`list_known_agents: argument "limit": must be <= 100, got 500`},
		{"list_known_agents", `{"limit":2.5}`, "limit",
			`list_known_agents: argument "limit": must be an integer, got 2.5`},
		{"list_known_agents", `{"limit":"20"}`, "limit",
			`list_known_agents: argument "limit": must be an integer, got "20"`},
		{"list_known_agents", `{"cursor":7}`, "cursor",
			`list_known_agents: argument "cursor": must be a string, got 7`},
		{"list_known_agents", `{"cursor":"` + strings.Repeat("c", 201) + `"}`, "cursor",
			`list_known_agents: argument "cursor": must be at most 200 characters long, got 201`},
		{"list_known_agents", `{"cursor":"Echo"}`, "cursor",
			`list_known_agents: argument "cursor": "Echo" is not a cursor of list_known_agents; pass the nextCursor of the previous result unchanged, or omit it for the first page`},
		{"list_known_agents", `{"cursor":"YWZ0ZXI6bm8gbmFtZQ"}`, "cursor", // "after:no name"
			`list_known_agents: argument "cursor": "YWZ0ZXI6bm8gbmFtZQ" is not a cursor of list_known_agents; pass the nextCursor of the previous result unchanged, or omit it for the first page`},
		{"list_known_agents", `{"query":7}`, "query",
			`list_known_agents: argument "query": must be a string, got 7`},
		// get_from_working_memory
		{"get_from_working_memory", `{}`, "key",
			`get_from_working_memory: missing required argument "key"`},
		{"get_from_working_memory", `{"key":""}`, "key",
			`get_from_working_memory: argument "key": must not be empty`},
		{"get_from_working_memory", `{"key":"` + strings.Repeat("k", 513) + `"}`, "key",
			`get_from_working_memory: argument "key": must be at most 512 characters long, got 513`},
		{"get_from_working_memory", `{"key":"session/s1/a b"}`, "key",
			`get_from_working_memory: argument "key": not a valid key: key "session/s1/a b" byte 12 (' ') is a space, a control character or not ASCII`},
		{"get_from_working_memory", `{"key":"session/s1/../s2/x"}`, "key",
			`get_from_working_memory: argument "key": not a valid key: key "session/s1/../s2/x" segment 3 is ".."`},
		{"get_from_working_memory", `{"key":"session/s2/a2a/Echo/t1/result"}`, "key",
			`get_from_working_memory: argument "key": "session/s2/a2a/Echo/t1/result" is not a key of this conversation; its keys start with "session/s1/" (use the memoryKey from invoke_agent or from a notification)`},
		{"get_from_working_memory", `{"key":["session/s1/x"]}`, "key",
			`get_from_working_memory: argument "key": must be a string, got ["session/s1/x"]`},
		{"invoke_agent", `{"agent_name":"Echo","skill":"echo","message":"hi","wait":"yes"}`, "wait",
			`invoke_agent: argument "wait": must be a boolean, got "yes"`},
		// task_status, cancel_task
		{"task_status", `{}`, "task_id", `task_status: missing required argument "task_id"`},
		{"task_status", `{"task_id":"a/b"}`, "task_id",
			`task_status: argument "task_id": must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$ (letters, digits, '_' or '-', at most 128), got "a/b"`},
		{"cancel_task", `{"task_id":7}`, "task_id", `cancel_task: argument "task_id": must be a string, got 7`},
		{"cancel_task", `{"task_id":"t1","reason":"x"}`, "reason", `cancel_task: unknown argument "reason" (known: task_id)`},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			f := newFixture(t, fakeResolver{"Echo": {"echo"}})
			_, err := f.call(t, c.tool, c.args)
			if err == nil || err.Error() != c.want {
				t.Fatalf("%s(%.60s):\n got: %v\nwant: %s", c.tool, c.args, err, c.want)
			}
			var ae *tools.ArgumentError
			if !errors.Is(err, tools.ErrInvalidArguments) || !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *ArgumentError wrapping ErrInvalidArguments", err)
			}
			if ae.Tool != c.tool || ae.Path != c.path {
				t.Errorf("first problem names tool %q path %q, want %q and %q", ae.Tool, ae.Path, c.tool, c.path)
			}
			if n := len(f.inv.requests()); n != 0 || f.agents.calls != 0 || f.tasks.reads != 0 {
				t.Errorf("the tool acted on bad arguments: %d invocations, %d listings, %d task reads", n, f.agents.calls, f.tasks.reads)
			}
		})
	}
}

func TestInvalidKeyKeepsTheCause(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.call(t, "get_from_working_memory", `{"key":"session/s1/a*"}`)
	if !errors.Is(err, memory.ErrInvalidKey) || !errors.Is(err, tools.ErrInvalidArguments) {
		t.Fatalf("error %v does not wrap both memory.ErrInvalidKey and ErrInvalidArguments", err)
	}
}

// TestValidArgumentsAccepted checks the forms LLMs send that the schema allows.
func TestValidArgumentsAccepted(t *testing.T) {
	f := newFixture(t, nil)
	for _, args := range []string{``, ` `, `{}`, `{"skill":"echo"}`, `{"query":"web"}`, `{"skill":"echo","query":""}`,
		`{"limit":1}`, `{"limit":100}`, `{"limit":2e1}`, `{"cursor":""}`, `{"cursor":"YWZ0ZXI6ZWNobw","limit":5}`} {
		if _, err := f.call(t, "list_known_agents", args); err != nil {
			t.Errorf("list_known_agents(%q) = %v", args, err)
		}
	}
	for _, args := range []string{
		`{"agent_name":"Echo","skill":"echo","message":"hi"}`,
		`{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":300,"priority":"low","input":null}`,
		`{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":1,"input":[1,"a",{"b":null}]}`,
		`{"agent_name":"Echo","skill":"echo","message":"hi","timeout_seconds":3e1,"input":"text"}`,
	} {
		if _, err := f.call(t, "invoke_agent", args); err != nil {
			t.Errorf("invoke_agent(%s) = %v", args, err)
		}
	}
}
