// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// hookedBus is a bus whose Declare, Consume and Publish call hooks around
// the real ones (each hook may be nil). The agent's start and stop are a
// series of round trips; the hooks see in which order, and whether one
// waits for another.
type hookedBus struct {
	bus.Bus
	// beforeDeclare runs before the declaration; an error is returned instead of declaring.
	beforeDeclare func(ctx context.Context, spec bus.QueueSpec) error
	afterDeclare  func(spec bus.QueueSpec)
	// beforeConsume runs before the consumer starts, consumeStopping once
	// its context ended and consumeDone once it returned.
	beforeConsume, consumeStopping, consumeDone func(queue string)
	beforePublish                               func(msg bus.Message)
}

func (b *hookedBus) Declare(ctx context.Context, spec bus.QueueSpec) error {
	if b.beforeDeclare != nil {
		if err := b.beforeDeclare(ctx, spec); err != nil {
			return err
		}
	}
	err := b.Bus.Declare(ctx, spec)
	if err == nil && b.afterDeclare != nil {
		b.afterDeclare(spec)
	}
	return err
}

func (b *hookedBus) Consume(ctx context.Context, queue string, opts bus.ConsumeOptions, h bus.Handler) error {
	if b.beforeConsume != nil {
		b.beforeConsume(queue)
	}
	if b.consumeStopping != nil {
		stop := context.AfterFunc(ctx, func() { b.consumeStopping(queue) })
		defer stop()
	}
	err := b.Bus.Consume(ctx, queue, opts, h)
	if b.consumeDone != nil {
		b.consumeDone(queue)
	}
	return err
}

func (b *hookedBus) Publish(ctx context.Context, msg bus.Message) error {
	if b.beforePublish != nil {
		b.beforePublish(msg)
	}
	return b.Bus.Publish(ctx, msg)
}

// isGoodbye reports whether msg is an announcement with deregistering set.
func isGoodbye(t *testing.T, msg bus.Message) bool {
	if msg.RoutingKey != a2a.RoutingKeyAnnounce {
		return false
	}
	var codec a2a.Codec
	p, err := codec.Decode(msg.Envelope)
	if err != nil {
		t.Errorf("undecodable announcement: %v", err)
		return false
	}
	ann, ok := p.(*a2a.Announcement)
	return ok && ann.Deregistering
}

// waitClosed waits for c within testenv.WaitBound and reports whether it closed.
func waitClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	case <-time.After(testenv.WaitBound):
		return false
	}
}

// TestStartDeclaresBothQueuesAtOnce: the task and instance queues are
// declared together. Each declaration is held until the other has begun:
// an agent that declared one after the other would wait for ever, and
// the held declaration gives up and fails the start instead.
func TestStartDeclaresBothQueuesAtOnce(t *testing.T) {
	h := newHarness(t)
	var taskBegun, instBegun sync.Once
	taskC, instC := make(chan struct{}), make(chan struct{})
	hb := &hookedBus{beforeDeclare: func(ctx context.Context, spec bus.QueueSpec) error {
		var other chan struct{}
		switch spec.Kind {
		case bus.KindTask:
			taskBegun.Do(func() { close(taskC) })
			other = instC
		case bus.KindInstance:
			instBegun.Do(func() { close(instC) })
			other = taskC
		default:
			return nil
		}
		if !waitClosed(other) {
			return errors.New("the other queue's declaration did not begin meanwhile: declared one after the other")
		}
		return nil
	}}
	started := make(chan struct{})
	var once sync.Once
	hb.beforeConsume = func(string) { once.Do(func() { close(started) }) }
	a := h.agent(Options{}, nil)
	hb.Bus = a.opts.Bus
	a.opts.Bus = hb
	errc := make(chan error, 1)
	go func() { errc <- a.Run(context.Background()) }()
	t.Cleanup(func() { _ = a.Close() })
	select {
	case <-started:
	case err := <-errc:
		t.Fatalf("Run = %v before consuming", err)
	}
}

// TestCancelsAreLoadedBetweenTheInstanceQueueAndTheTaskConsumer: the
// recorded cancels are read once the instance queue exists (a cancel sent
// later waits there), and the task consumer starts once they are loaded
// (no task runs unchecked), whatever runs at once around them.
func TestCancelsAreLoadedBetweenTheInstanceQueueAndTheTaskConsumer(t *testing.T) {
	w := testworld.Embedded(t)
	var instDeclared, loaded atomic.Bool
	mem := &countingMemory{Memory: w.Memory, onRange: func() {
		if !instDeclared.Load() {
			t.Error("the cancel index was read before the instance queue was declared")
		}
		loaded.Store(true)
	}}
	consuming := make(chan struct{})
	var once sync.Once
	hb := &hookedBus{Bus: w.Connect(t),
		afterDeclare: func(spec bus.QueueSpec) {
			if spec.Kind == bus.KindInstance {
				instDeclared.Store(true)
			}
		},
		beforeConsume: func(queue string) {
			if strings.HasPrefix(queue, "agent.task.") {
				if !loaded.Load() {
					t.Error("the task consumer started before the recorded cancels were loaded")
				}
				once.Do(func() { close(consuming) })
			}
		}}
	a, err := New(Options{Card: a2a.AgentCard{Name: w.N("Loader")}, Bus: hb, Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Run(context.Background()) }()
	t.Cleanup(func() { _ = a.Close() })
	if !waitClosed(consuming) {
		t.Fatal("the task consumer did not start")
	}
}

// countingMemory counts the reads of an index.
type countingMemory struct {
	memory.Memory
	onRange func()
	ranges  atomic.Int32
}

func (m *countingMemory) IndexRange(ctx context.Context, index string, max int64, limit int) ([]memory.IndexMember, error) {
	m.ranges.Add(1)
	if m.onRange != nil {
		m.onRange()
	}
	return m.Memory.IndexRange(ctx, index, max, limit)
}

// TestLoadCanceledReadsTheIndexOnce: the expired cancels and the live ones
// come in one read; the expired ones are still dropped.
func TestLoadCanceledReadsTheIndexOnce(t *testing.T) {
	w := testworld.Embedded(t)
	ctx := context.Background()
	addCancel(t, w.Memory, "Once", "live", testCaller, time.Now().Add(time.Minute))
	addCancel(t, w.Memory, "Once", "expired", testCaller, time.Now().Add(-time.Second))
	mem := &countingMemory{Memory: w.Memory}
	a, err := New(Options{Card: a2a.AgentCard{Name: "Once"}, Bus: w.Connect(t), Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	a.loadCanceled(ctx)
	if n := mem.ranges.Load(); n != 1 {
		t.Errorf("the cancel index was read %d times, want once", n)
	}
	if !a.running.wasCanceled("live", testCaller) || a.running.wasCanceled("expired", testCaller) {
		t.Fatal("wrong cancels loaded")
	}
	index, _ := memory.CancelIndex("Once")
	if _, found, err := w.Memory.IndexScore(ctx, index, "expired/"+testCaller); err != nil || found {
		t.Fatalf("the expired cancel is still recorded (found %v, err %v)", found, err)
	}
}

// TestGoodbyeGoesOutWhileTheCancelConsumerStops: on stop the goodbye is
// published once the task consumer has returned, and together with the
// cancel consumer's stop, not before it: the goodbye's publish is held
// until the cancel consumer has been told to stop, which an agent that
// stopped it only after the goodbye would never do.
func TestGoodbyeGoesOutWhileTheCancelConsumerStops(t *testing.T) {
	h := newHarness(t)
	var taskDone atomic.Bool
	instStopping := make(chan struct{})
	var stopOnce sync.Once
	var goodbyes atomic.Int32
	hb := &hookedBus{
		consumeStopping: func(queue string) {
			if strings.HasPrefix(queue, "a2a.instance.") {
				stopOnce.Do(func() { close(instStopping) })
			}
		},
		consumeDone: func(queue string) {
			if strings.HasPrefix(queue, "agent.task.") {
				taskDone.Store(true)
			}
		},
		beforePublish: func(msg bus.Message) {
			if !isGoodbye(t, msg) {
				return
			}
			goodbyes.Add(1)
			if !taskDone.Load() {
				t.Error("the goodbye went out before the task consumer returned")
			}
			if !waitClosed(instStopping) {
				t.Error("the cancel consumer was not stopped while the goodbye waited: they stop one after the other")
			}
		}}
	var consumers sync.WaitGroup
	consumers.Add(2)
	hb.beforeConsume = func(string) { consumers.Done() }
	a := h.agent(Options{}, nil)
	hb.Bus = a.opts.Bus
	a.opts.Bus = hb
	errc := h.start(a)
	consumers.Wait()
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := goodbyes.Load(); n != 1 {
		t.Fatalf("%d goodbyes, want 1", n)
	}
}
