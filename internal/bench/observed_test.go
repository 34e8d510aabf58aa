// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunObserved measures the a2abus chain with metrics and tracing on
// beside the one with them off, reports their ratio and leaves no queue.
func TestRunObserved(t *testing.T) {
	o := realOptions(t)
	o.Observed = true
	var progress bytes.Buffer
	o.Progress = &progress
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, progress.String())
	}
	if c := rep.Observed; c == nil || c.LatencySamples != 10 || c.ThroughputCalls != 48 || c.Throughput <= 0 || len(c.PerRound) != 2 {
		t.Fatalf("observed figures: %+v", rep.Observed)
	}
	if rep.ObservedThroughputRatio <= 0 || rep.ObservedLatencyP50Ratio <= 0 || rep.Targets.ObservedThroughputRatioMin != TargetObservedThroughputRatio {
		t.Errorf("observed ratios: %+v", rep)
	}
	if !strings.Contains(progress.String(), "a2abus+ops throughput") {
		t.Errorf("progress does not mention the observed chain:\n%s", progress.String())
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil || !strings.Contains(table.String(), "+ops/a2abus") {
		t.Errorf("table: %v\n%s", err, table.String())
	}
	expectNoQueues(t, o.AMQPURL, "agent.task.BenchEcho"+rep.RunID+"o", "agent.response.BenchCaller"+rep.RunID+"o")
}
