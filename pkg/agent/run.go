package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
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
	for _, spec := range []bus.QueueSpec{taskSpec, instSpec} {
		if err := a.opts.Bus.Declare(ctx, spec); err != nil {
			if ctx.Err() != nil {
				return nil // stopped while starting
			}
			return fmt.Errorf("agent %q: declare %q: %w", name, spec.Name, err)
		}
	}
	a.loadCanceled(ctx) // after the instance queue exists, so no cancel falls between

	// Handlers run under workCtx, which outlives ctx by StopTimeout so that
	// in-flight tasks can finish after stop.
	workCtx, cancelWork := context.WithCancelCause(context.Background())
	defer cancelWork(errShutdown)
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

	// The cancel consumer outlives the task consumer: a cancel may still
	// arrive for a task that is finishing.
	cancelCtx, stopCancels := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var cancelErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		cancelErr = a.opts.Bus.Consume(cancelCtx, instSpec.Name, bus.ConsumeOptions{Concurrency: 1}, a.handleInstance)
		if cancelErr != nil && cancelCtx.Err() == nil {
			stop() // without cancels the agent cannot honour its contract
		}
	}()

	wg.Add(2)
	go func() {
		defer wg.Done()
		a.announceLoop(ctx)
	}()
	go func() {
		defer wg.Done()
		a.pruneLoop(ctx)
	}()

	budget := newBudget(a.opts, stop)
	if a.opts.Ephemeral {
		go budget.watchIdle(ctx, a.opts.IdleTimeout)
	}
	a.log.Info("agent started", zap.Int("concurrency", a.opts.Concurrency), zap.Bool("ephemeral", a.opts.Ephemeral))
	a.observeRunning(true)
	taskErr := a.opts.Bus.Consume(ctx, taskSpec.Name,
		bus.ConsumeOptions{Concurrency: a.opts.Concurrency, MaxAttempts: a.opts.MaxAttempts},
		a.taskHandler(workCtx, budget))
	a.observeRunning(false)
	close(tasksDone)
	a.announce(context.Background(), true)
	stopCancels()
	wg.Wait()
	a.log.Info("agent stopped", zap.Int("tasks", budget.completed()))

	if taskErr != nil {
		return fmt.Errorf("agent %q: consume %q: %w", name, taskSpec.Name, taskErr)
	}
	if cancelErr != nil && !errors.Is(cancelErr, context.Canceled) {
		return fmt.Errorf("agent %q: consume %q: %w", name, instSpec.Name, cancelErr)
	}
	return nil
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
