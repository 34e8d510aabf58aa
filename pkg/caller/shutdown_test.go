// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// stopRecordingBus records when each of the caller's consumers returns. It
// returns only once everything else in the test's bubble is blocked, so
// whatever the consumer's stop would have let run ahead of it (a waiter
// woken too early) has been recorded first.
type stopRecordingBus struct {
	bus.Bus
	log *testenv.Events
}

func (b *stopRecordingBus) Consume(ctx context.Context, queue string, opts bus.ConsumeOptions, h bus.Handler) error {
	// bus.RunOrdered's idle workers wait on a mutex, which synctest does not
	// count as durably blocked; no response flows here, so order is moot.
	opts.Ordered = false
	err := b.Bus.Consume(ctx, queue, opts, h)
	synctest.Wait()
	kind := "events"
	if strings.HasPrefix(queue, "agent.response.") {
		kind = "responses"
	}
	b.log.Add(kind + " stopped")
	return err
}

// Close stops the caller in its documented order — responses, then events —
// and a Call waiting for an answer is woken with ErrClosed only after both
// consumers have stopped.
func TestCloseWakesWaitersAfterTheConsumersStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := testworld.Embedded(t)
		log := &testenv.Events{}
		c, err := New(Options{Name: "Primary", Bus: &stopRecordingBus{Bus: w.Connect(t), log: log}, Memory: w.Memory})
		if err != nil {
			t.Fatal(err)
		}
		ran := make(chan error, 1)
		go func() { ran <- c.Run(context.Background()) }()
		synctest.Wait() // consuming

		woken := make(chan error, 1)
		go func() {
			// Nobody consumes Silent's tasks: the Call waits until Close.
			_, err := c.Call(context.Background(), Request{Target: "Silent", Skill: "x", Text: "hi", Timeout: time.Hour}, nil)
			log.Add("waiter woken")
			woken <- err
		}()
		synctest.Wait() // the request is published and the Call waits
		if got := log.List(); len(got) != 0 {
			t.Fatalf("before Close: %v", got)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-woken; !errors.Is(err, ErrClosed) {
			t.Fatalf("the waiting Call returned %v, want ErrClosed", err)
		}
		if err := <-ran; err != nil {
			t.Fatalf("Run = %v, want nil after Close", err)
		}
		want := []string{"responses stopped", "events stopped", "waiter woken"}
		if got := log.List(); !slices.Equal(got, want) {
			t.Fatalf("shutdown order %v, want %v", got, want)
		}
	})
}
