// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestRenderPastTheBoundFailsTheStep: twenty references to a 3 MB input
// used to render 63 MB before anything checked the size; the step fails at
// workflow.max_render_bytes (default 4 MiB) without being sent, in its
// text and in its input alike.
func TestRenderPastTheBoundFailsTheStep(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ag := startStepAgent(t, w, w.N("Steps"))
		e := newEngine(t, w, w.N("Orch"))
		input := json.RawMessage(`{"q":"` + strings.Repeat("x", 3<<20) + `"}`)
		var fields []string
		for i := range 20 {
			fields = append(fields, `f`+string(rune('a'+i))+`: "${input.q}"`)
		}
		for name, stepSrc := range map[string]string{
			"text":  `{id: big, agent: "%[1]s", skill: ok, text: "` + strings.Repeat("${input.q} ", 20) + `"}`,
			"input": `{id: big, agent: "%[1]s", skill: ok, input: {` + strings.Join(fields, ", ") + `}}`,
		} {
			wf := parse(t, ag.name, "name: amplify_"+name+"\nsteps:\n  - "+stepSrc+"\n")
			rep := execute(t, e, wf, workflow.RunOptions{Input: input})
			if rep.Status != workflow.StatusError || rep.FailedStep != "big" || !strings.Contains(rep.Error, "workflow.max_render_bytes (4 MiB") ||
				!strings.Contains(rep.Error, "${input.q}") || ag.count("big") != 0 {
				t.Fatalf("%s: status %s, failed step %q, error %.300q, ran %d times; want the step refused naming the bound",
					name, rep.Status, rep.FailedStep, rep.Error, ag.count("big"))
			}
		}
	})
}
