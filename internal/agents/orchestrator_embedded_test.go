// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestOrchestratorOutcomes: the Orchestrator answers a SUCCESS run as a
// completed task, the report attached; an ERROR run fails the task with the
// failed step's error code and a message naming the step and its error, the
// report kept in working memory; and it passes its task's handoff user
// context to the steps.
func TestOrchestratorOutcomes(t *testing.T) {
	n, err := node.With(orchestratedConfig(), inproc.New(inproc.Options{}), inmem.New(inmem.Options{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := node.NewHost(n) // closes n
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("host close: %v", err)
		}
	})
	if _, err := h.Agent(sample.Card("SampleAgent"), func(a *agent.Agent) error { return sample.Register(a, nil) }); err != nil {
		t.Fatal(err)
	}
	good, err := workflow.Parse("good.yaml", []byte("name: good\nsteps:\n  - {id: npv, agent: SampleAgent, skill: npv, input: {cash_flows: '${input.flows}', discount_rate: 0.12}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := workflow.Parse("bad.yaml", []byte("name: bad\nsteps:\n  - {id: boom, agent: SampleAgent, skill: fail, text: disk on fire}\n"))
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := workflow.Parse("unknown.yaml", []byte("name: unknown\nsteps:\n  - {id: first, agent: SampleAgent, skill: echo, text: hi}\n  - {id: nope, agent: SampleAgent, skill: nope, text: x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agents.NewOrchestrator(h, "Orchestrator", []*workflow.Workflow{good, bad, unknown}); err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	c, err := n.Caller("Client", nil)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	out, err := c.Call(ctx, caller.Request{Target: "Orchestrator", Skill: "good", Input: json.RawMessage(`{"flows":[-100000,25000,35000,45000,55000]}`),
		Handoff: json.RawMessage(`{"userId":"user-456","sessionId":"sess-789"}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, ok := workflow.ReportFrom(out.Result.Artifacts)
	if !ok || out.Err() != nil || rep.Status != workflow.StatusSuccess || rep.UserID != "user-456" || rep.SessionID != "sess-789" ||
		out.Result.Confidence != a2a.ConfidenceHigh || rep.RunID != out.TaskID {
		t.Fatalf("good: %+v %+v", out.Result, rep)
	}
	out, err = c.Call(ctx, caller.Request{Target: "Orchestrator", Skill: "bad", Text: "please"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ae *a2a.Error
	if !errors.As(out.Err(), &ae) || ae.Code != a2a.CodeExecutionFailed || out.Result.State != a2a.TaskStateFailed ||
		ae.Message != "workflow bad run "+out.TaskID+": step boom (SampleAgent.fail) failed: EXECUTION_FAILED: disk on fire" {
		t.Fatalf("bad: %v %+v", out.Err(), out.Result)
	}
	if rep, err := workflow.Show(ctx, n.Memory, out.TaskID); err != nil || rep.Status != workflow.StatusError || rep.FailedStep != "boom" {
		t.Fatalf("bad: the report in working memory: %v %+v", err, rep)
	}
	out, err = c.Call(ctx, caller.Request{Target: "Orchestrator", Skill: "unknown", Text: "please"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.As(out.Err(), &ae) || ae.Code != a2a.CodeSkillNotSupported || !strings.Contains(ae.Message, "step nope (SampleAgent.nope) failed: SKILL_NOT_SUPPORTED: ") {
		t.Fatalf("unknown skill: %v %+v", out.Err(), out.Result)
	}
}

// orchestratedConfig enables what the test calls (deny by default): its
// caller calls the Orchestrator, which calls the reference agents.
func orchestratedConfig() *config.Config {
	cfg := config.Default()
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}}
	return cfg
}
