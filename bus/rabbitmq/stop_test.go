// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
)

// A consumer that stops hands back the deliveries it held but never
// handled (here three waiting behind their correlation id's first): each
// comes back to the next consumer once, at the same attempt, so stopping
// costs no attempt and loses nothing.
func TestStopHandsBackWhatItHeld(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	sent := map[string]bool{}
	for range 4 {
		m := message(spec.Name)
		m.CorrelationID = "one-conversation"
		if err := b.Publish(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		sent[m.MessageID] = true
	}
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan string, 4)
	done := make(chan error, 1)
	go func() {
		done <- b.Consume(ctx, spec.Name, bus.ConsumeOptions{Concurrency: 4, MaxAttempts: 3, Ordered: true},
			func(hctx context.Context, d *bus.Delivery) error {
				started <- d.MessageID
				<-hctx.Done() // the first holds the rest behind it until the stop
				return nil    // handled: acked
			})
	}()
	var first string
	select {
	case first = <-started:
	case <-time.After(waitBound):
		t.Fatal("no delivery")
	}
	queued := func() int { st, _ := b.Inspect(t.Context(), spec.Name); return st.Messages }
	deadline := time.Now().Add(waitBound)
	for queued() != 0 && time.Now().Before(deadline) { // all four pushed to the consumer
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("consume: %v", err)
		}
	case <-time.After(waitBound):
		t.Fatal("the consumer did not stop")
	}
	delete(sent, first)

	again := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 4, MaxAttempts: 3}, again.handle)
	for range 3 {
		d := again.next(t)
		if !sent[d.MessageID] || d.Attempt != 1 {
			t.Errorf("after the stop got %q attempt %d; want one of the three held back, attempt 1", d.MessageID, d.Attempt)
		}
		delete(sent, d.MessageID)
	}
	select {
	case d := <-again.ch:
		t.Errorf("got %q attempt %d once more (the first was handled before the stop)", d.MessageID, d.Attempt)
	case <-time.After(500 * time.Millisecond):
	}
}
