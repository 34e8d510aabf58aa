// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bustest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
)

var errHandler = errors.New("bustest: handler failed")

// expectAttempts checks the handler saw id exactly at attempts 1..n.
func expectAttempts(t *testing.T, r *recorder, id string, n int) {
	t.Helper()
	var got []int
	for _, g := range r.all() {
		if g.MessageID == id {
			got = append(got, g.Attempt)
		}
	}
	want := make([]int, n)
	for i := range want {
		want[i] = i + 1
	}
	if !slices.Equal(got, want) {
		t.Errorf("attempts of %q = %v, want %v", id, got, want)
	}
}

// expectSameMessage checks a dead-lettered copy kept the original's identity.
func expectSameMessage(t *testing.T, got received, want bus.Message) {
	t.Helper()
	checkField(t, "dead-lettered Kind", got.Kind, want.Kind)
	checkField(t, "dead-lettered CorrelationID", got.CorrelationID, want.CorrelationID)
	checkField(t, "dead-lettered Body", string(got.Body), string(want.Body))
	checkField(t, "dead-lettered header keep", got.Headers["keep"], want.Headers["keep"])
}

// failing publishes one message to a fresh task queue, consumes it with h and
// MaxAttempts maxAttempts, and returns what the handler saw and the dead queue.
func failing(t *testing.T, env Env, maxAttempts int, h func(d *bus.Delivery) error) (bus.Message, *recorder, *recorder) {
	t.Helper()
	b := connect(t, env)
	spec := taskQueue(t, b)
	dead := watchDead(t, env, b)
	msg := message(spec.Bindings[0])
	msg.CorrelationID = "task-" + unique()
	msg.Headers = map[string]string{"keep": "me"}
	publish(t, b, msg)
	seen := newRecorder()
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: maxAttempts}, func(_ context.Context, d *bus.Delivery) error {
		seen.add(d)
		return h(d)
	})
	return msg, seen, dead
}

// testErrorRedelivers: a handler error requeues with a growing attempt count;
// past MaxAttempts the message is dead-lettered.
func testErrorRedelivers(t *testing.T, env Env) {
	msg, seen, dead := failing(t, env, 3, func(*bus.Delivery) error { return errHandler })
	got := expectDead(t, dead, msg.MessageID)
	expectAttempts(t, seen, msg.MessageID, 3)
	expectSameMessage(t, got, msg)
}

// testNackRedelivers: d.Nack() requeues like an error does.
func testNackRedelivers(t *testing.T, env Env) {
	msg, seen, dead := failing(t, env, 2, func(d *bus.Delivery) error {
		if err := d.Nack(); err != nil {
			t.Errorf("nack attempt %d: %v", d.Attempt, err)
		}
		return nil
	})
	got := expectDead(t, dead, msg.MessageID)
	expectAttempts(t, seen, msg.MessageID, 2)
	expectSameMessage(t, got, msg)
}

// testDeadLetterAtOnce: d.DeadLetter() skips the remaining attempts.
func testDeadLetterAtOnce(t *testing.T, env Env) {
	msg, seen, dead := failing(t, env, 5, func(d *bus.Delivery) error {
		if err := d.DeadLetter(); err != nil {
			t.Errorf("dead-letter: %v", err)
		}
		return errHandler // already settled: must not requeue it
	})
	got := expectDead(t, dead, msg.MessageID)
	expectAttempts(t, seen, msg.MessageID, 1)
	expectSameMessage(t, got, msg)
}

// holdAll publishes n messages and consumes them on b with a handler that
// holds each delivery until its ctx is done. It returns the ids and the
// consumer once concurrency deliveries are held.
func holdAll(t *testing.T, b bus.Bus, n, concurrency int) (bus.QueueSpec, []string, *consumer) {
	t.Helper()
	spec := taskQueue(t, b)
	ids := publishN(t, b, spec.Bindings[0], n)
	var held atomic.Int32
	c := consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: concurrency}, func(ctx context.Context, d *bus.Delivery) error {
		held.Add(1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(waitBound):
			t.Errorf("handler of %q: ctx not cancelled within %v", d.MessageID, waitBound)
			return errHandler
		}
	})
	testenv.Eventually(t, "deliveries held", func() bool { return held.Load() >= int32(concurrency) })
	return spec, ids, c
}

// testCancelledConsumerLosesNothing: deliveries held by a cancelled consumer
// go back to the queue; a new consumer gets every message.
func testCancelledConsumerLosesNothing(t *testing.T, env Env) {
	b1 := connect(t, env)
	spec, ids, c := holdAll(t, b1, 10, 3)
	if err := c.stop(t); err != nil {
		t.Errorf("Consume after cancel returned %v, want nil", err)
	}
	r := newRecorder()
	consume(t, connect(t, env), spec.Name, bus.ConsumeOptions{}, r.handle)
	testenv.Eventually(t, "every message redelivered", func() bool { return r.has(ids...) })
}

// testClosedConnectionLosesNothing: deliveries held on a closed connection go
// back to the queue; a consumer on another connection gets every message.
func testClosedConnectionLosesNothing(t *testing.T, env Env) {
	b1 := connect(t, env)
	spec, ids, c := holdAll(t, b1, 10, 3)
	closed := make(chan error, 1)
	go func() { closed <- b1.Close() }()
	r := newRecorder()
	consume(t, connect(t, env), spec.Name, bus.ConsumeOptions{}, r.handle)
	testenv.Eventually(t, "every message redelivered", func() bool { return r.has(ids...) })
	if err := wait(t, "Close returns", closed); err != nil {
		t.Errorf("close: %v", err)
	}
	expectErr(t, "Consume on a closed connection", c.result(t, "Consume returns after Close"), bus.ErrClosed)
}

// testCloseUnblocks: Close makes a blocked Consume return ErrClosed; Close is
// idempotent; every later call fails with ErrClosed.
func testCloseUnblocks(t *testing.T, env Env) {
	b := connect(t, env)
	spec := taskQueue(t, b)
	r := newRecorder()
	c := consume(t, b, spec.Name, bus.ConsumeOptions{}, r.handle)
	m := message(spec.Bindings[0])
	publish(t, b, m)
	testenv.Eventually(t, "consumer running", func() bool { return r.has(m.MessageID) })

	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	expectErr(t, "Consume after Close", c.result(t, "Consume returns after Close"), bus.ErrClosed)
	if err := b.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	ctx := t.Context()
	expectErr(t, "Publish after Close", b.Publish(ctx, message(spec.Bindings[0])), bus.ErrClosed)
	expectErr(t, "Declare after Close", b.Declare(ctx, spec), bus.ErrClosed)
	expectErr(t, "Consume after Close", b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, r.handle), bus.ErrClosed)
}

// testReleaseCostsNoAttempt: a released delivery comes back with the same
// attempt number, however often it is released.
func testReleaseCostsNoAttempt(t *testing.T, env Env) {
	b := connect(t, env)
	spec := taskQueue(t, b)
	m := message(spec.Bindings[0])
	publish(t, b, m)
	var mu sync.Mutex
	var attempts []int
	done := make(chan struct{})
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 2}, func(_ context.Context, d *bus.Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		attempts = append(attempts, d.Attempt)
		if len(attempts) <= 3 {
			return d.Release()
		}
		if len(attempts) == 4 {
			close(done)
		}
		return nil
	})
	wait(t, "the fourth delivery", done)
	mu.Lock()
	defer mu.Unlock()
	for i, a := range attempts[:4] {
		if a != 1 {
			t.Fatalf("delivery %d had attempt %d after releases, want 1 (all: %v)", i+1, a, attempts)
		}
	}
}
