// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package component

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Group runs named parts side by side and stops them in stages: every part
// of the lowest stage first, together, and each later stage only once every
// part of the one before has returned. A part is stopped by cancelling the
// context its run got; once run has returned, its close (if any) is called.
// The parts' contexts do not end with the context given to Start: only Stop
// ends them, so that one ending context cannot stop them out of order.
//
// A part whose run returns before Stop (it failed, or finished on its own,
// like an ephemeral agent that spent its task budget) closes Exited, so its
// owner can stop the rest; the error it returned is reported by Stop.
type Group struct {
	mu       sync.Mutex
	base     context.Context // nil until Start
	members  []*member
	stopping bool
	stopErr  error
	stopped  chan struct{} // closed when the first Stop has finished

	exited   chan struct{} // closed when a part returns before Stop
	exitOnce sync.Once
}

type member struct {
	name   string
	stage  int
	run    func(context.Context) error
	close  func() error
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned (at once for a part without run)
	err    error         // run's error, set before done is closed
	early  bool          // run returned before Stop asked it to
	ran    bool          // run was started (set under the group's lock)
}

// ErrStopping: a part was added to a group that is stopping or stopped.
var ErrStopping = errors.New("component: group is stopping")

// NewGroup returns an empty group.
func NewGroup() *Group {
	return &Group{exited: make(chan struct{}), stopped: make(chan struct{})}
}

// Add adds a part in stage: run (nil for a part that only needs closing)
// runs from Start on, or at once when the group has started; close (may be
// nil) is called once run has returned at stop. It returns ErrStopping once
// Stop was called; the part is then neither run nor closed.
func (g *Group) Add(stage int, name string, run func(context.Context) error, close func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return fmt.Errorf("%w: %s not started", ErrStopping, name)
	}
	m := &member{name: name, stage: stage, run: run, close: close, done: make(chan struct{})}
	g.members = append(g.members, m)
	if g.base != nil {
		g.launch(m)
	}
	return nil
}

// Start runs every part added so far, each in a goroutine of its own, under
// a context that keeps ctx's values but not its cancellation. A second
// Start does nothing.
func (g *Group) Start(ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.base != nil || g.stopping {
		return
	}
	g.base = context.WithoutCancel(ctx)
	for _, m := range g.members {
		g.launch(m)
	}
}

// launch starts m; g.mu is held.
func (g *Group) launch(m *member) {
	if m.run == nil {
		close(m.done)
		return
	}
	m.ran = true
	ctx, cancel := context.WithCancel(g.base)
	m.cancel = cancel
	go func() {
		err := m.run(ctx)
		g.mu.Lock()
		m.err, m.early = err, !g.stopping
		g.mu.Unlock()
		close(m.done)
		if m.early {
			g.exitOnce.Do(func() { close(g.exited) })
		}
	}()
}

// Exited is closed when a part's run returns before Stop asked it to.
func (g *Group) Exited() <-chan struct{} { return g.exited }

// Run starts the group and stops it (see Stop) when ctx ends or a part
// returns on its own.
func (g *Group) Run(ctx context.Context, bound time.Duration) error {
	g.Start(ctx)
	select {
	case <-ctx.Done():
	case <-g.exited:
	}
	return g.Stop(bound)
}

// Stop stops the parts stage by stage, lowest first, and returns the errors
// of runs that returned on their own, of runs that failed while stopping
// (context.Canceled is a clean stop) and of the closes, each named by its
// part. bound (0: none) limits the wait for each part's run; a part that
// overruns it is reported and closed anyway, and its stage is not waited for
// any longer. Stop is idempotent: a later call waits for the first and
// returns its result.
func (g *Group) Stop(bound time.Duration) error {
	g.mu.Lock()
	if g.stopping {
		g.mu.Unlock()
		<-g.stopped
		return g.stopErr
	}
	g.stopping = true
	members := slices.Clone(g.members)
	for _, m := range members {
		if !m.ran && m.run != nil {
			close(m.done) // never started: nothing to wait for
			m.run = nil
		}
	}
	g.mu.Unlock()

	slices.SortStableFunc(members, func(a, b *member) int { return a.stage - b.stage })
	var errs []error
	for start := 0; start < len(members); {
		end := start
		for end < len(members) && members[end].stage == members[start].stage {
			end++
		}
		errs = append(errs, stopStage(members[start:end], bound)...)
		start = end
	}
	g.stopErr = errors.Join(errs...)
	close(g.stopped)
	return g.stopErr
}

// stopStage stops the parts of one stage together and returns their errors.
func stopStage(stage []*member, bound time.Duration) []error {
	errs := make([][]error, len(stage))
	var wg sync.WaitGroup
	for i, m := range stage {
		wg.Go(func() { errs[i] = m.stop(bound) })
	}
	wg.Wait()
	return slices.Concat(errs...)
}

// stop cancels m's run, waits for it within bound, then closes m.
func (m *member) stop(bound time.Duration) []error {
	if m.cancel != nil {
		m.cancel()
	}
	var errs []error
	var timeout <-chan time.Time
	if bound > 0 {
		t := time.NewTimer(bound)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-m.done:
		switch {
		case m.err == nil:
		case m.early:
			errs = append(errs, fmt.Errorf("%s: %w", m.name, m.err))
		case !errors.Is(m.err, context.Canceled):
			errs = append(errs, fmt.Errorf("%s: stop: %w", m.name, m.err))
		}
	case <-timeout:
		errs = append(errs, fmt.Errorf("%s: stop: run did not return within %s", m.name, bound))
	}
	if m.close != nil {
		if err := m.close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: close: %w", m.name, err))
		}
	}
	return errs
}
