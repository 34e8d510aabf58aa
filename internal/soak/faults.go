// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// injector carries out a fault plan on the private servers and the child processes.
type injector struct {
	broker  *Broker
	cluster *Cluster // on a cluster: the node and Redis failover faults
	ledger  *Ledger
	procs   *procs
	agents  []*child
	callers []*child // the always-on callers
	log     *zap.Logger
	rng     *rand.Rand

	// replicated reports whether the working memory may fail over (nil:
	// at once); a Redis failover fault waits for it, up to readyBound.
	replicated func(context.Context) error
	readyBound time.Duration
	// failover crashes the working memory's primary (redis_failover).
	failover func(context.Context) error
	// interrupt is the run's context: when it ends (SIGINT, SIGTERM), the
	// fault being injected has interruptGrace to end its steps.
	interrupt context.Context

	done     map[FaultKind]int // faults carried out, by kind
	failures []string          // faults that could not be carried out

	mu    sync.Mutex
	tried map[FaultKind]int // faults begun, by kind: read during the load (untried)
}

// begun counts the faults begun (injected or failed).
func (in *injector) begun() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, c := range in.tried {
		n += c
	}
	return n
}

// untried lists the kinds of plan of which no fault has begun yet: while
// there are some, the load does not end before its cap (waitLoad).
func (in *injector) untried(plan []Fault) []FaultKind {
	in.mu.Lock()
	defer in.mu.Unlock()
	var kinds []FaultKind
	for _, f := range plan {
		if in.tried[f.Kind] == 0 && !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	return kinds
}

// interruptGrace bounds how long a fault's steps go on once the run is interrupted.
const interruptGrace = 20 * time.Second

// stepsContext is the context of a fault's steps: not ended with the load
// (a stopped broker app is always started again) but interruptGrace after
// the run's context, when it ends.
func (in *injector) stepsContext(ctx context.Context) (context.Context, context.CancelFunc) {
	steps, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if in.interrupt == nil {
		return steps, cancel
	}
	stop := context.AfterFunc(in.interrupt, func() {
		t := time.NewTimer(interruptGrace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-steps.Done():
		}
	})
	return steps, func() {
		stop()
		cancel()
	}
}

// run injects the plan's faults at their times from start until ctx ends or the plan does.
func (in *injector) run(ctx context.Context, start time.Time, plan []Fault) {
	for _, f := range plan {
		t := time.NewTimer(time.Until(start.Add(f.At)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		in.log.Info("fault", zap.Stringer("fault", f))
		in.mu.Lock()
		if in.tried == nil {
			in.tried = map[FaultKind]int{}
		}
		in.tried[f.Kind]++
		in.mu.Unlock()
		if err := in.inject(ctx, f); err != nil {
			in.failures = append(in.failures, fmt.Sprintf("%s: %v", f, err))
			in.log.Warn("fault not injected", zap.Stringer("fault", f), zap.Error(err))
			continue
		}
		in.done[f.Kind]++
	}
}

// inject carries out one fault; a broker restart or a kill is complete
// (the app started again, the process restarted) when it returns.
func (in *injector) inject(ctx context.Context, f Fault) error {
	// Each step may outlive ctx: a stopped broker app is always started
	// again; but not an interrupt by more than interruptGrace.
	bg, cancel := in.stepsContext(ctx)
	defer cancel()
	switch f.Kind {
	case FaultCloseConns:
		b := in.broker
		if in.cluster != nil {
			b = in.cluster.Nodes[in.rng.IntN(len(in.cluster.Nodes))]
		}
		_, err := b.Ctl(bg, time.Minute, "close_all_connections", "soak fault injection")
		return err
	case FaultRedisFailover:
		if in.failover == nil {
			return fmt.Errorf("%s needs a cluster", f.Kind)
		}
		return in.redisFailover(bg)
	case FaultNodeRestart, FaultNodePause:
		if in.cluster == nil {
			return fmt.Errorf("%s needs a cluster", f.Kind)
		}
		return in.clusterFault(bg, f)
	case FaultBrokerRestart:
		if _, err := in.broker.Ctl(bg, 2*time.Minute, "stop_app"); err != nil {
			return err
		}
		sleep(bg, f.Down)
		_, err := in.broker.Ctl(bg, 2*time.Minute, "start_app")
		return err
	case FaultRedisPause:
		mode := "WRITE"
		if f.PauseAll {
			mode = "ALL"
		}
		return in.ledger.Client().Do(bg, "CLIENT", "PAUSE", f.Down.Milliseconds(), mode).Err()
	case FaultKillAgent:
		return in.killAndRestart(bg, in.agents[f.Target])
	case FaultKillCaller:
		return in.killAndRestart(bg, in.callers[f.Target])
	}
	return fmt.Errorf("unknown fault kind %q", f.Kind)
}

// clusterFault carries out a node restart or pause on the cluster.
func (in *injector) clusterFault(ctx context.Context, f Fault) error {
	c := in.cluster
	switch f.Kind {
	case FaultNodeRestart:
		node := f.Target
		if node >= len(c.Nodes) {
			leader, err := c.taskLeader(ctx)
			if err != nil {
				return fmt.Errorf("find the task queues' leader: %w", err)
			}
			node = leader
		}
		in.log.Info("stopping node", zap.String("node", c.Nodes[node].Node), zap.Bool("leader", f.Target >= len(c.Nodes)))
		return c.restartNode(ctx, node, f.Down)
	}
	return c.pauseNode(ctx, f.Target, f.Down)
}

// redisFailover fails the working memory over once its replicas are in
// sync; it is not injected when they are not within readyBound.
func (in *injector) redisFailover(ctx context.Context) error {
	if in.replicated != nil {
		if err := waitFor(ctx, in.readyBound, "the working memory's replicas", in.replicated); err != nil {
			return fmt.Errorf("not failed over: %w", err)
		}
	}
	return in.failover(ctx)
}

// killAndRestart kill -9s c's process, records it, and starts it again after a short random while.
func (in *injector) killAndRestart(ctx context.Context, c *child) error {
	proc := in.procs.kill(c)
	if err := in.ledger.Killed(ctx, proc); err != nil {
		in.log.Warn("kill not recorded", zap.String("proc", proc), zap.Error(err))
	}
	sleep(ctx, time.Duration(200+in.rng.IntN(1300))*time.Millisecond)
	return in.procs.start(c)
}

// sleep waits d or until ctx ends: a fault's own duration, cut short by an interrupt.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// pause waits d: the fault's own duration (a broker down, a process dead), not a synchronisation.
func pause(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	<-t.C
}
