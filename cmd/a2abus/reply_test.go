// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// questionedOutput is what invoke --wait --json prints of a task that waits for input.
type questionedOutput struct {
	TaskID          string        `json:"taskId"`
	ContextID       string        `json:"contextId"`
	Turn            int           `json:"turn"`
	WaitingForInput bool          `json:"waitingForInput"`
	Question        *a2a.Question `json:"question"`
	Result          struct {
		State string `json:"state"`
	} `json:"result"`
}

// TestReplyAgainstRealServers drives a task that talks back with the CLI,
// an agent in this process on the real RabbitMQ and Redis: invoke --wait
// prints the question with its options (escaped) and exits 4; wait shows
// it again; reply --option answers it and waits for the result; a reply
// to the finished task, to a task whose turn runs, to another caller's
// task is refused with its code and exit 3; to no known task, exit 1;
// invoke --task answers too; --context continues a context; --json prints
// the question.
func TestReplyAgainstRealServers(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName, callerName, id := w.N("Clerk"), w.N("CliCaller"), strings.ToLower(w.N("s"))
	for k, v := range map[string]string{"BUS_URL": w.AMQPURL, "BUS_EXCHANGE": w.Exchange, "REDIS_URL": w.RedisURL,
		"REDIS_KEY_PREFIX": w.KeyPrefix, "CALLER_NAME": callerName, "LOG_LEVEL": "warn",
		"POLICY_RULES": fmt.Sprintf(`[{"caller":%q,"allow":[%q]}]`, callerName, agentName)} {
		t.Setenv("A2ABUS_"+k, v)
	}
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
	_ = a.Handle("book", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		if task.Turn() == 0 {
			return agent.Ask("which room?\x1b[2J", a2a.Option{ID: "small", Label: "Small"}, a2a.Option{ID: "large", Label: "Large", Description: "for 12"}), nil
		}
		return agent.TextResult(fmt.Sprintf("booked %s (%d earlier)", task.Text(), len(task.ContextHistory()))), nil
	})
	_ = a.Handle("hold", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		if task.Turn() == 0 {
			return agent.Ask("go on?"), nil
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	go func() { _ = a.Run(ctx) }()
	defer a.Close()
	session := "--session=cli-q-" + id

	code, out, errOut := runCLI(t, "invoke", agentName, "book", "a room", "--wait", "--timeout", "20s", session)
	if code != cliutil.ExitInputRequired || !strings.Contains(out, agentName+" asks (task ") || !strings.Contains(out, `which room?\x1b[2J`) ||
		!strings.Contains(out, "    large    Large — for 12\n") || !strings.Contains(out, "a2abus reply ") || !strings.Contains(out, "state=input_required") ||
		!strings.Contains(errOut, "INPUT_REQUIRED") {
		t.Fatalf("invoke of a task that asks: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	task := strings.Fields(out[strings.Index(out, "(task ")+len("(task "):])[0]
	task = strings.TrimSuffix(task, ",")

	code, out, _ = runCLI(t, "wait", task, "--json")
	var q questionedOutput
	if err := json.Unmarshal([]byte(out), &q); code != cliutil.ExitInputRequired || err != nil || !q.WaitingForInput || q.TaskID != task ||
		q.Question == nil || len(q.Question.Options) != 2 || q.Result.State != string(a2a.TaskStateInputRequired) || q.ContextID == "" {
		t.Fatalf("wait --json of a waiting task: exit %d (%v): %s", code, err, out)
	}

	code, _, errOut = runCLI(t, "reply", task, "--option", "medium")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "INVALID_INPUT") || !strings.Contains(errOut, "small, large") {
		t.Fatalf("reply with an option not offered: exit %d: %s", code, errOut)
	}
	code, out, errOut = runCLI(t, "reply", task, "--option", "large", "--wait", "--timeout", "20s")
	if code != 0 || !strings.Contains(out, "booked large (0 earlier)") || !strings.Contains(out, "state=completed") {
		t.Fatalf("reply --option --wait: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "reply", task, "small", "--json")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "TASK_FINISHED") || !strings.Contains(out, `"exitCode":3`) {
		t.Fatalf("reply to a finished task: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}

	// A follow-up in the same context, answered through invoke --task.
	code, out, _ = runCLI(t, "invoke", agentName, "book", "another room", "--wait", "--json", "--context", q.ContextID, "--timeout", "20s", session)
	var next questionedOutput
	if err := json.Unmarshal([]byte(out), &next); code != cliutil.ExitInputRequired || err != nil || next.ContextID != q.ContextID {
		t.Fatalf("invoke --context: exit %d (%v): %s", code, err, out)
	}
	code, out, errOut = runCLI(t, "invoke", "--task", next.TaskID, "small", "--wait", "--timeout", "20s")
	if code != 0 || !strings.Contains(out, "booked small (2 earlier)") {
		t.Fatalf("invoke --task --wait: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}

	// A task whose answer's turn runs: another answer is INVALID_STATE.
	code, out, _ = runCLI(t, "invoke", agentName, "hold", "x", "--wait", "--json", "--timeout", "20s", session)
	var held questionedOutput
	if err := json.Unmarshal([]byte(out), &held); code != cliutil.ExitInputRequired || err != nil {
		t.Fatalf("hold: exit %d (%v): %s", code, err, out)
	}
	code, out, _ = runCLI(t, "reply", held.TaskID, "yes", "--json", "--timeout", "20s")
	var answered struct {
		TaskID string `json:"taskId"`
		Turn   int    `json:"turn"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &answered); code != 0 || err != nil || answered.Turn != 1 || answered.Status != "answered" {
		t.Fatalf("reply without --wait: exit %d (%v): %s", code, err, out)
	}
	code, _, errOut = runCLI(t, "reply", held.TaskID, "again")
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "INVALID_STATE") {
		t.Fatalf("reply to a running turn: exit %d: %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "cancel", held.TaskID); code != 0 {
		t.Fatalf("cancel: exit %d: %s", code, errOut)
	}

	// Another caller's task, and no task at all.
	code, out, _ = runCLI(t, "invoke", agentName, "book", "x", "--wait", "--json", "--timeout", "20s", "--session=cli-q2-"+id)
	var mine questionedOutput
	if err := json.Unmarshal([]byte(out), &mine); code != cliutil.ExitInputRequired || err != nil {
		t.Fatalf("book: exit %d (%v): %s", code, err, out)
	}
	code, _, errOut = runCLI(t, "reply", mine.TaskID, "small", "--caller", w.N("Other"))
	if code != cliutil.ExitRefused || !strings.Contains(errOut, "FORBIDDEN") {
		t.Fatalf("reply to another caller's task: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "reply", "no-such-task", "small")
	if code != cliutil.ExitFailure || !strings.Contains(errOut, "has no record of it") {
		t.Fatalf("reply to an unknown task: exit %d: %s", code, errOut)
	}
}

// Bad answers are refused before anything is opened: nothing to answer,
// bad JSON, --option or --context where they do not apply.
func TestReplyBadArguments(t *testing.T) {
	isolate(t, "")
	for _, args := range [][]string{
		{"reply", "t1"},
		{"reply", "t1", "x", "--input", "{"},
		{"reply"},
		{"invoke", "A", "echo", "x", "--option", "1"},
		{"invoke", "--task", "t1", "x", "--context", "c1"},
		{"invoke", "--task", "t1", "x", "y"},
	} {
		if code, _, errOut := runCLI(t, append(args, "--embedded")...); code != cliutil.ExitFailure || !strings.HasPrefix(errOut, "a2abus: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
