// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// An engine whose claim on a run is taken away mid-run (it stalled past its
// lease and another engine took the run) stops driving it: it returns
// ErrLeaseLost, writes no end to the run, and leaves the other's lease in
// place. The engine that resumes the run waits for the step already
// invoked instead of invoking it again: every step runs once.
func TestLeaseTakenAwayMidRun(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		name := w.N("Orch")
		runID := "lease-" + strings.ToLower(name)
		wf := parse(t, ag.name, `
name: lease
steps:
  - {id: a, agent: "%[1]s", skill: ok, text: a}
  - {id: b, agent: "%[1]s", skill: slow, input: {ms: 1500}}
  - {id: c, agent: "%[1]s", skill: ok, text: c}
`)
		e1 := newEngine(t, w, name)
		done := make(chan error, 1)
		go func() {
			_, err := e1.Execute(context.Background(), wf, workflow.RunOptions{RunID: runID})
			done <- err
		}()
		select {
		case <-ag.started:
		case <-time.After(30 * time.Second):
			t.Fatal("step b did not start")
		}
		key, err := memory.WorkflowLeaseKey(runID)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Memory.Set(t.Context(), key, []byte("another-engine"), time.Minute); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if !errors.Is(err, workflow.ErrLeaseLost) {
				t.Fatalf("the run whose lease was taken returned %v, want ErrLeaseLost", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the engine drove on after its lease was taken")
		}
		holder, err := w.Memory.Get(t.Context(), key)
		if err != nil || string(holder) != "another-engine" {
			t.Fatalf("lease after the loser stopped: %q, %v; want the other engine's, untouched", holder, err)
		}
		shown, err := workflow.Show(t.Context(), w.Memory, runID)
		if err != nil || shown.Status != workflow.StatusRunning {
			t.Fatalf("stored run after the lease was lost: %v, %+v; want it still running", err, shown)
		}

		if err := w.Memory.Delete(t.Context(), key); err != nil { // the other engine lets go
			t.Fatal(err)
		}
		rep, err := newEngine(t, w, name).Resume(context.Background(), runID, nil)
		if err != nil || rep.Status != workflow.StatusSuccess {
			t.Fatalf("resume: %v\n%v", err, rep)
		}
		for _, id := range []string{"a", "b", "c"} {
			if n := ag.count(id); n != 1 {
				t.Errorf("step %s ran %d times, want once", id, n)
			}
		}
	})
}
