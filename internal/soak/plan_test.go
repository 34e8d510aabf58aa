// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"reflect"
	"testing"
	"time"
)

func TestPlanIsDeterministicForASeed(t *testing.T) {
	o := PlanOptions{Seed: 42, Span: 5 * time.Minute, Agents: 3, Callers: 2}
	a, b := NewPlan(o), NewPlan(o)
	if len(a) == 0 {
		t.Fatal("a 5-minute plan has no fault")
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different plans:\n%v\n%v", a, b)
	}
	o.Seed = 43
	if reflect.DeepEqual(a, NewPlan(o)) {
		t.Fatal("another seed gave the same plan")
	}
}

func TestPlanStaysWithinItsSpanAndTargets(t *testing.T) {
	o := PlanOptions{Seed: 7, Span: 10 * time.Minute, Agents: 3, Callers: 2, MeanGap: 2 * time.Second}
	plan := NewPlan(o)
	seen := CountKinds(plan)
	for i, f := range plan {
		if f.At <= 0 || f.At >= o.Span {
			t.Errorf("fault %d at %s, outside (0, %s)", i, f.At, o.Span)
		}
		if i > 0 && f.At < plan[i-1].At {
			t.Errorf("fault %d before fault %d", i, i-1)
		}
		switch f.Kind {
		case FaultKillAgent:
			if f.Target < 0 || f.Target >= o.Agents {
				t.Errorf("fault %d kills agent %d of %d", i, f.Target, o.Agents)
			}
		case FaultKillCaller:
			if f.Target < 0 || f.Target >= o.Callers {
				t.Errorf("fault %d kills caller %d of %d", i, f.Target, o.Callers)
			}
		case FaultBrokerRestart, FaultRedisPause:
			if f.Down <= 0 {
				t.Errorf("fault %d has no down time", i)
			}
		}
	}
	for _, k := range FaultKinds {
		if seen[k] == 0 {
			t.Errorf("no %s in a 300-fault plan", k)
		}
	}
}

func TestPlanLeavesOutKindsWithoutTargets(t *testing.T) {
	plan := NewPlan(PlanOptions{Seed: 1, Span: time.Minute, MeanGap: time.Second, Kinds: []FaultKind{FaultKillAgent, FaultKillCaller, FaultCloseConns}})
	for _, f := range plan {
		if f.Kind != FaultCloseConns {
			t.Fatalf("kill planned with no process to kill: %v", f)
		}
	}
}

func TestPlanEveryKindComesFirst(t *testing.T) {
	o := PlanOptions{Seed: 5, Span: time.Hour, Agents: 3, Callers: 2, Nodes: 3, MeanGap: time.Second, Kinds: ClusterFaultKinds, EveryKind: true}
	plan := NewPlan(o)
	if len(plan) < len(ClusterFaultKinds) {
		t.Fatalf("plan of %d faults over an hour", len(plan))
	}
	seen := countKinds(ClusterFaultKinds, plan[:len(ClusterFaultKinds)])
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s %d times among the first %d faults, want once", k, n, len(ClusterFaultKinds))
		}
	}
	for i, f := range plan {
		switch f.Kind {
		case FaultNodeRestart:
			if f.Target < 0 || f.Target > o.Nodes || f.Down <= 0 {
				t.Errorf("fault %d: node_restart of node %d down %s", i, f.Target, f.Down)
			}
		case FaultNodePause:
			if f.Target < 0 || f.Target >= o.Nodes || f.Down <= 0 {
				t.Errorf("fault %d: node_pause of node %d down %s", i, f.Target, f.Down)
			}
		}
	}
	if n := CountKinds(NewPlan(PlanOptions{Seed: 5, Span: time.Hour, Agents: 3, Callers: 2, MeanGap: time.Second, Kinds: ClusterFaultKinds}))[FaultNodePause]; n != 0 {
		t.Errorf("%d node pauses without nodes", n)
	}
}

// With EveryKind a plan begins with one fault of each kind, all before
// Early, the quick kinds before the slow ones (a broker or node down for
// seconds, a failover): whatever the seed, a load that ends early or an
// injector slowed by a slow fault still meets every kind (make soak-short:
// a CI run whose load ended early injected 1 of 19 planned faults, one kind
// of five).
func TestPlanEveryKindEarlyQuickFirst(t *testing.T) {
	for _, c := range []struct {
		name          string
		kinds         []FaultKind
		nodes         int
		early, wantBy time.Duration
	}{
		{"one broker", FaultKinds, 0, 10 * time.Second, 10 * time.Second},
		{"cluster", ClusterFaultKinds, 3, 30 * time.Second, 30 * time.Second},
		{"default early", FaultKinds, 0, 0, 20 * time.Second}, // Span/3
		{"early past the span", FaultKinds, 0, time.Hour, 20 * time.Second},
	} {
		for seed := range uint64(300) {
			o := PlanOptions{Seed: seed, Span: time.Minute, Agents: 3, Callers: 2, Nodes: c.nodes, MeanGap: 2500 * time.Millisecond,
				Kinds: c.kinds, EveryKind: true, Early: c.early}
			plan := NewPlan(o)
			if len(plan) < len(c.kinds) {
				t.Fatalf("%s, seed %d: %d faults, want at least one of each of %d kinds", c.name, seed, len(plan), len(c.kinds))
			}
			first := plan[:len(c.kinds)]
			seen := countKinds(c.kinds, first)
			for k, n := range seen {
				if n != 1 {
					t.Errorf("%s, seed %d: %s %d times among the first %d faults, want once: %v", c.name, seed, k, n, len(first), first)
				}
			}
			for i, f := range first {
				if f.At <= 0 || f.At >= c.wantBy {
					t.Errorf("%s, seed %d: first %s at %s, want in (0, %s)", c.name, seed, f.Kind, f.At, c.wantBy)
				}
				if i > 0 && slowKind(first[i-1].Kind) && !slowKind(f.Kind) {
					t.Errorf("%s, seed %d: quick %s after slow %s", c.name, seed, f.Kind, first[i-1].Kind)
				}
				if i > 0 && f.At-first[i-1].At > 2*o.MeanGap {
					t.Errorf("%s, seed %d: %s %s after the fault before it, mean gap %s", c.name, seed, f.Kind, f.At-first[i-1].At, o.MeanGap)
				}
			}
		}
	}
	// A span of nanoseconds has no room for a fault of each: no panic, no loop.
	_ = NewPlan(PlanOptions{Seed: 1, Span: 3, Agents: 3, Callers: 2, EveryKind: true})
}
