// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflows

import (
	"encoding/json"
	"testing"

	"github.com/a2abus/a2abus/pkg/workflow"
)

// TestShippedWorkflowsLoad: every shipped workflow parses, and the business
// case uses the seed's cash flows on agents that exist.
func TestShippedWorkflowsLoad(t *testing.T) {
	wfs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	disk, err := workflow.LoadDir(".")
	if err != nil || len(disk) != len(wfs) {
		t.Fatalf("LoadDir: %v (%d workflows, embedded %d)", err, len(disk), len(wfs))
	}
	var bc *workflow.Workflow
	for _, w := range wfs {
		if w.Name == BusinessCase {
			bc = w
		}
	}
	if bc == nil {
		t.Fatal("no business-case workflow")
	}
	agents := map[string]bool{}
	for _, s := range bc.StepList() {
		agents[s.Agent+"."+s.Skill] = true
	}
	for _, want := range []string{"SampleAgent.npv", "ResearchAgent.research", "SampleAgent.echo"} {
		if !agents[want] {
			t.Errorf("business case does not use %s", want)
		}
	}
	if got := toJSON(t, bc.Defaults["cash_flows"]); got != "[-100000,25000,35000,45000,55000]" {
		t.Errorf("cash flows %s", got)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
