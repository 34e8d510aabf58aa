package workflow

import (
	"context"
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
	rn := &runner{e: e, run: r, steps: map[string]*StepState{first.ID: {ID: first.ID, Phase: PhasePending}}}
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
