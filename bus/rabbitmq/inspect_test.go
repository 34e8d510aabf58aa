// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// TestInspectCountsReadyMessagesAndConsumers: a passive declare reads the
// ready messages and the consumers of a task queue; a missing queue is
// bus.ErrNoQueue and creates nothing.
func TestInspectCountsReadyMessagesAndConsumers(t *testing.T) {
	e := newTestEnv(t)
	b := e.open(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	spec, err := bus.TaskQueue("Inspected" + unique())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(ctx, spec); err != nil {
		t.Fatal(err)
	}
	e.track(spec.Name)
	for i := range 3 {
		if err := b.Publish(ctx, bus.Message{Envelope: a2a.Envelope{MessageID: spec.Name + string(rune('a'+i)), Body: []byte("{}")}, RoutingKey: spec.Name}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := b.Inspect(ctx, spec.Name)
	if err != nil || st != (QueueStats{Messages: 3}) {
		t.Fatalf("Inspect = %+v, %v; want 3 messages, no consumer", st, err)
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	held := make(chan struct{})
	go func() {
		_ = b.Consume(cctx, spec.Name, bus.ConsumeOptions{}, func(hctx context.Context, _ *bus.Delivery) error {
			select { // keep the first delivery unacked: two stay ready
			case held <- struct{}{}:
			default:
			}
			<-hctx.Done()
			return hctx.Err()
		})
	}()
	<-held
	testenv.Eventually(t, "one consumer, two ready messages", func() bool {
		st, err = b.Inspect(ctx, spec.Name)
		return err == nil && st == QueueStats{Messages: 2, Consumers: 1}
	}, testenv.Explain(func() string { return fmt.Sprintf("last: %+v, %v", st, err) }))
	if _, err := b.Inspect(ctx, "no.such.queue."+unique()); !errors.Is(err, bus.ErrNoQueue) {
		t.Fatalf("missing queue: %v, want bus.ErrNoQueue", err)
	}
	// The bus is still usable after the broker closed the inspecting channel.
	if _, err := b.Inspect(ctx, spec.Name); err != nil {
		t.Fatalf("inspect after a missing queue: %v", err)
	}
}
