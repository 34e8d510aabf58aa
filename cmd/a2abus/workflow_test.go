// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestWorkflowRunFileAndShow drives `a2abus workflow run FILE` and
// `workflow show RUN` against an agent on the real servers: exit 0 for
// SUCCESS, 4 for PARTIAL (the warning names the step), 2 for ERROR (the
// failed step named), and show prints the stored run.
func TestWorkflowRunFileAndShow(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName, callerName := w.N("WfAgent"), w.N("WfCli")
	useWorld(t, w, map[string]string{"CALLER_NAME": callerName, "LOG_LEVEL": "warn", "DIRECTORY_WELL_KNOWN_FILE": wellKnownFile(t, agentName, "echo", "fail")})
	startAgent(t, w, agentName, map[string]agent.Handler{
		"echo": func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			return agent.TextResult("echo: " + task.Text()), nil
		},
		"fail": func(_ context.Context, task *agent.Task) (*agent.Result, error) { return nil, errors.New("broken") },
	})

	dir := t.TempDir()
	write := func(name, optional string) string {
		p := filepath.Join(dir, name+".yaml")
		src := fmt.Sprintf("name: %s\nsteps:\n  - {id: hello, agent: %s, skill: echo, text: \"hi ${input.who}\"}\n  - {id: bad, agent: %s, skill: fail, text: x, optional: %s}\n", name, agentName, agentName, optional)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	code, out, errOut := runCLI(t, "workflow", "run", write("partial", "true"), "--input", `{"who":"bob"}`, "--json")
	var rep workflow.Report
	if code != exitPartial || json.Unmarshal([]byte(out), &rep) != nil || rep.Status != workflow.StatusPartial ||
		!strings.Contains(errOut, "step bad") || rep.Steps[0].Output.Text != "echo: hi bob" {
		t.Fatalf("partial: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "workflow", "show", rep.RunID)
	if code != 0 || !strings.Contains(out, "PARTIAL") || !strings.Contains(out, "1. hello") || !strings.Contains(out, "2. bad") || !strings.Contains(out, "failed") {
		t.Fatalf("show: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "workflow", "run", write("failing", "false"), "--input", `{"who":"al"}`)
	if code != exitTaskFailed || !strings.Contains(errOut, "ERROR at bad") || !strings.Contains(out, "Failed: bad") {
		t.Fatalf("error: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, "workflow", "show", "no-such-run")
	if code != 1 || !strings.Contains(errOut, "unknown run") {
		t.Fatalf("unknown run: exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "workflow", "run", write("partial", "true"), "--input", `[1]`)
	if code != 1 || !strings.Contains(errOut, "not a JSON object") {
		t.Fatalf("bad input: exit %d: %s", code, errOut)
	}
}

// TestWorkflowRunChecksTheRun: --run with an invalid id is refused before
// anything is printed or dialled; --run naming a run of another workflow,
// or of another version of the file, is refused naming it (it used to
// resume the stored run, exit 0); the file's own run is resumed.
func TestWorkflowRunChecksTheRun(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName, callerName := w.N("WfAgent"), w.N("WfCli")
	useWorld(t, w, map[string]string{"CALLER_NAME": callerName, "LOG_LEVEL": "warn", "DIRECTORY_WELL_KNOWN_FILE": wellKnownFile(t, agentName, "echo")})
	startAgent(t, w, agentName, map[string]agent.Handler{
		"echo": func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			return agent.TextResult("echo: " + task.Text()), nil
		},
	})
	dir := t.TempDir()
	write := func(file, name, text string) string {
		p := filepath.Join(dir, file)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("name: %s\nsteps:\n  - {id: hello, agent: %s, skill: echo, text: %q}\n", name, agentName, text)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mine, other := write("mine.yaml", "mine", "hi"), write("other.yaml", "other", "hi")
	run := "run-" + strings.ToLower(w.N("r"))

	code, out, errOut := runCLI(t, "workflow", "run", mine, "--run", "../"+run)
	if code != 1 || strings.Contains(errOut, "workflow show") || !strings.Contains(errOut, "--run: workflow: invalid run id") {
		t.Fatalf("invalid run id: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "workflow", "run", mine, "--run", run); code != 0 || !strings.HasPrefix(errOut, "run "+run+" (a2abus workflow show "+run+")") {
		t.Fatalf("first run: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "workflow", "run", other, "--run", run)
	if code != 1 || out != "" || !strings.Contains(errOut, "run "+run+" is a run of workflow mine ("+mine+"), not of other ("+other+")") ||
		strings.Contains(errOut, "workflow show") {
		t.Fatalf("another workflow: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	write("mine.yaml", "mine", "hello there")
	code, out, errOut = runCLI(t, "workflow", "run", mine, "--run", run)
	if code != 1 || !strings.Contains(errOut, "run "+run+" started with another version of workflow mine ("+mine+")") {
		t.Fatalf("another version: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	write("mine.yaml", "mine", "hi")
	code, out, errOut = runCLI(t, "workflow", "run", mine, "--run", run)
	if code != 0 || !strings.HasPrefix(errOut, "resuming run "+run) || !strings.Contains(out, "SUCCESS") {
		t.Fatalf("its own file: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

// TestWorkflowStepCap: a workflow file of more steps than workflow.max_steps
// is refused when it is loaded, naming the count and the key.
func TestWorkflowStepCap(t *testing.T) {
	isolate(t, "")
	t.Setenv("A2ABUS_WORKFLOW_MAX_STEPS", "2")
	p := filepath.Join(t.TempDir(), "three.yaml")
	if err := os.WriteFile(p, []byte("name: three\nsteps:\n  - {id: a, agent: A, skill: k, text: x}\n  - parallel:\n    - {id: b, agent: A, skill: k, text: x}\n    - {id: c, agent: A, skill: k, text: x}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "workflow", "run", p)
	if code != 1 || !strings.Contains(errOut, "workflow "+p+": steps: 3 steps, more than the 2 a workflow may have (workflow.max_steps)") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestWorkflowRunByNameNamesTheFailedStep: a run of the Orchestrator that
// ends in ERROR reaches `workflow run NAME --wait` as the failed step with
// its error (exit 2), its report read back from working memory.
func TestWorkflowRunByNameNamesTheFailedStep(t *testing.T) {
	isolate(t, "")
	w := testworld.Real(t)
	agentName, orch, callerName := w.N("WfAgent"), w.N("WfOrch"), w.N("WfCli")
	useWorld(t, w, map[string]string{"CALLER_NAME": callerName, "LOG_LEVEL": "warn", "DIRECTORY_WELL_KNOWN_FILE": ""})
	startAgent(t, w, agentName, map[string]agent.Handler{
		"fail": func(context.Context, *agent.Task) (*agent.Result, error) { return nil, errors.New("disk on fire") },
	})
	cfg := config.Default()
	cfg.Bus.URL, cfg.Bus.Exchange, cfg.Redis.URL, cfg.Redis.KeyPrefix = w.AMQPURL, w.Exchange, w.RedisURL, w.KeyPrefix
	// Deny by default: the CLI calls the Orchestrator, which calls the agent.
	cfg.Policy.Rules = []config.PolicyRule{{Caller: callerName, Allow: []string{orch}}, {Caller: orch, Allow: []string{agentName}}}
	n, err := node.Open(context.Background(), cfg, orch, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := node.NewHost(n) // closes n
	t.Cleanup(func() { _ = h.Close() })
	wf, err := workflow.Parse("broken.yaml", []byte(fmt.Sprintf("name: broken\nsteps:\n  - {id: boom, agent: %s, skill: fail, text: x}\n", agentName)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agents.NewOrchestrator(h, orch, []*workflow.Workflow{wf}); err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())

	code, out, errOut := runCLI(t, "workflow", "run", "broken", "--orchestrator", orch, "--wait", "--timeout", "20s")
	if code != exitTaskFailed || !strings.Contains(out, "Failed: boom — step boom ("+agentName+".fail) failed: EXECUTION_FAILED: disk on fire") ||
		!strings.Contains(errOut, "ERROR at boom") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "invoke", orch, "broken", "x", "--wait", "--timeout", "20s", "--directory-wait", "0")
	if code != exitTaskFailed || !strings.Contains(errOut, "EXECUTION_FAILED: workflow broken run ") ||
		!strings.Contains(errOut, "step boom ("+agentName+".fail) failed: EXECUTION_FAILED: disk on fire") {
		t.Fatalf("invoke: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}
