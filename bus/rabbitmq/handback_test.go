// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"fmt"
	"testing"

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
