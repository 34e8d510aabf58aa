// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/workflow"
)

// BenchmarkStepOverhead measures, on the real RabbitMQ and Redis, one step
// of a workflow beside the direct call it makes: "direct" is caller.Call of
// an echo skill; "workflow-N" runs a workflow of N sequential echo steps and
// reports ns/step. The difference is the engine's overhead per step
// (durable intent, task id and outcome writes, templates, the handoff, the
// lease).
//
//	go test -run '^$' -bench StepOverhead -benchtime 200x ./pkg/workflow/
func BenchmarkStepOverhead(b *testing.B) {
	w := testworld.Real(b)
	ag := startBenchAgent(b, w)
	c := callers.Start(b, w, w.N("BenchOrch"))
	e, err := workflow.New(workflow.Options{Caller: c, Memory: w.Memory})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			out, err := c.Call(ctx, caller.Request{Target: ag, Skill: "ok", Text: "x"}, nil)
			if err != nil || out.Err() != nil {
				b.Fatal(err, out.Err())
			}
		}
	})
	for _, n := range []int{1, 5} {
		var src strings.Builder
		src.WriteString("name: bench\nsteps:\n")
		for i := range n {
			fmt.Fprintf(&src, "  - {id: s%d, agent: %s, skill: ok, text: x}\n", i, ag)
		}
		wf, err := workflow.Parse("bench.yaml", []byte(src.String()))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("workflow-%d", n), func(b *testing.B) {
			for b.Loop() {
				rep, err := e.Execute(ctx, wf, workflow.RunOptions{})
				if err != nil || rep.Status != workflow.StatusSuccess {
					b.Fatal(err, rep)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/step")
		})
	}
}
