// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import "time"

// kinds are the fault kinds the servers allow.
func (r *runner) kinds() []FaultKind {
	switch {
	case r.o.Cluster != nil:
		return ClusterFaultKinds
	case r.broker == nil && r.o.SharedFaults:
		return []FaultKind{FaultKillAgent, FaultKillCaller, FaultRedisPause}
	case r.broker == nil:
		return []FaultKind{FaultKillAgent, FaultKillCaller}
	}
	return FaultKinds
}

// plan is the run's fault plan: the kinds the servers allow, one of each first.
func (r *runner) plan() []Fault {
	if !r.o.Faults {
		return nil
	}
	nodes := 0
	if r.o.Cluster != nil {
		nodes = len(r.o.Cluster.Nodes)
	}
	// Faults go on until the load's cap (a slow load meets them all); the
	// first of each kind falls in the first third of the expected load.
	return NewPlan(PlanOptions{Seed: r.o.Seed, Span: r.o.Duration, Agents: r.o.Agents * r.agentReplicas(), Callers: r.o.Callers, Nodes: nodes,
		MeanGap: r.o.MeanGap, Kinds: r.kinds(), EveryKind: true, Early: r.expectedLoad() / 3})
}

// expectedLoad is how long the load should take: the tasks at Options.Rate,
// within the cap; 0 when the rate is not bounded (the plan's Early then
// takes its default, a third of the cap).
func (r *runner) expectedLoad() time.Duration {
	if r.o.Rate <= 0 {
		return 0
	}
	d := time.Duration(float64(r.o.Tasks) / r.o.Rate * float64(time.Second))
	if r.o.Duration > 0 {
		d = min(d, r.o.Duration)
	}
	return d
}
