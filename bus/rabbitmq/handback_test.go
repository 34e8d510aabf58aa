// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"fmt"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
)

// A delivery handed back while an instance queue's consumer stops finds
// the queue gone with its last consumer (NO_ROUTE): that is expected and
// logged at debug, so a short command at warn prints nothing; on any other
// queue an unroutable hand-back is still a warning.
func TestUnroutableHandBackOfAnInstanceQueueIsNoWarning(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	b := &Bus{log: zap.New(core)}
	instance, err := bus.InstanceQueue("Cli", "i1", "a2a.events.Cli")
	if err != nil {
		t.Fatal(err)
	}
	task, err := bus.TaskQueue("SampleAgent")
	if err != nil {
		t.Fatal(err)
	}
	b.declared.put(instance)
	b.declared.put(task)
	unroutable := fmt.Errorf("requeue as attempt 1: %w: 312 NO_ROUTE", bus.ErrUnroutable)
	(&consumer{b: b, queue: instance.Name}).settleFailed("hand back delivery", &amqp.Delivery{MessageId: "m1"}, unroutable)
	if n := logs.Len(); n != 0 {
		t.Fatalf("instance queue: %d warnings: %v", n, logs.All())
	}
	(&consumer{b: b, queue: task.Name}).settleFailed("hand back delivery", &amqp.Delivery{MessageId: "m2"}, unroutable)
	if got := logs.FilterMessage("rabbitmq: hand back delivery").Len(); got != 1 {
		t.Fatalf("task queue: %d warnings, want 1: %v", got, logs.All())
	}
}

// The scenario on the real broker: an ordered consumer of an instance
// queue stops while a delivery waits behind the one being handled; the
// queue goes with its consumer, so the waiting one's hand-back is
// unroutable, and that is logged at debug only.
func TestStoppingAnInstanceConsumerWarnsOfNothing(t *testing.T) {
	e := newTestEnv(t)
	core, logs := observer.New(zapcore.DebugLevel)
	b := e.open(t, Options{Logger: zap.New(core)})
	key := "a2a.events.Rmq" + unique()
	spec, err := bus.InstanceQueue("Rmq"+unique(), "i1", key)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	for range 4 { // one correlation id: the ordered dispatcher holds the others back
		m := message(key)
		m.CorrelationID = "task-1"
		if err := b.Publish(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- b.Consume(ctx, spec.Name, bus.ConsumeOptions{Concurrency: 4, Ordered: true}, func(context.Context, *bus.Delivery) error {
			stop()                             // the command is done: its consumer stops
			time.Sleep(300 * time.Millisecond) // while the cancel deletes the queue
			return nil
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitBound):
		t.Fatal("the consumer did not stop")
	}
	handedBack := logs.FilterMessage("rabbitmq: hand back delivery").All()
	if len(handedBack) == 0 {
		t.Fatalf("no delivery was handed back; logs: %v", logs.All())
	}
	for _, e := range handedBack {
		if e.Level != zapcore.DebugLevel {
			t.Errorf("hand back logged at %s: %v", e.Level, e.ContextMap())
		}
	}
}
