// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bustest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
)

// testLostDeliveryComesBackOnce: deliveries whose connection is cut while
// their handlers hold them go back to their queue once. Settling one
// afterwards — requeue, release, dead-letter or ack — fails with
// bus.ErrDeliveryLost and changes nothing: each message comes back exactly
// once, as its next attempt, and none reaches the dead-letter queue.
func testLostDeliveryComesBackOnce(t *testing.T, env Env) {
	b := connect(t, env)
	spec := taskQueue(t, b)
	dead := watchDead(t, env, b)
	settles := []struct {
		name string
		do   func(d *bus.Delivery) error
	}{
		{"nack", (*bus.Delivery).Nack},
		{"release", (*bus.Delivery).Release},
		{"dead-letter", (*bus.Delivery).DeadLetter},
		{"ack", (*bus.Delivery).Ack},
	}
	ids := publishN(t, b, spec.Bindings[0], len(settles))
	settleOf := map[string]int{}
	for i, id := range ids {
		settleOf[id] = i
	}
	seen := newRecorder()
	var held atomic.Int32
	cut := make(chan struct{})
	results := make(chan error, len(ids))
	c := consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: len(ids), MaxAttempts: 5}, func(_ context.Context, d *bus.Delivery) error {
		seen.add(d)
		i, ours := settleOf[d.MessageID]
		if !ours || seen.count(d.MessageID) > 1 {
			return nil
		}
		held.Add(1)
		<-cut
		err := settles[i].do(d)
		if err == nil {
			err = errors.New("succeeded")
		}
		results <- fmt.Errorf("%s: %w", settles[i].name, err)
		return nil
	})
	testenv.Eventually(t, "every delivery held", func() bool { return held.Load() == int32(len(ids)) })
	env.Cut(t, b)
	close(cut)
	for range ids {
		expectErr(t, "settling a delivery after its connection was cut", wait(t, "a settle", results), bus.ErrDeliveryLost)
	}
	testenv.Eventually(t, "every message back", func() bool {
		for _, id := range ids {
			if seen.count(id) < 2 {
				return false
			}
		}
		return true
	})
	// A copy too many would be in the queue before this marker: once the
	// marker is handled and the consumer stopped, it has been seen.
	marker := message(spec.Bindings[0])
	publish(t, b, marker)
	testenv.Eventually(t, "the marker handled", func() bool { return seen.has(marker.MessageID) })
	if err := c.stop(t); err != nil {
		t.Errorf("consume: %v", err)
	}
	for _, id := range ids {
		expectAttempts(t, seen, id, 2)
		if dead.has(id) {
			t.Errorf("%s (settled by %s after the cut) reached the dead-letter queue", id, settles[settleOf[id]].name)
		}
	}
}
