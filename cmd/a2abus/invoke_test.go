// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

func TestInvokeWaitTimesOutOnEmbeddedBus(t *testing.T) {
	isolate(t, "")
	// Not checked against the directory: the task waits for an agent that never comes.
	code, out, errOut := runCLI(t, "invoke", "Nobody", "echo", "hi", "--wait", "--timeout", "1s", "--directory-wait", "0", "--embedded")
	if code != exitTaskFailed || !strings.Contains(errOut, "TIMEOUT") || !strings.Contains(out, "state=failed") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

func TestInvokeRefusesWhatTheDirectoryDoesNotKnow(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_DIRECTORY_WELL_KNOWN_FILE", filepath.Join("..", "..", "well-known-agents.json"))
	code, _, errOut := runCLI(t, "invoke", "SampleAgnet", "echo", "hi", "--directory-wait", "100ms", "--embedded")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "AGENT_NOT_FOUND") || !strings.Contains(errOut, "SampleAgent") {
		t.Fatalf("unknown agent: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "invoke", "sampleagent", "translate", "hi", "--directory-wait", "100ms", "--embedded")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "SKILL_NOT_SUPPORTED") || !strings.Contains(errOut, "echo") {
		t.Fatalf("unknown skill: exit %d: %s", code, errOut)
	}
	// A well-known agent that is not running is accepted: its task waits for it.
	code, out, errOut := runCLI(t, "invoke", "researchagent", "research", "what is KEDA", "--directory-wait", "100ms", "--embedded")
	if code != 0 || !strings.Contains(out, "/a2a/ResearchAgent/") {
		t.Fatalf("well-known agent: exit %d: %s %s", code, out, errOut)
	}
}

func TestInvokeBadArguments(t *testing.T) {
	isolate(t, "")
	cases := [][]string{
		{"invoke", "a.b", "echo", "x", "--directory-wait", "0"},
		{"invoke", "A", "echo", "x", "--input", "{"},
		{"invoke", "A", "echo", "x", "--priority", "urgent"},
		{"invoke", "A", "echo"},
		{"conversation", "show", "../x"},
	}
	for _, args := range cases {
		args = append(args, "--embedded")
		if code, _, errOut := runCLI(t, args...); code != 1 || !strings.HasPrefix(errOut, "a2abus: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestInvokeAgainstRealServers runs an agent in this process on the real
// RabbitMQ and drives it with the CLI: invoke --wait, memory get/list,
// conversation show, and a failing task's exit code.
func TestInvokeAgainstRealServers(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t) // a private exchange, key prefix and names, removed at the end
	amqpURL, exchange := w.AMQPURL, w.Exchange
	agentName, callerName, id := w.N("CliAgent"), w.N("CliCaller"), strings.ToLower(w.N("s"))
	for k, v := range map[string]string{"BUS_URL": amqpURL, "BUS_EXCHANGE": exchange, "REDIS_URL": w.RedisURL,
		"REDIS_KEY_PREFIX": w.KeyPrefix, "CALLER_NAME": callerName, "LOG_LEVEL": "warn",
		"POLICY_RULES": fmt.Sprintf(`[{"caller":%q,"allow":[%q]}]`, callerName, agentName)} {
		t.Setenv("A2ABUS_"+k, v)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: amqpURL, Exchange: exchange})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: agentName}, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	_ = a.Handle("echo", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult("echo: " + task.Text()), nil
	})
	_ = a.Handle("fail", func(_ context.Context, task *agent.Task) (*agent.Result, error) { return nil, errors.New(task.Text()) })
	go func() { _ = a.Run(ctx) }()
	defer a.Close()

	code, out, errOut := runCLI(t, "invoke", agentName, "echo", "hello", "--wait", "--json", "--session", "cli-"+id, "--timeout", "20s")
	if code != 0 {
		t.Fatalf("invoke --wait: exit %d: %s", code, errOut)
	}
	var res struct {
		TaskID    string `json:"taskId"`
		MemoryKey string `json:"memoryKey"`
		Result    struct {
			State   string `json:"state"`
			Message struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Result.Message.Parts) == 0 || res.Result.Message.Parts[0].Text != "echo: hello" {
		t.Fatalf("stdout %s (%v)", out, err)
	}
	if !strings.Contains(errOut, "status: "+agentName+" working") {
		t.Errorf("no status line on stderr: %q", errOut)
	}
	code, out, _ = runCLI(t, "memory", "get", res.MemoryKey)
	if code != 0 || !strings.Contains(out, `"echo: hello"`) || !strings.Contains(out, res.TaskID) {
		t.Fatalf("memory get: exit %d: %s", code, out)
	}
	code, out, _ = runCLI(t, "memory", "list", "session/cli-"+id+"/")
	if code != 0 || !strings.Contains(out, res.MemoryKey) || !strings.Contains(out, "(ttl 1h0m0s)") && !strings.Contains(out, "(ttl 59m") {
		t.Fatalf("memory list: exit %d: %s", code, out)
	}
	code, out, _ = runCLI(t, "conversation", "show", "cli-"+id)
	if code != 0 || !strings.Contains(out, "#1 ") || !strings.Contains(out, "[Agent '"+agentName+"' completed task "+res.TaskID) ||
		!strings.Contains(out, res.MemoryKey) {
		t.Fatalf("conversation show: exit %d: %s", code, out)
	}
	code, out, errOut = runCLI(t, "invoke", agentName, "fail", "disk on fire", "--wait", "--timeout", "20s")
	if code != exitTaskFailed || !strings.Contains(errOut, "EXECUTION_FAILED: disk on fire") || !strings.Contains(out, "state=failed") {
		t.Fatalf("failing task: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "invoke", agentName, "echo", "fire and forget")
	if code != 0 || !strings.Contains(out, "task_id:") || !strings.Contains(out, "memory_key: session/") {
		t.Fatalf("invoke without --wait: exit %d: %s", code, out)
	}
}
