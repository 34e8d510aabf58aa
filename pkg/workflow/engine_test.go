// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/workflow"
)

const sequenceAndGroup = `
name: case
constraints: {risk_tolerance: moderate, timeline: 18_months}
defaults: {rate: 0.12}
steps:
  - id: frame
    title: Framing
    agent: %[1]s
    skill: ok
    text: "frame ${request} for ${input.market}"
  - parallel:
      - id: npv
        title: Financial Analysis
        agent: %[1]s
        skill: ok
        input: {value: "${input.rate}", confidence: MEDIUM}
      - id: research
        agent: %[1]s
        skill: ok
        input: {value: 2}
        no_compare: true
  - id: summary
    agent: %[1]s
    skill: ok
    text: "rate ${steps.npv.data.value}; frame said: ${steps.frame.text}"
`

// TestSequenceGroupTemplatesAndHandoff: steps run in order, the group in
// parallel; templates take the input (with defaults), the request and
// earlier outputs (a number stays a number); every step gets the handoff
// context; the report keeps workflow order and each step's confidence.
func TestSequenceGroupTemplatesAndHandoff(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		e := newEngine(t, w, w.N("Orch"))
		wf := parse(t, ag.name, sequenceAndGroup)
		rep := execute(t, e, wf, workflow.RunOptions{Input: json.RawMessage(`{"market":"DE"}`), Request: "a business case",
			SessionID: "sess-789", UserID: "user-456", Constraints: map[string]any{"timeline": "12_months"}})
		if rep.Status != workflow.StatusSuccess || len(rep.Warnings) > 0 || len(rep.Conflicts) > 0 {
			t.Fatalf("report:\n%s", rep.Text())
		}
		var ids []string
		for _, s := range rep.Steps {
			ids = append(ids, s.ID)
		}
		if strings.Join(ids, ",") != "frame,npv,research,summary" || step(t, rep, "npv").Group == "" {
			t.Fatalf("steps %v", ids)
		}
		if got := ag.text("frame"); got != "frame a business case for DE" {
			t.Errorf("frame text %q", got)
		}
		if got := string(step(t, rep, "npv").Output.Data); got != `{"value":0.12}` {
			t.Errorf("npv data %s (the default rate as a number)", got)
		}
		if got := ag.text("summary"); got != "rate 0.12; frame said: done: frame a business case for DE" {
			t.Errorf("summary text %q", got)
		}
		if step(t, rep, "npv").Output.Confidence != a2a.ConfidenceMedium || rep.Confidence != a2a.ConfidenceMedium {
			t.Errorf("confidences: npv %s, overall %s", step(t, rep, "npv").Output.Confidence, rep.Confidence)
		}
		h := ag.handoff("summary")
		if h == nil {
			t.Fatal("summary got no handoff")
		}
		if h.SessionID != "sess-789" || h.UserID != "user-456" || h.OriginalRequest != "a business case" || h.RunID != rep.RunID ||
			h.WorkflowPosition != "Step 4 of 4 (summary)" || h.Constraints["timeline"] != "12_months" || h.Constraints["risk_tolerance"] != "moderate" {
			t.Errorf("handoff %+v", h)
		}
		if got := strings.Join(h.PriorAgents, ","); got != named(w, "Orch")+","+ag.name+","+ag.name+","+ag.name {
			t.Errorf("prior agents %s", got)
		}
		if len(h.PriorOutputs) != 3 || h.PriorOutputs["npv"] == nil || string(h.PriorOutputs["npv"].Data) != `{"value":0.12}` {
			t.Errorf("prior outputs %+v", h.PriorOutputs)
		}
		if np := ag.handoff("npv"); np == nil || np.WorkflowPosition != "Step 2 of 4 (Financial Analysis)" || len(np.PriorOutputs) != 1 {
			t.Errorf("npv handoff %+v", np)
		}
		for _, id := range []string{"frame", "npv", "research", "summary"} {
			if n := ag.count(id); n != 1 {
				t.Errorf("step %s ran %d times", id, n)
			}
		}
		// Ended: executing the run again returns its report, running nothing.
		again := execute(t, e, wf, workflow.RunOptions{RunID: rep.RunID})
		if again.Status != workflow.StatusSuccess || ag.count("frame") != 1 {
			t.Errorf("a second Execute ran steps again: %s, frame ran %d times", again.Status, ag.count("frame"))
		}
		shown, err := workflow.Show(context.Background(), w.Memory, rep.RunID)
		if err != nil || shown.Status != workflow.StatusSuccess || len(shown.Steps) != 4 || shown.Steps[0].Duration() <= 0 {
			t.Errorf("show: %v %+v", err, shown)
		}
	})
}

// named is the unique name w gave name earlier.
func named(w *testworld.World, name string) string { return w.N(name) }

// TestOutcomes: an optional failure or timeout makes the run PARTIAL with
// warnings naming the step, the results kept; a required failure makes it
// ERROR naming the step, and the steps after it do not run; retries cure a
// flaky step; an input the template cannot resolve fails its step.
func TestOutcomes(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		e := newEngine(t, w, w.N("Orch"))

		partial := parse(t, ag.name, `
name: partial
steps:
  - {id: a, agent: "%[1]s", skill: ok, text: a, input: {value: 1}}
  - parallel:
      - {id: broken, agent: "%[1]s", skill: fail, text: x, optional: true}
      - {id: late, agent: "%[1]s", skill: slow, input: {ms: 5000}, timeout: 300ms, optional: true}
  - {id: flaky, agent: "%[1]s", skill: flaky, input: {failures: 2}, retries: 2}
  - {id: after, agent: "%[1]s", skill: ok, text: "broken gave [${steps.broken.text}]"}
`)
		rep := execute(t, e, partial, workflow.RunOptions{})
		if rep.Status != workflow.StatusPartial || len(rep.Warnings) != 2 ||
			!strings.Contains(rep.Warnings[0], "step broken") || !strings.Contains(rep.Warnings[1], "step late") || !strings.Contains(rep.Warnings[1], "timed out") {
			t.Fatalf("partial:\n%s", rep.Text())
		}
		if s := step(t, rep, "flaky"); s.Phase != workflow.PhaseSucceeded || s.Attempts != 3 || ag.count("flaky") != 3 {
			t.Errorf("flaky: %+v, ran %d times", s, ag.count("flaky"))
		}
		if step(t, rep, "a").Output == nil || ag.text("after") != "broken gave []" {
			t.Errorf("results not kept or the failed step's reference not empty: %q", ag.text("after"))
		}

		failing := parse(t, ag.name, `
name: failing
steps:
  - {id: a, agent: "%[1]s", skill: ok, text: a}
  - {id: b, agent: "%[1]s", skill: fail, text: b, retries: 1}
  - {id: c, agent: "%[1]s", skill: ok, text: c}
`)
		rep = execute(t, e, failing, workflow.RunOptions{})
		if rep.Status != workflow.StatusError || rep.FailedStep != "b" || !strings.Contains(rep.Error, "asked to fail") ||
			step(t, rep, "a").Output == nil || step(t, rep, "c").Phase != workflow.PhasePending || ag.count("b") != 2 {
			t.Fatalf("error (b ran %d times):\n%s", ag.count("b"), rep.Text())
		}

		missing := parse(t, ag.name, `
name: missing
steps:
  - {id: m, agent: "%[1]s", skill: ok, input: {value: "${input.nope}"}}
`)
		rep = execute(t, e, missing, workflow.RunOptions{Input: json.RawMessage(`{"yes":1}`)})
		if rep.Status != workflow.StatusError || rep.FailedStep != "m" || !strings.Contains(rep.Error, `no field "nope"`) || ag.count("m") != 0 {
			t.Fatalf("missing input field:\n%s", rep.Text())
		}
		if _, err := e.Execute(context.Background(), missing, workflow.RunOptions{Input: json.RawMessage(`[1]`)}); !errors.Is(err, workflow.ErrInvalidInput) {
			t.Errorf("array input: %v", err)
		}
	})
}

// TestRetriesFollowTheCodesRule: a step's retries try again what its error
// code allows (a2a.Error.ShouldRetry with the step's explicit bound): a
// result too large for the bus is never run again, failed work and passing
// conditions are, and so is a code this version does not know.
func TestRetriesFollowTheCodesRule(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		e := newEngine(t, w, w.N("Orch"))
		wf := parse(t, ag.name, `
name: codes
steps:
  - parallel:
      - {id: big, agent: "%[1]s", skill: fail, input: {code: RESULT_TOO_LARGE}, retries: 2, optional: true}
      - {id: bad, agent: "%[1]s", skill: fail, input: {code: INVALID_INPUT}, retries: 2, optional: true}
      - {id: bug, agent: "%[1]s", skill: fail, input: {code: INTERNAL}, retries: 1, optional: true}
      - {id: down, agent: "%[1]s", skill: fail, input: {code: UNAVAILABLE}, retries: 1, optional: true}
      - {id: newer, agent: "%[1]s", skill: fail, input: {code: NEWER_FAILURE}, retries: 1, optional: true}
`)
		rep := execute(t, e, wf, workflow.RunOptions{})
		for id, runs := range map[string]int{"big": 1, "bad": 1, "bug": 2, "down": 2, "newer": 2} {
			if s := step(t, rep, id); s.Phase != workflow.PhaseFailed || s.Attempts != runs || ag.count(id) != runs {
				t.Errorf("step %s: phase %s, %d attempts, ran %d times; want failed after %d", id, s.Phase, s.Attempts, ag.count(id), runs)
			}
		}
	})
}

// TestQuorumAndConflicts: a group with a quorum ends when enough members
// succeeded and cancels the rest; values on which steps disagree are
// flagged, the higher confidence preferred.
func TestQuorumAndConflicts(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		e := newEngine(t, w, w.N("Orch"))
		wf := parse(t, ag.name, `
name: quorum
steps:
  - parallel:
      - {id: one, agent: "%[1]s", skill: ok, input: {value: 10, confidence: HIGH}}
      - {id: two, agent: "%[1]s", skill: ok, input: {value: 12, confidence: LOW}}
      - {id: stuck, agent: "%[1]s", skill: slow, input: {ms: 30000}}
    quorum: 2
    id: estimates
`)
		rep := execute(t, e, wf, workflow.RunOptions{})
		if rep.Status != workflow.StatusSuccess || step(t, rep, "stuck").Phase != workflow.PhaseCanceled {
			t.Fatalf("quorum:\n%s", rep.Text())
		}
		if len(rep.Conflicts) != 1 || rep.Conflicts[0].Field != "value" || rep.Conflicts[0].Preferred != "one" || len(rep.Conflicts[0].Values) != 2 {
			t.Fatalf("conflicts %+v", rep.Conflicts)
		}
		if !strings.Contains(rep.Text(), "Conflict: value differs") {
			t.Errorf("text hides the conflict:\n%s", rep.Text())
		}
	})
}

// TestResumeAfterStop: a run whose engine stops mid-step (its context
// ends, as a killed process's would) is resumed by another engine on the
// same caller name and run id: the step in flight is waited for, not run
// again, and the steps before it are not run again.
func TestResumeAfterStop(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		name := w.N("Orch")
		e1 := newEngine(t, w, name)
		wf := parse(t, ag.name, `
name: resume
steps:
  - {id: a, agent: "%[1]s", skill: ok, text: a}
  - {id: b, agent: "%[1]s", skill: slow, input: {ms: 700}}
  - {id: c, agent: "%[1]s", skill: ok, text: "${steps.a.text}"}
`)
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := e1.Execute(ctx, wf, workflow.RunOptions{RunID: "run-" + strings.ToLower(name)})
			done <- err
		}()
		select {
		case <-ag.started:
		case <-time.After(30 * time.Second):
			t.Fatal("step b did not start")
		}
		stop()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped run: %v", err)
		}
		shown, err := workflow.Show(context.Background(), w.Memory, "run-"+strings.ToLower(name))
		if err != nil || shown.Status != workflow.StatusRunning || step(t, shown, "b").Phase != workflow.PhaseRunning {
			t.Fatalf("stored state: %v\n%+v", err, shown)
		}
		e2 := newEngine(t, w, name)
		rep, err := e2.Resume(context.Background(), "run-"+strings.ToLower(name), nil)
		if err != nil || rep.Status != workflow.StatusSuccess {
			t.Fatalf("resume: %v\n%v", err, rep)
		}
		for _, id := range []string{"a", "b", "c"} {
			if n := ag.count(id); n != 1 {
				t.Errorf("step %s ran %d times", id, n)
			}
		}
		other := newEngine(t, w, w.N("Other"))
		if _, err := other.Resume(context.Background(), "run-"+strings.ToLower(name), nil); !errors.Is(err, workflow.ErrWrongCaller) {
			t.Errorf("another caller resumed the run: %v", err)
		}
	})
}

// TestRecoverTaskWithoutID: an engine killed after invoking a step's task
// but before recording its id: the resumed run finds that task and waits
// for it instead of invoking the step again.
func TestRecoverTaskWithoutID(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		name := w.N("Orch")
		e := newEngine(t, w, name)
		wf := parse(t, ag.name, `
name: recover
steps:
  - {id: a, agent: "%[1]s", skill: ok, text: a}
`)
		runID := "rec-" + strings.ToLower(name)
		// The state an engine killed inside invoke leaves: the attempt's intent, no task id.
		invoked := workflow.SimulateInvokeCrash(t, e, w.Memory, wf, runID)
		testenv.Eventually(t, "the task ran", func() bool { return ag.count("a") == 1 })
		rep, err := e.Resume(context.Background(), runID, nil)
		if err != nil || rep.Status != workflow.StatusSuccess {
			t.Fatalf("resume: %v %v", err, rep)
		}
		if n := ag.count("a"); n != 1 || step(t, rep, "a").TaskIDs[0] != invoked {
			t.Fatalf("step a ran %d times, tasks %v (invoked %s)", n, step(t, rep, "a").TaskIDs, invoked)
		}
	})
}
