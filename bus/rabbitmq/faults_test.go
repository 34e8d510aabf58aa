// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap/zaptest"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
)

// faultBound bounds the recovery waits of fault tests (a broker restart takes seconds).
const faultBound = testenv.BrokerControlBound

// restoreBroker makes sure, when the test ends, that the broker app runs and
// accepts AMQP connections again; a broker that already accepts one is left
// as it is (two rabbitmqctl calls, seconds each, spared).
func restoreBroker(t *testing.T, url string) {
	t.Cleanup(func() {
		if c, err := amqp.Dial(url); err == nil { // up: its listener only answers while the app runs
			_ = c.Close()
			return
		}
		if err := testenv.Rabbitmqctl(t, "start_app"); err != nil {
			t.Errorf("restore broker: %v", err)
		}
		if err := testenv.Rabbitmqctl(t, "await_startup"); err != nil {
			t.Errorf("restore broker: %v", err)
		}
		var err error
		testenv.Eventually(t, "the broker to answer after restore", func() bool {
			var c *amqp.Connection
			if c, err = amqp.Dial(url); err == nil {
				_ = c.Close()
			}
			return err == nil
		}, testenv.Within(faultBound), testenv.Explain(func() string { return fmt.Sprint("last dial: ", err) }))
	})
}

// TestFaultPublishThroughConnectionClose: no confirmed message is lost when
// the broker closes every connection mid-stream.
func TestFaultPublishThroughConnectionClose(t *testing.T) {
	testenv.NeedFaults(t)
	streamThroughFault(t, func(t *testing.T) error {
		return testenv.Rabbitmqctl(t, "close_all_connections", "test")
	})
}

// TestFaultPublishThroughBrokerRestart: no confirmed message is lost when the
// broker application stops and starts mid-stream.
func TestFaultPublishThroughBrokerRestart(t *testing.T) {
	testenv.NeedFaults(t)
	streamThroughFault(t, func(t *testing.T) error {
		if err := testenv.Rabbitmqctl(t, "stop_app"); err != nil {
			return err
		}
		time.Sleep(time.Second) // publishes meanwhile wait for the connection
		return testenv.Rabbitmqctl(t, "start_app")
	})
}

// streamThroughFault publishes 1,000 confirmed messages from 8 goroutines
// while fault runs in the middle; a publish that fails is retried until it
// succeeds. Every confirmed message must be consumed (duplicates allowed).
// While the fault runs the stream is paced, and its last 100 messages wait
// for the fault to end, so publishes are in flight throughout the fault and
// after it.
func streamThroughFault(t *testing.T, fault func(t *testing.T) error) {
	const n, faultAt, tail, workers = 1000, 300, 100, 8
	testenv.NeedRabbitmqctl(t)
	e := newTestEnv(t)
	restoreBroker(t, e.url) // runs before the env's cleanup
	b := e.open(t, Options{ReconnectMin: 50 * time.Millisecond, ReconnectMax: time.Second, Logger: zaptest.NewLogger(t)})
	spec := e.taskQueue(t, b)

	var mu sync.Mutex
	got := map[string]int{}
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 8}, func(_ context.Context, d *bus.Delivery) error {
		mu.Lock()
		got[d.MessageID]++
		mu.Unlock()
		return nil
	})

	faultDone := make(chan struct{})
	var faultErr error
	ids := make(chan int)
	go func() {
		defer close(ids)
		for i := range n {
			switch i {
			case faultAt:
				go func() {
					defer close(faultDone)
					faultErr = fault(t)
				}()
			case n - tail:
				<-faultDone
			}
			ids <- i
		}
	}()

	var (
		cmu       sync.Mutex
		confirmed []string
		failures  int
		wg        sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for i := range ids {
				if i >= faultAt && !closed(faultDone) {
					time.Sleep(15 * time.Millisecond)
				}
				m := message(spec.Name)
				m.MessageID = fmt.Sprintf("m-%04d", i)
				f, err := publishUntilConfirmed(b, m)
				cmu.Lock()
				failures += f
				if err == nil {
					confirmed = append(confirmed, m.MessageID)
				}
				cmu.Unlock()
				if err != nil {
					t.Errorf("publish %s: %v", m.MessageID, err)
				}
			}
		})
	}
	wg.Wait()
	if faultErr != nil {
		t.Fatalf("fault: %v", faultErr)
	}
	t.Logf("%d publishes failed and were retried", failures)

	var missing []string
	dups := 0
	testenv.Eventually(t, "every confirmed message consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		missing, dups = missing[:0], 0
		for _, id := range confirmed {
			if got[id] == 0 {
				missing = append(missing, id)
			}
		}
		for _, c := range got {
			dups += c - 1
		}
		return len(missing) == 0
	}, testenv.Within(faultBound), testenv.Explain(func() string {
		return fmt.Sprintf("%d confirmed messages never consumed, e.g. %v", len(missing), missing[:min(5, len(missing))])
	}))
	t.Logf("all %d confirmed messages consumed, %d duplicates", len(confirmed), dups)
}

// publishUntilConfirmed retries m until Publish returns nil; it returns how
// many attempts failed. Only "not confirmed" and, while queues come back,
// "unroutable" are expected failures.
func publishUntilConfirmed(b *Bus, m bus.Message) (failures int, err error) {
	deadline := time.Now().Add(faultBound)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		err := b.Publish(ctx, m)
		cancel()
		switch {
		case err == nil:
			return failures, nil
		case !errors.Is(err, bus.ErrNotConfirmed) && !errors.Is(err, bus.ErrUnroutable):
			return failures, fmt.Errorf("unexpected error: %w", err)
		case time.Now().After(deadline):
			return failures, fmt.Errorf("still failing after %v: %w", faultBound, err)
		}
		failures++
		time.Sleep(20 * time.Millisecond)
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestFaultConsumeResumesAfterReconnect: after the broker closed every
// connection, consumers of a task queue and of an exclusive instance queue
// (re-declared on the new connection) deliver again, and Publish works.
func TestFaultConsumeResumesAfterReconnect(t *testing.T) {
	testenv.NeedFaults(t)
	testenv.NeedRabbitmqctl(t)
	e := newTestEnv(t)
	b := e.open(t, Options{ReconnectMin: 50 * time.Millisecond, ReconnectMax: time.Second, Logger: zaptest.NewLogger(t)})
	task := e.taskQueue(t, b)
	s := unique()
	inst, err := bus.InstanceQueue("Rmq"+s, "i1", "agent.cancel.Rmq"+s)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(t.Context(), inst); err != nil {
		t.Fatal(err)
	}
	tasks, cancels := newCollector(), newCollector()
	consume(t, b, task.Name, bus.ConsumeOptions{}, tasks.handle)
	consume(t, b, inst.Name, bus.ConsumeOptions{}, cancels.handle)

	roundTrip := func(stage string) {
		for _, q := range []struct {
			key string
			c   *collector
		}{{task.Bindings[0], tasks}, {inst.Bindings[0], cancels}} {
			m := message(q.key)
			if err := publishRetrying(t, b, m); err != nil {
				t.Fatalf("%s: publish to %q: %v", stage, q.key, err)
			}
			if d := q.c.next(t); d.MessageID != m.MessageID {
				t.Fatalf("%s: consumer of %q got %q, want %q", stage, q.key, d.MessageID, m.MessageID)
			}
		}
	}
	roundTrip("before")
	if err := testenv.Rabbitmqctl(t, "close_all_connections", "test"); err != nil {
		t.Fatal(err)
	}
	roundTrip("after reconnect")
}

// publishRetrying publishes m until it is confirmed; an instance queue is
// unroutable until its connection is back and has re-declared it.
func publishRetrying(t *testing.T, b *Bus, m bus.Message) error {
	t.Helper()
	deadline := time.Now().Add(faultBound)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := b.Publish(ctx, m)
		cancel()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFaultLostDeliveryStopsItsHandler: when the connection a delivery came
// on is lost, its handler's context ends with bus.ErrDeliveryLost (the
// broker has requeued it and it can no longer be acked), so a handler that
// waits (on other agents, say) does not hold the consumer off its queue:
// the consumer subscribes again and the message comes back as attempt 2.
func TestFaultLostDeliveryStopsItsHandler(t *testing.T) {
	testenv.NeedFaults(t)
	testenv.NeedRabbitmqctl(t)
	e := newTestEnv(t)
	b := e.open(t, Options{ReconnectMin: 50 * time.Millisecond, ReconnectMax: time.Second, Logger: zaptest.NewLogger(t)})
	task := e.taskQueue(t, b)
	started := make(chan struct{})
	causes := make(chan error, 1)
	var second sync.Once
	again := make(chan int, 1)
	consume(t, b, task.Name, bus.ConsumeOptions{MaxAttempts: 5}, func(ctx context.Context, d *bus.Delivery) error {
		if d.Attempt == 1 {
			close(started)
			<-ctx.Done() // waits for what never comes, unless the delivery is lost
			causes <- context.Cause(ctx)
			return ctx.Err()
		}
		second.Do(func() { again <- d.Attempt })
		return nil
	})
	if err := b.Publish(t.Context(), message(task.Bindings[0])); err != nil {
		t.Fatal(err)
	}
	<-started
	if err := testenv.Rabbitmqctl(t, "close_all_connections", "test"); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-causes:
		if !errors.Is(cause, bus.ErrDeliveryLost) {
			t.Fatalf("the handler's context ended with %v, want bus.ErrDeliveryLost", cause)
		}
	case <-time.After(faultBound):
		t.Fatalf("the handler of a lost delivery was not stopped within %s", faultBound)
	}
	select {
	case n := <-again:
		if n != 2 {
			t.Fatalf("the lost delivery came back as attempt %d, want 2", n)
		}
	case <-time.After(faultBound):
		t.Fatalf("the lost delivery did not come back within %s", faultBound)
	}
}

// TestFaultPublishWhileBrokerDownIsNotSent: with the broker down, a publish
// that could get no channel before its context ended reports
// bus.ErrNotSent (with ErrNotConfirmed): nothing left the process, so a
// caller may forget the task. Publishes are tried until one finds the
// connection known lost (before that, one may still try a dying channel:
// only "not confirmed" then).
func TestFaultPublishWhileBrokerDownIsNotSent(t *testing.T) {
	testenv.NeedFaults(t)
	testenv.NeedRabbitmqctl(t)
	e := newTestEnv(t)
	b := e.open(t, Options{ReconnectMin: 50 * time.Millisecond, ReconnectMax: time.Second, Logger: zaptest.NewLogger(t)})
	task := e.taskQueue(t, b)
	restoreBroker(t, e.url) // runs before the env's cleanup
	if err := testenv.Rabbitmqctl(t, "stop_app"); err != nil {
		t.Fatal(err)
	}
	var last error
	testenv.Eventually(t, "a publish with the broker down reported as not sent", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		last = b.Publish(ctx, message(task.Bindings[0]))
		if last != nil && !errors.Is(last, bus.ErrNotConfirmed) {
			t.Fatalf("publish with the broker down = %v, want ErrNotConfirmed", last)
		}
		return errors.Is(last, bus.ErrNotSent)
	}, testenv.Within(faultBound), testenv.Explain(func() string { return fmt.Sprint("last publish: ", last) }))
}
