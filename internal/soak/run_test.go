// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"fmt"
	"strings"
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

// TestAgentReplicasSpreadOverTheNodes: with two replicas per agent on a
// cluster, each agent's replicas connect to different nodes (a node
// stopped leaves each agent one consuming its queue), every process has
// its own index, and the kill faults reach all of them.
func TestAgentReplicasSpreadOverTheNodes(t *testing.T) {
	cl := &Cluster{Redis: RedisCluster}
	for i := range 3 {
		cl.Nodes = append(cl.Nodes, &Broker{URL: fmt.Sprintf("amqp://node%d/", i)})
	}
	r := &runner{o: Options{Cluster: cl, Agents: 3, Callers: 2, AgentReplicas: 2, Faults: true, Duration: 10 * time.Minute, MeanGap: time.Second}}
	agents := r.agentChildren([]string{"A0", "A1", "A2"})
	nodes := map[string]map[string]bool{}
	index := map[int]bool{}
	for _, c := range agents {
		if nodes[c.name] == nil {
			nodes[c.name] = map[string]bool{}
		}
		for _, kv := range c.env {
			if url, ok := strings.CutPrefix(kv, "A2ABUS_BUS_URL="); ok {
				nodes[c.name][url] = true
			}
		}
		index[c.index] = true
	}
	for name, urls := range nodes {
		if len(urls) != 2 {
			t.Errorf("agent %s: replicas on %d nodes, want 2", name, len(urls))
		}
	}
	if len(agents) != 6 || len(index) != 6 {
		t.Fatalf("%d agent processes, %d indexes: want 6 of each", len(agents), len(index))
	}
	killed := map[int]bool{}
	for _, f := range r.plan() {
		if f.Kind == FaultKillAgent {
			killed[f.Target] = true
		}
	}
	for target := range killed {
		if target >= len(agents) {
			t.Errorf("kill_agent of #%d: only %d agent processes", target, len(agents))
		}
	}
	if len(killed) <= 3 {
		t.Errorf("kill_agent targets %v: the replicas are never killed", killed)
	}
}

// TestShortSoakPlansEveryKindEarly: with make soak-short's settings (3,000
// tasks at 50/s: a 60 s load under a 60 s cap, a fault every 2.5 s) the
// run's plan holds a fault of each kind in the first third of the expected
// load, and a dozen or more faults before the load ends, whatever the seed:
// the plan of seed 42 once had its first agent kill at 27.7 s, near the end
// of the load, and a CI run injected 1 of its 19 faults; at 100 tasks/s a
// load that ran at full speed ended after 36 s and met 5 of its 20.
func TestShortSoakPlansEveryKindEarly(t *testing.T) {
	o := Options{Faults: true, Tasks: 3000, Rate: 50, Duration: time.Minute, MeanGap: 2500 * time.Millisecond, Agents: 3, Callers: 2}
	for seed := range uint64(200) {
		o.Seed = seed + 42
		r := &runner{o: o, broker: &Broker{}, where: "private"}
		load := r.expectedLoad()
		firstAt := map[FaultKind]time.Duration{}
		during := 0
		for _, f := range r.plan() {
			if _, ok := firstAt[f.Kind]; !ok {
				firstAt[f.Kind] = f.At
			}
			if f.At < load {
				during++
			}
		}
		for _, k := range FaultKinds {
			if at, ok := firstAt[k]; !ok || at >= load/3 {
				t.Errorf("seed %d: first %s at %s (planned: %v), want within the first %s of the %s load", o.Seed, k, at, ok, load/3, load)
			}
		}
		if during < 12 {
			t.Errorf("seed %d: %d faults planned within the %s load, want a dozen or more", o.Seed, during, load)
		}
	}
}
