// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

// FaultKind names one kind of injected fault.
type FaultKind string

// The kinds of fault the plan injects.
const (
	// FaultCloseConns closes every client connection of the broker (rabbitmqctl close_all_connections).
	FaultCloseConns FaultKind = "close_connections"
	// FaultBrokerRestart stops the broker app for a few seconds, then starts it.
	FaultBrokerRestart FaultKind = "broker_restart"
	// FaultKillAgent kill -9s one agent process and restarts it.
	FaultKillAgent FaultKind = "kill_agent"
	// FaultKillCaller kill -9s one always-on caller process and restarts it.
	FaultKillCaller FaultKind = "kill_caller"
	// FaultRedisPause pauses the Redis clients (CLIENT PAUSE, WRITE or ALL).
	FaultRedisPause FaultKind = "redis_pause"
	// FaultNodeRestart stops one RabbitMQ node of a cluster (or the one
	// leading the most task queues) for a few seconds, then starts it again.
	FaultNodeRestart FaultKind = "node_restart"
	// FaultNodePause partitions one RabbitMQ node of a cluster away: its VM
	// is stopped (SIGSTOP) for a few seconds, then continued.
	FaultNodePause FaultKind = "node_pause"
	// FaultRedisFailover stops the Redis primary (Sentinel) or a Cluster
	// primary; a replica is promoted; the old one comes back as a replica.
	FaultRedisFailover FaultKind = "redis_failover"
)

// FaultKinds lists every kind on one broker and Redis, in the order the summary shows them.
var FaultKinds = []FaultKind{FaultCloseConns, FaultBrokerRestart, FaultKillAgent, FaultKillCaller, FaultRedisPause}

// ClusterFaultKinds lists the kinds injected on a cluster (scripts/cluster.sh).
var ClusterFaultKinds = []FaultKind{FaultCloseConns, FaultNodeRestart, FaultNodePause, FaultKillAgent, FaultKillCaller, FaultRedisFailover}

// Fault is one fault of a plan.
type Fault struct {
	// At is when the fault starts, from the start of the load.
	At time.Duration
	// Kind is what is done.
	Kind FaultKind
	// Target is the index of the agent or caller killed (kill kinds), or of
	// the node stopped or paused (node kinds; for node_restart, Nodes means
	// the node leading the most task queues).
	Target int
	// Down is how long the broker app stays stopped or Redis paused.
	Down time.Duration
	// PauseAll pauses every Redis command rather than only writes (redis_pause).
	PauseAll bool
}

// String describes the fault for the progress log.
func (f Fault) String() string {
	switch f.Kind {
	case FaultKillAgent, FaultKillCaller:
		return fmt.Sprintf("%s at %s: #%d", f.Kind, f.At.Round(time.Millisecond), f.Target)
	case FaultBrokerRestart:
		return fmt.Sprintf("%s at %s: down %s", f.Kind, f.At.Round(time.Millisecond), f.Down)
	case FaultNodeRestart, FaultNodePause:
		return fmt.Sprintf("%s at %s: node #%d down %s", f.Kind, f.At.Round(time.Millisecond), f.Target, f.Down)
	case FaultRedisPause:
		mode := "WRITE"
		if f.PauseAll {
			mode = "ALL"
		}
		return fmt.Sprintf("%s at %s: %s %s", f.Kind, f.At.Round(time.Millisecond), mode, f.Down)
	}
	return fmt.Sprintf("%s at %s", f.Kind, f.At.Round(time.Millisecond))
}

// PlanOptions shapes a fault plan.
type PlanOptions struct {
	// Seed makes the plan: the same options give the same plan.
	Seed uint64
	// Span is the time over which faults are spread (the expected load time).
	Span time.Duration
	// Agents and Callers are how many agent and always-on caller processes there are to kill.
	Agents, Callers int
	// Nodes is how many RabbitMQ nodes there are to stop or pause (node kinds).
	Nodes int
	// MeanGap is the mean time between two faults; default 8s.
	MeanGap time.Duration
	// Kinds restricts the kinds injected; nil means FaultKinds.
	Kinds []FaultKind
	// EveryKind makes the first faults one of each kind, so that a short
	// plan (or a load that ends early) leaves none out: the quick kinds
	// first, the slow ones (a broker or node down for seconds, a failover)
	// after, each group in a seeded order, all of them before Early; the
	// rest are random.
	EveryKind bool
	// Early bounds when the first fault of each kind falls (EveryKind):
	// they are spread at most MeanGap apart over it; default Span/3.
	Early time.Duration
}

// slowKind reports whether a fault of kind k takes seconds to carry out
// (an app or node stopped and started, a VM stopped, a failover awaited):
// with EveryKind the first faults are the quick kinds, then the slow.
func slowKind(k FaultKind) bool {
	switch k {
	case FaultBrokerRestart, FaultNodeRestart, FaultNodePause, FaultRedisFailover:
		return true
	}
	return false
}

// NewPlan draws a fault plan: faults at random times (exponential gaps of
// mean MeanGap, the first after at least one gap) until Span, each of a
// random kind; with EveryKind, one fault of each kind comes first, all
// before Early. It is deterministic for a seed.
func NewPlan(o PlanOptions) []Fault {
	if o.MeanGap <= 0 {
		o.MeanGap = 8 * time.Second
	}
	kinds := o.Kinds
	if kinds == nil {
		kinds = FaultKinds
	}
	var usable []FaultKind
	for _, k := range kinds {
		nodeKind := k == FaultNodeRestart || k == FaultNodePause
		if (k == FaultKillAgent && o.Agents == 0) || (k == FaultKillCaller && o.Callers == 0) || (nodeKind && o.Nodes == 0) {
			continue
		}
		usable = append(usable, k)
	}
	if len(usable) == 0 || o.Span <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed))
	var plan []Fault
	var first []FaultKind
	// slot is the spacing of the first faults (EveryKind): one each, all
	// before Early.
	var slot time.Duration
	if o.EveryKind {
		first = append(first, usable...)
		rng.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
		sort.SliceStable(first, func(i, j int) bool { return !slowKind(first[i]) && slowKind(first[j]) })
		early := o.Early
		if early <= 0 || early > o.Span {
			early = o.Span / 3
		}
		if slot = min(o.MeanGap, early/time.Duration(len(first))); slot <= 0 {
			first = nil // a span of nanoseconds
		}
	}
	at := time.Duration(0)
	for {
		if n := len(plan); n < len(first) {
			// In the second half of slot n (slots of at most MeanGap):
			// the last one before Early.
			at = slot*time.Duration(n) + time.Duration((0.5+0.5*rng.Float64())*float64(slot))
		} else {
			at += time.Duration(rng.ExpFloat64() * float64(o.MeanGap))
		}
		if at >= o.Span {
			break
		}
		f := Fault{At: at, Kind: usable[rng.IntN(len(usable))]}
		if len(plan) < len(first) {
			f.Kind = first[len(plan)]
		}
		switch f.Kind {
		case FaultKillAgent:
			f.Target = rng.IntN(o.Agents)
		case FaultKillCaller:
			f.Target = rng.IntN(o.Callers)
		case FaultBrokerRestart:
			f.Down = time.Duration(1000+rng.IntN(3000)) * time.Millisecond
		case FaultRedisPause:
			f.Down = time.Duration(200+rng.IntN(1800)) * time.Millisecond
			f.PauseAll = rng.IntN(2) == 0
		case FaultNodeRestart:
			f.Target = rng.IntN(o.Nodes + 1) // o.Nodes: the task queues' leader
			f.Down = time.Duration(1000+rng.IntN(3000)) * time.Millisecond
		case FaultNodePause:
			f.Target = rng.IntN(o.Nodes)
			f.Down = time.Duration(2000+rng.IntN(6000)) * time.Millisecond
		}
		plan = append(plan, f)
	}
	sort.SliceStable(plan, func(i, j int) bool { return plan[i].At < plan[j].At })
	return plan
}

// CountKinds counts the faults of plan by kind, every kind of FaultKinds present.
func CountKinds(plan []Fault) map[FaultKind]int { return countKinds(FaultKinds, plan) }

// countKinds counts the faults of plan by kind, every kind of kinds present.
func countKinds(kinds []FaultKind, plan []Fault) map[FaultKind]int {
	n := make(map[FaultKind]int, len(kinds))
	for _, k := range kinds {
		n[k] = 0
	}
	for _, f := range plan {
		n[f.Kind]++
	}
	return n
}
