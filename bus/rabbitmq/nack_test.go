// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// A publish the broker nacks (its queue is full and rejects publishes) is
// an error, never success: ErrNotConfirmed, saying the broker nacked it,
// and not ErrNotSent (it did leave the process).
func TestBrokerNackFailsThePublish(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	conn, ch := rawChannel(t, e.url)
	defer func() { _ = conn.Close() }()
	q := "test.full." + unique()
	e.track(q)
	if _, err := ch.QueueDeclare(q, true, false, false, false, amqp.Table{"x-max-length": int32(1), "x-overflow": "reject-publish"}); err != nil {
		t.Fatal(err)
	}
	if err := ch.QueueBind(q, q, e.exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(t.Context(), message(q)); err != nil {
		t.Fatalf("first publish (room for one): %v", err)
	}
	err := b.Publish(t.Context(), message(q))
	if !errors.Is(err, bus.ErrNotConfirmed) || errors.Is(err, bus.ErrNotSent) || !strings.Contains(err.Error(), "nacked") {
		t.Fatalf("publish to a full reject-publish queue = %v, want ErrNotConfirmed (nacked), not ErrNotSent", err)
	}
	if got, err := ch.QueueDeclarePassive(q, true, false, false, false, amqp.Table{"x-max-length": int32(1), "x-overflow": "reject-publish"}); err != nil || got.Messages != 1 {
		t.Fatalf("queue holds %d messages (%v), want the first one only", got.Messages, err)
	}
}

// A requeue whose copy the broker nacks loses nothing: the original goes
// back to its queue (the warning says so), comes back and is counted again
// until the queue takes publishes, then is handled once.
func TestNackedRequeueCopyKeepsTheOriginal(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	core, logs := observer.New(zapcore.WarnLevel)
	b := e.open(t, Options{Logger: zap.New(core)})
	spec := e.taskQueue(t, b)
	m := message(spec.Name)
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	first, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	handled := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 5}, func(ctx context.Context, d *bus.Delivery) error {
		if calls.Add(1) == 1 {
			close(first)
			<-release
			return errors.New("first attempt fails: requeue it")
		}
		return handled.handle(ctx, d)
	})
	waitClosed(t, first, "the first delivery")
	lift := testenv.RejectPublishes(t, spec.Name)
	close(release)
	testenv.Eventually(t, "a warning that the copy failed and the original went back", func() bool {
		return logs.FilterMessage("rabbitmq: settle delivery").FilterFieldKey("error").Len() > 0 &&
			strings.Contains(logs.FilterMessage("rabbitmq: settle delivery").All()[0].ContextMap()["error"].(string), "went back to its queue")
	})
	lift()
	d := handled.next(t)
	if d.MessageID != m.MessageID || d.Attempt != 2 {
		t.Errorf("handled %q attempt %d, want %q attempt 2 (the failed first, then this)", d.MessageID, d.Attempt, m.MessageID)
	}
	select {
	case again := <-handled.ch:
		t.Errorf("handled %q a second time (attempt %d)", again.MessageID, again.Attempt)
	case <-time.After(time.Second):
	}
}

// A dead-letter whose copy the broker nacks loses nothing either: the
// original goes back to its queue, and once the dead queue takes
// publishes the next attempt's dead-letter lands there with its reason.
func TestNackedDeadLetterCopyKeepsTheOriginal(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	dead := a2a.DeadLetterQueue(e.exchange)
	deadSeen := newCollector()
	consume(t, b, dead, bus.ConsumeOptions{}, deadSeen.handle) // declares it before the policy applies
	lift := testenv.RejectPublishes(t, dead)
	m := message(spec.Name)
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	firstErr, lifted := make(chan error, 1), make(chan struct{})
	var calls atomic.Int32
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 5}, func(ctx context.Context, d *bus.Delivery) error {
		if calls.Add(1) == 1 {
			firstErr <- d.DeadLetter()
			return nil
		}
		select {
		case <-lifted:
		case <-ctx.Done():
			return ctx.Err()
		}
		return d.DeadLetter()
	})
	select {
	case err := <-firstErr:
		if err == nil || !strings.Contains(err.Error(), "went back to its queue") {
			t.Fatalf("dead-letter into a queue that refuses publishes = %v, want the original back in its queue", err)
		}
	case <-time.After(waitBound):
		t.Fatal("no delivery")
	}
	lift()
	close(lifted)
	d := deadSeen.next(t)
	if d.MessageID != m.MessageID || d.Headers[bus.HeaderDeathReason] != ReasonRejected || d.Headers[HeaderDeathQueue] != spec.Name {
		t.Errorf("dead-lettered %q reason %q from %q, want %q rejected from %q", d.MessageID,
			d.Headers[bus.HeaderDeathReason], d.Headers[HeaderDeathQueue], m.MessageID, spec.Name)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("handler ran %d times, want 2 (the failed dead-letter, then the one that landed)", n)
	}
}

// waitClosed waits for ch to close, failing t after waitBound.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitBound):
		t.Fatalf("%s: not within %v", what, waitBound)
	}
}
