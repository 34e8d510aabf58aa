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
)

// FaultKinds lists every kind, in the order the summary shows them.
var FaultKinds = []FaultKind{FaultCloseConns, FaultBrokerRestart, FaultKillAgent, FaultKillCaller, FaultRedisPause}

// Fault is one fault of a plan.
type Fault struct {
	// At is when the fault starts, from the start of the load.
	At time.Duration
	// Kind is what is done.
	Kind FaultKind
	// Target is the index of the agent or caller killed (kill kinds only).
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
	// MeanGap is the mean time between two faults; default 8s.
	MeanGap time.Duration
	// Kinds restricts the kinds injected; nil means all.
	Kinds []FaultKind
}

// NewPlan draws a fault plan: faults at random times (exponential gaps of
// mean MeanGap, the first after at least one gap) until Span, each of a
// random kind. It is deterministic for a seed.
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
		if (k == FaultKillAgent && o.Agents == 0) || (k == FaultKillCaller && o.Callers == 0) {
			continue
		}
		usable = append(usable, k)
	}
	if len(usable) == 0 || o.Span <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed))
	var plan []Fault
	at := time.Duration(0)
	for {
		at += time.Duration(rng.ExpFloat64() * float64(o.MeanGap))
		if at >= o.Span {
			break
		}
		f := Fault{At: at, Kind: usable[rng.IntN(len(usable))]}
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
		}
		plan = append(plan, f)
	}
	sort.SliceStable(plan, func(i, j int) bool { return plan[i].At < plan[j].At })
	return plan
}

// CountKinds counts the faults of plan by kind, every kind present.
func CountKinds(plan []Fault) map[FaultKind]int {
	n := make(map[FaultKind]int, len(FaultKinds))
	for _, k := range FaultKinds {
		n[k] = 0
	}
	for _, f := range plan {
		n[f.Kind]++
	}
	return n
}
