// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestStepCostDoesNotGrowWithTheWorkflow: the engine's own work for a step
// (templates, handoff, position, judging its node) allocates as much in a
// run of 3000 steps as in one of 100 — it used to copy every step's state
// and rebuild the whole report after each step.
func TestStepCostDoesNotGrowWithTheWorkflow(t *testing.T) {
	short, long := workflow.StepBookkeepingAllocs(t, 100), workflow.StepBookkeepingAllocs(t, 3000)
	// A few allocations more for longer step ids (a buffer grows once more)
	// are not growth with the workflow; the copies it used to make were
	// thousands.
	if long > short*1.1 {
		t.Fatalf("a step of a 3000-step run allocates %v times, of a 100-step run %v", long, short)
	}
}

// TestHandoffCarriesTheLatestOutputs: a step's handoff carries the outputs
// of the latest steps that succeeded (Options.MaxHandoffOutputs), in
// workflow order, not of every step before it.
func TestHandoffCarriesTheLatestOutputs(t *testing.T) {
	w := testworld.Embedded(t)
	ag := startStepAgent(t, w, w.N("Steps"))
	e, err := workflow.New(workflow.Options{Caller: callers.Start(t, w, w.N("Orch")), Memory: w.Memory, MaxHandoffOutputs: 5})
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	src.WriteString("name: long\nsteps:\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&src, "  - {id: s%d, agent: %%[1]s, skill: ok, text: 'step %d'}\n", i, i)
	}
	rep := execute(t, e, parse(t, ag.name, src.String()), workflow.RunOptions{})
	if rep.Status != workflow.StatusSuccess {
		t.Fatalf("report:\n%s", rep.Text())
	}
	h := ag.handoff("s12")
	if h == nil || len(h.PriorOutputs) != 5 || len(h.PriorAgents) != 6 || h.StepIndex != 12 || h.StepCount != 12 {
		t.Fatalf("handoff of s12: %+v", h)
	}
	for i := 7; i <= 11; i++ {
		if o := h.PriorOutputs[fmt.Sprintf("s%d", i)]; o == nil || o.Text != fmt.Sprintf("done: step %d", i) {
			t.Errorf("handoff of s12 lacks s%d: %+v", i, h.PriorOutputs)
		}
	}
	if h := ag.handoff("s3"); h == nil || len(h.PriorOutputs) != 2 || h.PriorOutputs["s1"] == nil || h.PriorOutputs["s2"] == nil {
		t.Fatalf("handoff of s3: %+v", h)
	}
}

// TestStepCap: a workflow of more steps than the bound (group members
// included) is refused when it is loaded, naming the count and the bound;
// Execute refuses one built in Go the same way.
func TestStepCap(t *testing.T) {
	var src strings.Builder
	src.WriteString("name: big\nsteps:\n  - parallel:\n      - {id: g1, agent: A, skill: k, text: x}\n      - {id: g2, agent: A, skill: k, text: x}\n")
	for i := range workflow.DefaultMaxSteps - 1 {
		fmt.Fprintf(&src, "  - {id: s%d, agent: A, skill: k, text: x}\n", i)
	}
	_, err := workflow.Parse("big.yaml", []byte(src.String()))
	var se *workflow.SpecError
	if !errors.As(err, &se) || se.Field != "steps" || !strings.Contains(err.Error(), "workflow big.yaml: steps: 201 steps, more than the 200 a workflow may have (workflow.max_steps)") {
		t.Fatalf("Parse: %v", err)
	}
	wf, err := workflow.Loader{MaxSteps: 201}.Parse("big.yaml", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	w := testworld.Embedded(t)
	e, err := workflow.New(workflow.Options{Caller: callers.Start(t, w, w.N("Orch")), Memory: w.Memory, MaxSteps: 200})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Execute(context.Background(), wf, workflow.RunOptions{}); !errors.Is(err, workflow.ErrInvalid) || !strings.Contains(err.Error(), "201 steps") {
		t.Fatalf("Execute: %v", err)
	}
}

// TestResumeRefusesAnotherWorkflow: a stored run is resumed only with the
// workflow it started with — another workflow, or another version of it,
// is refused naming both — and OnStart says whether the run was resumed.
func TestResumeRefusesAnotherWorkflow(t *testing.T) {
	w := testworld.Embedded(t)
	ag := startStepAgent(t, w, w.N("Steps"))
	e := newEngine(t, w, w.N("Orch"))
	first := parse(t, ag.name, "name: first\nsteps:\n  - {id: a, agent: %[1]s, skill: ok, text: one}\n")
	var starts []bool
	ro := workflow.RunOptions{RunID: "resume-check", OnStart: func(id string, resumed bool) {
		if id != "resume-check" {
			t.Errorf("OnStart of %q", id)
		}
		starts = append(starts, resumed)
	}}
	if rep := execute(t, e, first, ro); rep.Status != workflow.StatusSuccess {
		t.Fatalf("report:\n%s", rep.Text())
	}
	other := parse(t, ag.name, "name: other\nsteps:\n  - {id: a, agent: %[1]s, skill: ok, text: one}\n")
	_, err := e.Execute(context.Background(), other, ro)
	if !errors.Is(err, workflow.ErrRunMismatch) || !strings.Contains(err.Error(), "run resume-check is a run of workflow first (test.yaml), not of other (test.yaml)") {
		t.Fatalf("another workflow: %v", err)
	}
	edited := parse(t, ag.name, "name: first\nsteps:\n  - {id: a, agent: %[1]s, skill: ok, text: two}\n")
	if _, err := e.Execute(context.Background(), edited, ro); !errors.Is(err, workflow.ErrRunMismatch) || !strings.Contains(err.Error(), "another version of workflow first") {
		t.Fatalf("another version: %v", err)
	}
	again := parse(t, ag.name, "name: first\nsteps:\n  - {id: a, agent: %[1]s, skill: ok, text: one}\n")
	if rep := execute(t, e, again, ro); rep.Status != workflow.StatusSuccess || ag.count("a") != 1 {
		t.Fatalf("the same workflow: %d runs of a, report:\n%s", ag.count("a"), rep.Text())
	}
	if fmt.Sprint(starts) != "[false true]" {
		t.Fatalf("OnStart saw resumed = %v, want [false true]", starts)
	}
}
