// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"go.uber.org/zap"
)

// interruptBound bounds how long an interrupted run waits for its fault
// injector and one-shot callers (each bounded already: interruptGrace,
// stopTimeout) before it tears down what it started all the same.
const interruptBound = stopTimeout + interruptGrace

// newInjector is the run's fault injector; interrupt is the run's context.
func (r *runner) newInjector(interrupt context.Context) *injector {
	in := &injector{broker: r.broker, cluster: r.o.Cluster, ledger: r.ledger, procs: r.procs, agents: r.agents, callers: r.callers, log: r.log,
		rng: rand.New(rand.NewPCG(r.o.Seed, 1)), done: countKinds(r.kinds(), nil), interrupt: interrupt, readyBound: replicatedBound}
	if c := r.o.Cluster; c != nil {
		in.replicated = c.replicated
		in.failover = func(ctx context.Context) error { return c.failover(ctx, in.rng.IntN) }
	}
	return in
}

// interrupted ends a run whose context ended during the load (SIGINT,
// SIGTERM): it waits, up to interruptBound, for the injector and the
// one-shot callers, and returns a summary marked Interrupted with what was
// done so far — no drain, no check: it fails.
func (r *runner) interrupted(injecting, oneShots *sync.WaitGroup, in *injector, plan []Fault, loadStart time.Time) *Summary {
	r.log.Warn("interrupted: stopping the load and the faults")
	done := make(chan struct{})
	go func() {
		injecting.Wait()
		oneShots.Wait()
		close(done)
	}()
	t := time.NewTimer(interruptBound)
	defer t.Stop()
	finished := true
	select {
	case <-done:
	case <-t.C:
		finished = false
		r.log.Warn("the injector or a one-shot caller did not end in time: tearing down all the same", zap.Duration("bound", interruptBound))
	}
	sum := &Summary{Interrupted: true, LoadSecs: time.Since(loadStart).Seconds(), Seed: r.o.Seed, Agents: r.o.Agents, Callers: r.o.Callers,
		Servers: r.where, FaultsPlanned: len(plan), FaultsPlannedByKind: countKinds(r.kinds(), plan), Faults: countKinds(r.kinds(), nil)}
	if finished { // else the injector still writes them
		sum.Faults, sum.FaultFailures, sum.FaultsUnreached = in.done, len(in.failures), len(plan)-in.begun()
		for _, f := range in.failures {
			sum.Problems = append(sum.Problems, "fault not injected: "+f)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if issued, err := r.ledger.Client().Get(ctx, r.ledger.key(keyIssued)).Int(); err == nil {
		sum.Tasks = min(issued, r.o.Tasks)
	}
	sum.Crashes = r.procs.crashCount()
	return sum
}
