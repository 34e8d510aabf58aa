// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// The configured policy refuses a call before anything is sent.
func TestInvokeRefusedByPolicy(t *testing.T) {
	cfg := isolate(t, "policy:\n  default: allow\n  rules:\n    - caller: Cli\n      deny: [\"Admin*\"]\n")
	code, _, errOut := runCLI(t, "invoke", "AdminTool", "echo", "hi", "--directory-wait", "0", "--config", cfg, "--embedded")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "FORBIDDEN: Cli may not call AdminTool") || !strings.Contains(errOut, `denies target "Admin*"`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Setenv("A2ABUS_POLICY_DEFAULT", "deny")
	code, _, errOut = runCLI(t, "invoke", "Other", "echo", "hi", "--directory-wait", "0", "--config", cfg, "--embedded")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "policy.rules[0] (caller \"Cli\") allows no target and policy.default is deny") {
		t.Fatalf("default deny: exit %d: %s", code, errOut)
	}
}

// --no-nested-calls reaches the agent as the task's allowNestedCalls: false,
// and --stream (or --wait) as its stream: true.
func TestInvokeFlagsReachTheAgent(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName := w.N("NestAgent")
	useWorld(t, w, map[string]string{"CALLER_NAME": w.N("NestCaller"), "LOG_LEVEL": "warn"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
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
	for _, tc := range []struct {
		args   []string
		nested string
		stream bool
	}{
		{[]string{"--wait"}, "<nil>", true},
		{[]string{"--wait", "--no-nested-calls"}, "false", true},
		{nil, "<nil>", false},
		{[]string{"--stream"}, "<nil>", true},
	} {
		args := append([]string{"invoke", agentName, "echo", "hi", "--timeout", "20s", "--directory-wait", "0"}, tc.args...)
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		select {
		case got := <-seen:
			s := "<nil>"
			if got.AllowNestedCalls != nil {
				s = map[bool]string{true: "true", false: "false"}[*got.AllowNestedCalls]
			}
			if s != tc.nested || got.Stream != tc.stream {
				t.Errorf("%v: the task's allowNestedCalls = %s, stream = %v; want %s, %v", tc.args, s, got.Stream, tc.nested, tc.stream)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the agent never ran the task")
		}
	}
}
