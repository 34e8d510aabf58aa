// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// A run stored before the JSON became camelCase: its state and a step's
// state (attempts and output) in snake_case.
const (
	oldRunState = `{"id":"old-run","workflow":{"name":"wf","steps":[{"step":{"id":"a","agent":"A","skill":"k","text":"x"}}]},` +
		`"input":{},"session_id":"s1","user_id":"u1","step_session":"wf-old-run","caller":"Orch","status":"SUCCESS",` +
		`"created":"2025-01-01T00:00:00Z","ended":"2025-01-01T00:00:05Z"}`
	oldStepState = `{"id":"a","phase":"succeeded","attempts":[{"n":1,"intent":"2025-01-01T00:00:01Z","task_id":"t-1",` +
		`"ended":"2025-01-01T00:00:04Z","status":"SUCCESS"}],"output":{"agent":"A","skill":"k","task_id":"t-1","status":"SUCCESS",` +
		`"text":"done","data":{"cash_flows":[1]}},"started":"2025-01-01T00:00:01Z","ended":"2025-01-01T00:00:04Z"}`
)

// TestShowReadsARunStoredInSnakeCase: workflow show of a run (and its
// steps) stored in the old snake_case form gives the same report as of one
// stored today; what the engine writes is camelCase.
func TestShowReadsARunStoredInSnakeCase(t *testing.T) {
	ctx := context.Background()
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = mem.Close() })
	runKey, _ := memory.WorkflowRunKey("old-run")
	stepKey, _ := memory.WorkflowStepKey("old-run", "a")
	if err := mem.Set(ctx, runKey, []byte(oldRunState), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := mem.Set(ctx, stepKey, []byte(oldStepState), time.Hour); err != nil {
		t.Fatal(err)
	}
	rep, err := workflow.Show(ctx, mem, "old-run")
	if err != nil {
		t.Fatal(err)
	}
	if rep.SessionID != "s1" || rep.UserID != "u1" || rep.StepSession != "wf-old-run" || rep.Status != workflow.StatusSuccess {
		t.Fatalf("run fields lost: %+v", rep)
	}
	st := rep.Steps[0]
	if !slices.Equal(st.TaskIDs, []string{"t-1"}) || st.Output == nil || st.Output.TaskID != "t-1" || string(st.Output.Data) != `{"cash_flows":[1]}` {
		t.Fatalf("step fields lost: %+v, output %+v", st, st.Output)
	}
	if bad := testenv.NotCamelCaseJSON(rep); len(bad) != 1 || bad[0] != `$.steps[].output.data: key "cash_flows"` {
		t.Fatalf("the report is not camelCase (only the step's own data may be): %q", bad)
	}
}

// TestReportFromReadsASnakeCaseReport: a result stored before camelCase
// carries its report in snake_case (a2abus wait, workflow run --wait).
func TestReportFromReadsASnakeCaseReport(t *testing.T) {
	var data map[string]any
	old := `{"run_id":"r1","workflow":"wf","status":"ERROR","failed_step":"a","steps":[{"id":"a","agent":"A","skill":"k",` +
		`"phase":"failed","attempts":1,"task_ids":["t-1"]}],"session_id":"s1","user_id":"u1","step_session":"wf-r1","created":"2025-01-01T00:00:00Z"}`
	if err := json.Unmarshal([]byte(old), &data); err != nil {
		t.Fatal(err)
	}
	art := &a2a.Artifact{ID: workflow.ReportArtifactID, Parts: []*a2a.Part{a2a.NewDataPart(data)}}
	rep, ok := workflow.ReportFrom([]*a2a.Artifact{art})
	if !ok || rep.RunID != "r1" || rep.FailedStep != "a" || rep.SessionID != "s1" || rep.UserID != "u1" || rep.StepSession != "wf-r1" ||
		!slices.Equal(rep.Steps[0].TaskIDs, []string{"t-1"}) {
		t.Fatalf("ReportFrom = %+v, %v", rep, ok)
	}
}

// TestHandoffOfReadsASnakeCaseHandoff: a step's request queued before the
// upgrade carries its handoff in snake_case.
func TestHandoffOfReadsASnakeCaseHandoff(t *testing.T) {
	old := `{"version":1,"session_id":"s1","user_id":"u1","original_request":"plan it","workflow":"wf","run_id":"r1","step":"b",` +
		`"workflow_position":"Step 2 of 2 (b)","step_index":2,"step_count":2,"prior_agents":["Orch","A"],` +
		`"prior_outputs":{"a":{"agent":"A","skill":"k","task_id":"t-1","status":"SUCCESS","text":"done"}}}`
	h, ok, err := workflow.HandoffOf(&agent.Task{Request: &a2a.TaskRequest{Handoff: json.RawMessage(old)}})
	if err != nil || !ok {
		t.Fatalf("HandoffOf: %v, %v", ok, err)
	}
	if h.SessionID != "s1" || h.UserID != "u1" || h.OriginalRequest != "plan it" || h.RunID != "r1" || h.WorkflowPosition == "" ||
		h.StepIndex != 2 || h.StepCount != 2 || len(h.PriorAgents) != 2 || h.PriorOutputs["a"] == nil || h.PriorOutputs["a"].TaskID != "t-1" {
		t.Fatalf("handoff fields lost: %+v", h)
	}
}

// TestWorkflowJSONIsCamelCase: what the engine stores (run and step state),
// prints (the report) and sends (the handoff) has camelCase names only.
func TestWorkflowJSONIsCamelCase(t *testing.T) {
	now := time.Now().UTC()
	out := &workflow.Output{Agent: "A", Skill: "k", TaskID: "t", Status: a2a.StatusSuccess, Text: "x", Warnings: []string{"w"}}
	for _, v := range []any{
		&workflow.RunState{ID: "r", Workflow: &workflow.Workflow{Name: "wf", Defaults: map[string]any{"x": 1}}, Input: json.RawMessage(`{}`),
			SessionID: "s", UserID: "u", StepSession: "wf-r", Caller: "C", Status: workflow.StatusRunning, Created: now, Ended: now},
		&workflow.StepState{ID: "a", Phase: workflow.PhaseSucceeded, Attempts: []*workflow.Attempt{{N: 1, Intent: now, TaskID: "t", Ended: now,
			Status: a2a.StatusSuccess, Error: a2a.NewError(a2a.CodeTimeout, "late")}}, Output: out, Started: now, Ended: now},
		&workflow.Report{RunID: "r", Workflow: "wf", Status: workflow.StatusError, FailedStep: "a", Error: "e", Warnings: []string{"w"},
			Steps:     []workflow.StepReport{{ID: "a", Agent: "A", Skill: "k", TaskIDs: []string{"t"}, Output: out, Started: now, Ended: now}},
			Conflicts: []workflow.Conflict{{Field: "f", Values: []workflow.ConflictValue{{Step: "a", Agent: "A", Value: 1}}, Preferred: "a"}},
			SessionID: "s", UserID: "u", StepSession: "wf-r", Created: now, Ended: now},
		&workflow.Handoff{Version: 1, SessionID: "s", UserID: "u", OriginalRequest: "r", Workflow: "wf", RunID: "r", Step: "a",
			WorkflowPosition: "Step 1 of 1 (a)", StepIndex: 1, StepCount: 1, PriorAgents: []string{"O"}, PriorOutputs: map[string]*workflow.Output{"a": out},
			Constraints: map[string]any{"budget": 1}},
	} {
		if bad := testenv.NotCamelCaseJSON(v); len(bad) > 0 {
			t.Errorf("%T: %q", v, bad)
		}
	}
}
