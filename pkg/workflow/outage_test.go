// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// Working memory down for 1.5s while a step runs (its answer arrives, the
// engine waits for it and renews its lease meanwhile): the run rides the
// outage out with memory.Retry and succeeds, the step run once.
func TestRunRidesOutAMemoryOutage(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		down := &testworld.DownMemory{Memory: w.Memory}
		w.Memory = down
		t.Cleanup(func() { w.Memory = down.Memory }) // the world closes the real one
		ag := startStepAgent(t, w, w.N("Steps"))
		e := newEngine(t, w, w.N("Orch"))
		go func() {
			<-ag.started
			down.Down.Store(true)
			time.Sleep(1500 * time.Millisecond)
			down.Down.Store(false)
		}()
		wf := parse(t, ag.name, `
name: outage
steps:
  - {id: s, agent: "%[1]s", skill: slow, input: {ms: 300}}
  - {id: after, agent: "%[1]s", skill: ok, text: "after ${steps.s.text}"}
`)
		rep := execute(t, e, wf, workflow.RunOptions{})
		if rep.Status != workflow.StatusSuccess || ag.count("s") != 1 || down.Fails.Load() == 0 {
			t.Fatalf("ran s %d times, %d failed memory calls:\n%s", ag.count("s"), down.Fails.Load(), rep.Text())
		}
	})
}
