// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
)

// TestReportJSONIsCamelCase: bench --json prints camelCase names only.
func TestReportJSONIsCamelCase(t *testing.T) {
	chain := ChainResult{PerRound: []RoundResult{{LatencyP50Ms: 1}}}
	rep := &Report{RunID: "r", Raw: chain, Project: chain, Observed: &chain, ObservedWith: "metrics", CountPerRound: 1, SecondsPerRound: 1,
		ObservedThroughputRatio: 1, ObservedLatencyP50Ratio: 1, Targets: Targets{ObservedThroughputRatioMin: 1}}
	if bad := testenv.NotCamelCaseJSON(rep); len(bad) > 0 {
		t.Fatalf("%q", bad)
	}
}
