// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// run declares the queues, runs the task and cancel consumers and shuts
// them down in order. stop ends the task consumer (ctx is derived from it).
func (a *Agent) run(ctx context.Context, stop context.CancelFunc) error {
	name := a.Name()
	taskSpec, err := bus.TaskQueue(name)
	if err != nil {
		return err
	}
	cancelKey, err := a2a.CancelRoutingKey(name)
	if err != nil {
		return err
	}
	// The instance queue receives cancels and directories' discovery queries.
	instSpec, err := bus.InstanceQueue(name, a.opts.InstanceID, cancelKey, a2a.RoutingKeyDiscoveryQuery)
	if err != nil {
		return err
	}
	if err := a.declare(ctx, taskSpec, instSpec); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return fmt.Errorf("agent %q: %w", name, err)
	}

	// Handlers run under workCtx, which outlives the task consumer by
	// StopTimeout so that in-flight tasks can finish after stop.
	workCtx, cancelWork := context.WithCancelCause(context.Background())
	defer cancelWork(errShutdown)
	budget := newBudget(a.opts, stop)

	// The parts, in the order they stop: the task consumer (with the
	// announcer, the pruner and the idle watch beside it), then the cancel
	// consumer, which outlives it: a cancel may still arrive for a task
	// that is finishing. The goodbye (the announcement that the instance
	// is going) is sent once the task consumer has stopped, while the
	// cancel consumer stops: each is a round trip to the broker, and
	// neither needs the other. A part that fails stops the others.
	g := component.NewGroup()
	_ = g.Add(0, fmt.Sprintf("consume %q", taskSpec.Name), func(ctx context.Context) error {
		return a.consumeTasks(ctx, taskSpec.Name, workCtx, cancelWork, budget)
	}, nil)
	_ = g.Add(0, "announcer", loop(a.announceLoop), nil)
	_ = g.Add(0, "pruner", loop(a.pruneLoop), nil)
	if a.opts.Ephemeral {
		_ = g.Add(0, "idle watch", loop(func(ctx context.Context) { budget.watchIdle(ctx, a.opts.IdleTimeout) }), nil)
	}
	_ = g.Add(1, fmt.Sprintf("consume %q", instSpec.Name), func(ctx context.Context) error {
		return a.opts.Bus.Consume(ctx, instSpec.Name, bus.ConsumeOptions{Concurrency: 1}, a.handleInstance)
	}, nil)
	_ = g.Add(1, "goodbye", nil, func() error { a.announce(context.Background(), true); return nil })
	a.log.Info("agent started", zap.Int("concurrency", a.opts.Concurrency), zap.Bool("ephemeral", a.opts.Ephemeral))
	err = g.Run(ctx, 0)
	a.log.Info("agent stopped", zap.Int("tasks", budget.completed()))
	if err != nil {
		return fmt.Errorf("agent %q: %w", name, err)
	}
	return nil
}

// declare declares the task and instance queues at once (each declaration
// is a few round trips to the broker) and loads the recorded cancels once
// the instance queue exists, so that no cancel falls between: one sent
// later waits in the queue, one sent before was recorded first. The task
// consumer starts only after declare returned, so every task it gets is
// checked against the loaded cancels. The first failure is returned.
func (a *Agent) declare(ctx context.Context, taskSpec, instSpec bus.QueueSpec) error {
	taskErr := make(chan error, 1)
	go func() { taskErr <- a.declareQueue(ctx, taskSpec) }()
	err := a.declareQueue(ctx, instSpec)
	if err == nil {
		a.loadCanceled(ctx)
	}
	if terr := <-taskErr; err == nil {
		err = terr
	}
	return err
}

// declareQueue declares spec's queue on the bus.
func (a *Agent) declareQueue(ctx context.Context, spec bus.QueueSpec) error {
	if err := a.opts.Bus.Declare(ctx, spec); err != nil {
		return fmt.Errorf("declare %q: %w", spec.Name, err)
	}
	return nil
}

// loop is a part that runs f until its context ends.
func loop(f func(context.Context)) func(context.Context) error {
	return func(ctx context.Context) error { f(ctx); return nil }
}

// consumeTasks consumes the task queue until ctx ends; then the tasks in
// flight get StopTimeout before workCtx is cancelled (and they are
// requeued). The goodbye follows (run's "goodbye" part).
func (a *Agent) consumeTasks(ctx context.Context, queue string, workCtx context.Context, cancelWork context.CancelCauseFunc, b *budget) error {
	tasksDone := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-tasksDone:
			return
		}
		t := time.NewTimer(a.opts.StopTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			cancelWork(errShutdown)
		case <-tasksDone:
		}
	}()
	a.observeRunning(true)
	err := a.opts.Bus.Consume(ctx, queue, bus.ConsumeOptions{Concurrency: a.opts.Concurrency, MaxAttempts: a.opts.MaxAttempts},
		a.taskHandler(workCtx, b))
	a.observeRunning(false)
	close(tasksDone)
	return err
}

// budget counts tasks for ephemeral mode and stops the agent when its task
// budget is spent or it has been idle too long.
type budget struct {
	ephemeral bool
	max       int
	stop      context.CancelFunc

	mu       sync.Mutex
	started  int
	done     int
	inFlight int
	lastSeen time.Time
}

func newBudget(o Options, stop context.CancelFunc) *budget {
	return &budget{ephemeral: o.Ephemeral, max: o.MaxTasks, stop: stop, lastSeen: time.Now()}
}

// reserve claims a task slot; false when an ephemeral agent's budget is spent.
func (b *budget) reserve() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastSeen = time.Now()
	if b.ephemeral && b.started >= b.max {
		return false
	}
	b.started++
	b.inFlight++
	return true
}

// finish records the end of a reserved task; settled tells whether it was
// answered and acked (it counts towards the budget) or requeued.
func (b *budget) finish(settled bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight--
	b.lastSeen = time.Now()
	if settled {
		b.done++
	} else {
		b.started-- // requeued: the slot is free again
	}
	if b.ephemeral && b.done >= b.max {
		b.stop()
	}
}

// lastSlot reports whether the task being finished is the one that spends
// the budget, so the consumer can stop before its ack frees the prefetch.
func (b *budget) lastSlot() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ephemeral && b.done+1 >= b.max
}

func (b *budget) completed() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done
}

// watchIdle stops the agent when no task has arrived or run for idle.
func (b *budget) watchIdle(ctx context.Context, idle time.Duration) {
	tick := time.NewTicker(min(idle/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			b.mu.Lock()
			expired := b.inFlight == 0 && time.Since(b.lastSeen) >= idle
			b.mu.Unlock()
			if expired {
				b.stop()
				return
			}
		}
	}
}
