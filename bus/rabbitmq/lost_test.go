// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// deliveryLog records every delivery a handler saw, by message id. The zero
// value is ready to use.
type deliveryLog struct {
	mu       sync.Mutex
	attempts map[string][]int
}

// add records d and reports whether it is the first delivery of its message.
func (l *deliveryLog) add(d *bus.Delivery) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.attempts == nil {
		l.attempts = map[string][]int{}
	}
	l.attempts[d.MessageID] = append(l.attempts[d.MessageID], d.Attempt)
	return len(l.attempts[d.MessageID]) == 1
}

func (l *deliveryLog) of(id string) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.attempts[id]...)
}

// startConsume runs b.Consume in the background; stop cancels it and
// returns what Consume returned.
func startConsume(t *testing.T, b *Bus, queue string, opts bus.ConsumeOptions, h bus.Handler) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Consume(ctx, queue, opts, h) }()
	stop = func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(waitBound):
			return fmt.Errorf("consume %q did not return within %v of its cancel", queue, waitBound)
		}
	}
	t.Cleanup(func() { cancel() })
	return stop
}

// stopLeavingNone stops a consume of queue and fails t unless the queue is
// then empty: stopped, the consumer handed back whatever it held, so every
// copy made is either seen or in the queue.
func stopLeavingNone(t *testing.T, b *Bus, queue string, stop func() error) {
	t.Helper()
	if err := stop(); err != nil {
		t.Fatalf("consume: %v", err)
	}
	st, err := b.Inspect(t.Context(), queue)
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 0 {
		t.Errorf("%d messages left in %s, want none", st.Messages, queue)
	}
}

// When the consume connection drops under handlers, a settle they try
// afterwards (here the requeue of a handler error) changes nothing: each
// lost delivery comes back once, as attempt 2, and nothing is left in the
// queue — whatever the handler did after the loss.
func TestLostDeliveriesComeBackOnce(t *testing.T) {
	t.Parallel()
	for _, settle := range []struct {
		name string
		do   func(d *bus.Delivery) error
	}{
		{"handler error", func(*bus.Delivery) error { return errors.New("interrupted") }},
		{"nack", func(d *bus.Delivery) error { return d.Nack() }},
		{"release", func(d *bus.Delivery) error { return d.Release() }},
		{"dead-letter", func(d *bus.Delivery) error { return d.DeadLetter() }},
		{"ack", func(d *bus.Delivery) error { return d.Ack() }},
	} {
		t.Run(settle.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			b := e.open(t, Options{ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond})
			spec := e.taskQueue(t, b)
			const n = 4
			ids := make([]string, n)
			for i := range ids {
				m := message(spec.Name)
				ids[i] = m.MessageID
				if err := b.Publish(t.Context(), m); err != nil {
					t.Fatal(err)
				}
			}
			log := &deliveryLog{}
			var held atomic.Int32
			settled := make(chan error, n)
			stop := startConsume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 2 * n, MaxAttempts: 5}, func(hctx context.Context, d *bus.Delivery) error {
				if !log.add(d) {
					return nil
				}
				held.Add(1)
				<-hctx.Done() // until the delivery is lost
				if !errors.Is(context.Cause(hctx), bus.ErrDeliveryLost) {
					t.Errorf("handler context ended with %v, want bus.ErrDeliveryLost", context.Cause(hctx))
				}
				err := settle.do(d)
				settled <- err
				return err
			})
			testenv.Eventually(t, "every delivery held", func() bool { return held.Load() == n })
			_ = b.consume.current().conn.Close() // only the consume connection: publishing goes on

			for range n {
				select {
				case err := <-settled:
					if !errors.Is(err, bus.ErrDeliveryLost) && settle.name != "handler error" {
						t.Errorf("settling a lost delivery = %v, want bus.ErrDeliveryLost", err)
					}
				case <-time.After(waitBound):
					t.Fatalf("a handler of a lost delivery was not stopped within %v", waitBound)
				}
			}
			testenv.Eventually(t, "every lost delivery back as attempt 2", func() bool {
				for _, id := range ids {
					if got := log.of(id); len(got) < 2 {
						return false
					}
				}
				return true
			})
			stopLeavingNone(t, b, spec.Name, stop)
			if st, err := b.Inspect(t.Context(), a2a.DeadLetterQueue(e.exchange)); err != nil || st.Messages != 0 {
				t.Errorf("dead-letter queue: %+v, %v; want it empty", st, err)
			}
			for _, id := range ids {
				if got := log.of(id); fmt.Sprint(got) != "[1 2]" {
					t.Errorf("attempts of %s = %v, want [1 2]", id, got)
				}
			}
		})
	}
}

// A channel lost in the instant between a copy's confirm and its
// original's ack leaves both in the queue; the original, when it comes
// back to this bus, is dropped rather than copied again, so the message
// runs once more, not twice. Both kinds of copy are covered: a handler's
// requeue, and the crash count of a lost delivery's redelivery.
func TestCopyMadeAsItsChannelIsLostIsNotMadeTwice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// first handles the first delivery; it returns its handler's error.
		first func(ctx context.Context, b *Bus) error
	}{
		{"requeue", func(context.Context, *Bus) error { return errors.New("failed: requeue it") }},
		{"crash count", func(ctx context.Context, b *Bus) error {
			_ = b.consume.current().conn.Close() // lost: the redelivery is counted by a copy
			<-ctx.Done()
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			b := e.open(t, Options{ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond})
			var cut sync.Once
			b.afterCopy = func() { cut.Do(func() { _ = b.consume.current().conn.Close() }) }
			spec := e.taskQueue(t, b)
			m := message(spec.Name)
			if err := b.Publish(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			log := &deliveryLog{}
			stop := startConsume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 5}, func(hctx context.Context, d *bus.Delivery) error {
				if !log.add(d) {
					return nil
				}
				return tc.first(hctx, b)
			})
			testenv.Eventually(t, "the message back", func() bool { return len(log.of(m.MessageID)) >= 2 })
			stopLeavingNone(t, b, spec.Name, stop)
			if got := log.of(m.MessageID); fmt.Sprint(got) != "[1 2]" {
				t.Errorf("attempts = %v, want [1 2]", got)
			}
		})
	}
}
