// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/intent"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// routeMesh is an Orchestrator and a few agents on one host of a test
// world, with a client to call the Orchestrator.
type routeMesh struct {
	orch, analyst, writer string
	client                *caller.Caller
}

// startRouteMesh starts an Analyst (npv, projection), a Writer (document)
// and an Orchestrator (one workflow) on one host with cfg, and waits until
// the Orchestrator's directory lists them all. Each agent answers
// "<agent>.<skill>: <text>".
func startRouteMesh(t *testing.T, w *testworld.World, cfg *config.Config) *routeMesh {
	t.Helper()
	m := &routeMesh{orch: w.N("Orchestrator"), analyst: w.N("Analyst"), writer: w.N("Writer")}
	cfg.Bus.Exchange = w.Exchange
	n, err := node.With(cfg, w.Connect(t), keepOpen{w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := node.NewHost(n)
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("host close: %v", err)
		}
	})
	answer := func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult(task.Request.Target + "." + task.Request.Skill + ": " + task.Text()), nil
	}
	for _, card := range []a2a.AgentCard{
		{Name: m.analyst, Description: "Financial analysis.", Version: "1", Skills: []a2a.AgentSkill{
			{ID: "npv", Name: "Net present value", Description: "Computes the net present value of a series of cash flows at a discount rate.", Tags: []string{"finance", "npv"}},
			{ID: "projection", Name: "Financial projection", Description: "Projects revenue, costs and cash flows over the coming years from assumptions.", Tags: []string{"finance", "forecast"}},
		}},
		{Name: m.writer, Description: "Writes documents.", Version: "1", Skills: []a2a.AgentSkill{
			{ID: "document", Name: "Write document", Description: "Writes a report, memo or letter from notes.", Tags: []string{"writing", "report"}},
		}},
	} {
		if _, err := h.Agent(card, func(a *agent.Agent) error {
			for _, s := range card.Skills {
				if err := a.Handle(s.ID, answer); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	wf, err := workflow.Parse("memo.yaml", []byte(fmt.Sprintf("name: memo\ndescription: Drafts a memo to the board about a market entry.\nsteps:\n  - {id: draft, agent: %s, skill: document, text: '${request}'}\n", m.writer)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewOrchestrator(h, m.orch, []*workflow.Workflow{wf}); err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	d, err := h.Directory(node.Lister)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the Orchestrator's directory lists the agents", func() bool {
		_, a := d.Lookup(m.analyst)
		_, b := d.Lookup(m.writer)
		return a && b
	}, testenv.Within(20*time.Second))
	m.client = callers.Start(t, w, w.N("Client"))
	return m
}

// route calls the Orchestrator's route skill with text and returns the
// outcome and its report.
func (m *routeMesh) route(t *testing.T, text string) (*caller.Outcome, *intent.Report) {
	t.Helper()
	out, err := m.client.Call(testCtx(t), caller.Request{Target: m.orch, Skill: SkillRoute, Text: text, Timeout: 15 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, ok := intent.ReportFrom(out.Result.Artifacts)
	if !ok {
		t.Fatalf("no classification in %+v (%v)", out.Result, out.Err())
	}
	return out, rep
}

// TestOrchestratorRoutes: on both buses, the Orchestrator's route skill,
// with no model (the keyword matcher), sends a clear request to the agent
// whose card fits and answers with that agent's answer and the
// classification; it declines a request nothing fits, plainly, as a
// completed task listing what the agents can do.
func TestOrchestratorRoutes(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := startRouteMesh(t, w, testConfig(t))
		text := "Compute the net present value of these cash flows at 8%: -1000, 300, 400, 500"
		out, rep := m.route(t, text)
		if out.Err() != nil || a2a.MessageText(out.Result.Message) != m.analyst+".npv: "+text {
			t.Fatalf("route: %v %q", out.Err(), a2a.MessageText(out.Result.Message))
		}
		if rep.Decision != intent.DecisionRoute || rep.TargetAgent != m.analyst || rep.TargetCapability != "npv" || rep.PrimaryIntent != "net_present_value" ||
			rep.Classifier != "matcher" || rep.IntentConfidence < 0.6 || rep.RoutedTask == "" {
			t.Fatalf("route: %+v", rep)
		}

		out, rep = m.route(t, "Draft a memo to the board about our market entry")
		if out.Err() != nil || rep.TargetAgent != m.orch || rep.TargetCapability != "memo" || a2a.MessageText(out.Result.Message) == "" {
			t.Fatalf("route to a workflow: %v %+v", out.Err(), rep)
		}
		if r, ok := workflow.ReportFrom(out.Result.Artifacts); !ok || r.Status != workflow.StatusSuccess || r.Steps[0].Output.Text != m.writer+".document: Draft a memo to the board about our market entry" {
			t.Fatalf("the workflow's report: %+v", r)
		}

		out, rep = m.route(t, "What's the weather tomorrow in Paris?")
		txt := a2a.MessageText(out.Result.Message)
		if out.Err() != nil || out.Result.State != a2a.TaskStateCompleted || rep.Decision != intent.DecisionDecline ||
			!strings.HasPrefix(txt, "None of the agents I can reach can do this. What they can do:") ||
			!strings.Contains(txt, "- Write document ("+m.writer+"): Writes a report") || strings.Contains(txt, "Route (") {
			t.Fatalf("decline: %v %q %+v", out.Err(), txt, rep)
		}
	})
}

// TestOrchestratorRoutesWithModel: with llm configured, the route skill
// asks the (scripted) model, listing the agents' skills and its own
// workflows but not itself, and routes by its answer.
func TestOrchestratorRoutesWithModel(t *testing.T) {
	w := testworld.Embedded(t)
	srv := llmtest.New(t)
	cfg := testConfig(t)
	cfg.LLM.BaseURL, cfg.LLM.Model = srv.URL, "scripted"
	m := startRouteMesh(t, w, cfg)
	srv.Add(llmtest.Reply{Content: fmt.Sprintf(`{"primaryIntent": "document_generation", "intentConfidence": 0.9, "targetAgent": %q, "targetCapability": "document"}`, m.writer),
		Expect: func(r llmtest.Request) error {
			sys := r.Messages[0].Content
			for _, want := range []string{"agent=" + m.analyst + " capability=npv", "agent=" + m.writer + " capability=document", "agent=" + m.orch + " capability=memo"} {
				if !strings.Contains(sys, want) {
					return fmt.Errorf("the prompt does not list %s:\n%s", want, sys)
				}
			}
			if strings.Contains(sys, "capability=route") {
				return fmt.Errorf("the prompt lists the route skill itself:\n%s", sys)
			}
			return nil
		}})
	out, rep := m.route(t, "Put my notes into a short letter")
	if out.Err() != nil || a2a.MessageText(out.Result.Message) != m.writer+".document: Put my notes into a short letter" ||
		rep.Classifier != "llm" || rep.PrimaryIntent != "document_generation" || rep.IntentConfidence != 0.9 {
		t.Fatalf("%v %q %+v", out.Err(), a2a.MessageText(out.Result.Message), rep)
	}
}

// TestOrchestratorRouteTalksBack (needs caller.Reply and the agent side of
// input-required, which this test's base has only as a skeleton: it skips
// until they are there): on both buses, an unsure request ends its first
// turn INPUT_REQUIRED with a clarifying question, and the answer, sent
// with caller.Reply, gets it routed; a request two skills fit offers both
// as options, and the option's number picks one.
func TestOrchestratorRouteTalksBack(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := startRouteMesh(t, w, testConfig(t))
		ctx := testCtx(t)
		ask := func(text string) (caller.Invocation, *a2a.Question) {
			t.Helper()
			inv, err := m.client.Invoke(ctx, caller.Request{Target: m.orch, Skill: SkillRoute, Text: text, Timeout: 15 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			out, err := m.client.Wait(ctx, inv.TaskID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !out.WaitingForInput() || out.Result.State != a2a.TaskStateInputRequired || out.Question() == nil {
				t.Fatalf("%q: not a question: %+v (%v)", text, out.Result, out.Err())
			}
			return inv, out.Question()
		}
		answer := func(inv caller.Invocation, text string) *caller.Outcome {
			t.Helper()
			if _, err := m.client.Reply(ctx, caller.Reply{TaskID: inv.TaskID, Text: text}); err != nil {
				t.Fatal(err)
			}
			out, err := m.client.Wait(ctx, inv.TaskID, nil)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}

		vague := "I want to know more about the quarterly numbers of our northern branch and the staff survey of last year"
		inv, q := ask(vague)
		if len(q.Options) != 0 || !strings.HasPrefix(q.Text, "I am not sure what you need.") {
			t.Fatalf("clarify: %+v", q)
		}
		out := answer(inv, "A revenue forecast and projection for next year.")
		if out.Err() != nil || a2a.MessageText(out.Result.Message) != m.analyst+".projection: "+vague+"\n\nThe user added, when asked: A revenue forecast and projection for next year." {
			t.Fatalf("after clarifying: %v %q", out.Err(), a2a.MessageText(out.Result.Message))
		}

		inv, q = ask("cash flows")
		if len(q.Options) != 2 || q.Options[1].ID != "2" || q.Options[1].Label != "Financial projection ("+m.analyst+")" {
			t.Fatalf("choose: %+v", q)
		}
		out = answer(inv, "2")
		if out.Err() != nil || a2a.MessageText(out.Result.Message) != m.analyst+".projection: cash flows" {
			t.Fatalf("after choosing: %v %q", out.Err(), a2a.MessageText(out.Result.Message))
		}
	})
}
