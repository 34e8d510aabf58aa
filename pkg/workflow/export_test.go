// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// SimulateInvokeCrash leaves the state an engine killed inside invoke
// leaves — run wf's first step's attempt intent recorded, its task invoked,
// its task id not recorded — and returns the invoked task's id.
func SimulateInvokeCrash(t testing.TB, e *Engine, mem memory.Memory, wf *Workflow, runID string) string {
	t.Helper()
	ctx := context.Background()
	r, err := e.newRun(wf, RunOptions{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	s := store{mem: mem, ttl: time.Hour}
	if err := s.saveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	first := wf.StepList()[0]
	rn := newRunner(e, r, map[string]*StepState{first.ID: {ID: first.ID, Phase: PhasePending}}, nil)
	req, err := rn.request(first)
	if err != nil {
		t.Fatal(err)
	}
	st := &StepState{ID: first.ID, Phase: PhaseRunning, Started: time.Now().UTC(), Attempts: []*Attempt{{N: 1, Intent: time.Now().UTC()}}}
	if err := s.saveStep(ctx, runID, st); err != nil {
		t.Fatal(err)
	}
	inv, err := e.opts.Caller.Invoke(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return inv.TaskID
}

// StepBookkeepingAllocs is the allocations of the engine's own work for the
// last step of a run of n sequential steps whose n-1 first succeeded:
// building its request (templates, handoff), its position and judging its
// node once it ended.
func StepBookkeepingAllocs(t testing.TB, n int) float64 {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: long\nsteps:\n  - {id: s1, agent: A, skill: k, text: first}\n")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, "  - {id: s%d, agent: A, skill: k, text: 'after ${steps.s1.text}'}\n", i)
	}
	wf, err := Loader{MaxSteps: n}.Parse("long.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	list := wf.StepList()
	states := map[string]*StepState{}
	for _, s := range list[:len(list)-1] {
		states[s.ID] = &StepState{ID: s.ID, Phase: PhaseSucceeded, Output: &Output{Agent: "A", Skill: "k", Status: "SUCCESS", Text: "out of " + s.ID}}
	}
	e := &Engine{opts: Options{MaxHandoffText: DefaultMaxHandoffText, MaxHandoffOutputs: DefaultMaxHandoffOutputs}}
	r := &RunState{ID: "r", Workflow: wf, Input: []byte(`{}`), Caller: "Orch", StepSession: "wf-r"}
	rn := newRunner(e, r, states, nil)
	last, lastNode := list[len(list)-1], wf.Steps[len(wf.Steps)-1]
	return testing.AllocsPerRun(20, func() {
		if _, err := rn.request(last); err != nil {
			t.Fatal(err)
		}
		_, _ = rn.position(last)
		_ = judgeNode(lastNode, rn.published)
	})
}
