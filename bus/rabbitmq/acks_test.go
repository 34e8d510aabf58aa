// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
)

// queueDepth is how many messages queue holds, ready or unacked, as the
// broker counts them.
func queueDepth(t *testing.T, url, queue string) int {
	t.Helper()
	conn, ch := rawChannel(t, url)
	defer func() { _ = conn.Close() }()
	q, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil)
	if err != nil {
		t.Fatalf("inspect %q: %v", queue, err)
	}
	return q.Messages
}

// publishN publishes n messages to queue and returns their ids.
func publishN(t *testing.T, b *Bus, queue string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		m := message(queue)
		ids[i] = m.MessageID
		if err := b.Publish(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// Handlers finishing out of order have their acks coalesced: every message
// is handled once, none comes again, and the queue is empty once the
// consumer stops.
func TestCoalescedAcksLoseNothing(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	const n = 300
	ids := publishN(t, b, spec.Name, n)

	var mu sync.Mutex
	seen := map[string]int{}
	all := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- b.Consume(ctx, spec.Name, bus.ConsumeOptions{Concurrency: 16}, func(_ context.Context, d *bus.Delivery) error {
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond) // finish out of order
			mu.Lock()
			defer mu.Unlock()
			seen[d.MessageID]++
			if len(seen) == n {
				close(all)
			}
			return nil
		})
	}()
	select {
	case <-all:
	case <-time.After(waitBound):
		t.Fatalf("only %d of %d messages handled", len(seen), n)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("consume: %v", err)
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("message %s handled %d times, want once", id, seen[id])
		}
	}
	if got := queueDepth(t, e.url, spec.Name); got != 0 {
		t.Errorf("%d messages left in the queue after the consumer stopped, want 0: acks were lost", got)
	}
}

// A long task holds back neither the acks of the tasks delivered after it
// nor, through them, the prefetch window: with prefetch 4 and the first
// task blocked, 20 later ones are all handled.
func TestLongTaskDoesNotHoldLaterAcks(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	ids := publishN(t, b, spec.Name, 21)

	release := make(chan struct{})
	others := make(chan string, len(ids))
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 4}, func(_ context.Context, d *bus.Delivery) error {
		if d.MessageID == ids[0] {
			select {
			case <-release:
			case <-time.After(waitBound):
			}
			return nil
		}
		others <- d.MessageID
		return nil
	})
	deadline := time.After(waitBound)
	for i := range len(ids) - 1 {
		select {
		case <-others:
		case <-deadline:
			close(release)
			t.Fatalf("%d of %d later tasks handled while the first was running: their acks held the prefetch window", i, len(ids)-1)
		}
	}
	close(release)
}
