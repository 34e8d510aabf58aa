// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// invoke's flags of the caller's context reach the agent: the chosen
// messages of --session's conversation, the budget, the tools narrowed
// (an empty list too), nested calls forbidden.
func TestInvokeCallerContextFlagsReachTheAgent(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName := w.N("CtxAgent")
	useWorld(t, w, map[string]string{"CALLER_NAME": w.N("CtxCaller"), "LOG_LEVEL": "warn"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	session := w.N("cli-conv")
	for _, turn := range []memory.Turn{{Role: "user", Content: "first"}, {Role: "assistant", Content: "second"}, {Role: "user", Content: "third"}} {
		if _, err := w.Memory.AppendTurn(ctx, session, turn); err != nil {
			t.Fatal(err)
		}
	}
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: w.AMQPURL, Exchange: w.Exchange})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: agentName}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan *a2a.TaskRequest, 4)
	_ = a.Handle("echo", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		seen <- task.Request
		return agent.TextResult("ok"), nil
	})
	go func() { _ = a.Run(ctx) }()
	defer a.Close()
	describe := func(r *a2a.TaskRequest) string {
		var said []string
		if r.CallerContext != nil {
			for _, m := range r.CallerContext.Messages {
				said = append(said, m.Role+":"+m.Text)
			}
		}
		tools := "all"
		if r.AllowedTools != nil {
			tools = fmt.Sprint(r.AllowedTools)
		}
		nested := "<nil>"
		if r.AllowNestedCalls != nil {
			nested = fmt.Sprint(*r.AllowNestedCalls)
		}
		return fmt.Sprintf("context=%v[%s] tokens=%d tools=%s nested=%s", r.CallerContext != nil, strings.Join(said, " "), r.MaxContextTokens, tools, nested)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "context=false[] tokens=0 tools=all nested=<nil>"},
		{[]string{"--context-last", "2", "--max-context-tokens", "300", "--allowed-tools", "get_from_working_memory,task_status"},
			"context=true[assistant:second user:third] tokens=300 tools=[get_from_working_memory task_status] nested=<nil>"},
		{[]string{"--context-roles", "user", "--allowed-tools", "", "--allow-nested-calls=false"},
			"context=true[user:first user:third] tokens=0 tools=[] nested=false"},
		{[]string{"--context-max-age", "1h", "--no-nested-calls"}, "context=true[user:first assistant:second user:third] tokens=0 tools=all nested=false"},
	} {
		args := append([]string{"invoke", agentName, "echo", "hi", "--session", session, "--timeout", "20s", "--directory-wait", "0"}, tc.args...)
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		select {
		case got := <-seen:
			if d := describe(got); d != tc.want {
				t.Errorf("%v: %s, want %s", tc.args, d, tc.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the agent never ran the task")
		}
	}
}

// Flags that cannot be sent are refused before anything connects.
func TestInvokeCallerContextFlagsRefused(t *testing.T) {
	isolate(t, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--context-last", "2"}, "name the session with --session"},
		{[]string{"--session", "s1", "--context-last", "-1"}, "--context-last: want 0 or more"},
		{[]string{"--max-context-tokens", "-3"}, "--max-context-tokens: want a positive number"},
		{[]string{"--no-nested-calls", "--allow-nested-calls"}, "contradict each other"},
	} {
		args := append([]string{"invoke", "Anyone", "echo", "hi", "--directory-wait", "0", "--embedded"}, tc.args...)
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d: %s; want 1 saying %q", tc.args, code, errOut, tc.want)
		}
	}
}
