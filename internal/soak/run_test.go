// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"testing"
	"time"
)

// TestPlanOnSharedServersLeavesTheBrokerAlone: without a private node there
// is no broker to restart or close connections of (the injector would have
// nil to drive); SharedFaults adds only Redis pauses to the kills.
func TestPlanOnSharedServersLeavesTheBrokerAlone(t *testing.T) {
	o := Options{Faults: true, Shared: true, Duration: 5 * time.Minute, MeanGap: time.Second, Agents: 3, Callers: 2}
	for _, sharedFaults := range []bool{false, true} {
		o.SharedFaults = sharedFaults
		r := &runner{o: o, where: "shared"}
		n := CountKinds(r.plan())
		if n[FaultBrokerRestart]+n[FaultCloseConns] > 0 {
			t.Errorf("SharedFaults=%v: broker faults planned on the shared servers: %v", sharedFaults, n)
		}
		if pauses := n[FaultRedisPause]; (pauses > 0) != sharedFaults {
			t.Errorf("SharedFaults=%v: %d Redis pauses planned", sharedFaults, pauses)
		}
		if n[FaultKillAgent] == 0 || n[FaultKillCaller] == 0 {
			t.Errorf("SharedFaults=%v: no kills planned in 5 minutes: %v", sharedFaults, n)
		}
	}
}
