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

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
)

// Many publishes in flight on few channels, routable and not: each learns
// its own fate.
func TestConcurrentReturnsMatchTheirPublish(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{PublishChannels: 2})
	spec := e.taskQueue(t, b)
	var mu sync.Mutex
	routed := map[string]bool{}
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 8}, func(_ context.Context, d *bus.Delivery) error {
		mu.Lock()
		routed[d.MessageID] = true
		mu.Unlock()
		return nil
	})
	const goroutines, each = 32, 20
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				key, want := spec.Name, error(nil)
				if (g+i)%3 == 0 {
					key, want = "agent.task.Nobody"+unique(), bus.ErrUnroutable
				}
				m := message(key)
				m.MessageID = fmt.Sprintf("m-%d-%d", g, i)
				err := b.Publish(t.Context(), m)
				if (want == nil && err != nil) || (want != nil && !errors.Is(err, want)) {
					t.Errorf("publish %s to %q = %v, want %v", m.MessageID, key, err, want)
				}
			}
		})
	}
	wg.Wait()
	want := 0
	for g := range goroutines {
		for i := range each {
			if (g+i)%3 != 0 {
				want++
			}
		}
	}
	consumed := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(routed)
	}
	testenv.Eventually(t, fmt.Sprintf("%d routed messages consumed", want), func() bool { return consumed() == want },
		testenv.Explain(func() string { return fmt.Sprintf("%d consumed", consumed()) }))
}

// Publishes in flight when the publish connection drops fail with
// ErrNotConfirmed (never success); retried, every confirmed one arrives.
func TestPublishesInFlightWhenConnectionDrops(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond})
	spec := e.taskQueue(t, b)
	var mu sync.Mutex
	got := map[string]bool{}
	consume(t, b, spec.Name, bus.ConsumeOptions{Concurrency: 8}, func(_ context.Context, d *bus.Delivery) error {
		mu.Lock()
		got[d.MessageID] = true
		mu.Unlock()
		return nil
	})

	const goroutines, each = 16, 40
	var (
		wg       sync.WaitGroup
		failures sync.Map
		dropOnce sync.Once
	)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if g == 0 && i == each/4 {
					dropOnce.Do(func() { _ = b.publish.current().conn.Close() })
				}
				m := message(spec.Name)
				m.MessageID = fmt.Sprintf("m-%d-%d", g, i)
				for attempt := 1; ; attempt++ {
					err := b.Publish(t.Context(), m)
					if err == nil {
						break
					}
					failures.Store(m.MessageID, true)
					if !errors.Is(err, bus.ErrNotConfirmed) || attempt == 20 {
						t.Errorf("publish %s attempt %d: %v", m.MessageID, attempt, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	n := 0
	failures.Range(func(any, any) bool { n++; return true })
	t.Logf("%d publishes failed while the connection dropped and were retried", n)
	consumed := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(got)
	}
	testenv.Eventually(t, fmt.Sprintf("all %d confirmed messages consumed", goroutines*each), func() bool { return consumed() == goroutines*each },
		testenv.Explain(func() string { return fmt.Sprintf("%d consumed", consumed()) }))
}

// A publish waiting for a lost connection fails with ErrClosed when the bus
// closes.
func TestCloseFailsPublishWaitingForConnection(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.dial(t, Options{ReconnectMin: time.Minute, ReconnectMax: time.Minute})
	spec := e.taskQueue(t, b)
	_ = b.publish.current().conn.Close()

	done := make(chan error, 1)
	go func() { done <- b.Publish(context.Background(), message(spec.Name)) }()
	select {
	case err := <-done:
		t.Fatalf("Publish without a connection returned %v at once, want it to wait", err)
	case <-time.After(100 * time.Millisecond): // it is waiting (a correct bus waits however long this is)
	}
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-done:
		if !errors.Is(err, bus.ErrClosed) {
			t.Errorf("waiting Publish after Close = %v, want ErrClosed", err)
		}
	case <-time.After(waitBound):
		t.Fatal("waiting Publish not released by Close")
	}
	if err := <-closed; err != nil {
		t.Errorf("close: %v", err)
	}
}

// Consume keeps delivering after its channel's connection was closed under it.
func TestConsumeSurvivesConnectionLoss(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond})
	spec := e.taskQueue(t, b)
	c := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{}, c.handle)
	for round := range 2 {
		m := message(spec.Name)
		if err := b.Publish(t.Context(), m); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if d := c.next(t); d.MessageID != m.MessageID {
			t.Fatalf("round %d: got %q, want %q", round, d.MessageID, m.MessageID)
		}
		_ = b.consume.current().conn.Close()
	}
}

// A queue the bus declared that is gone when a consumer subscribes — an
// exclusive queue the broker deleted with the old connection after the new
// one's re-declare was refused as still locked — is declared again and
// consumed, rather than ending the consumer with bus.ErrNoQueue. Both the
// first subscribe and a re-subscribe (the broker cancelled the consumer when
// the queue was deleted under it) recover.
func TestConsumeDeclaresAMissingQueueAgain(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{ReconnectMin: 10 * time.Millisecond, ReconnectMax: 50 * time.Millisecond})
	deleteBehind := func(queue string) { // on the bus's own connection, which owns exclusive queues
		t.Helper()
		ch, err := b.consume.current().conn.Channel()
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = ch.Close() }()
		if _, err := ch.QueueDelete(queue, false, false, false); err != nil {
			t.Fatalf("delete %q behind the bus: %v", queue, err)
		}
	}
	// deliver publishes to key once queue has its consumer again (before
	// it is declared again, the message would be unroutable) and waits for it.
	deliver := func(c *collector, queue, key string) {
		t.Helper()
		deadline := time.Now().Add(waitBound)
		for {
			st, err := b.Inspect(t.Context(), queue)
			if err == nil && st.Consumers == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q was not declared and consumed again within %v: %+v %v", queue, waitBound, st, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		m := message(key)
		if err := b.Publish(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		if d := c.next(t); d.MessageID != m.MessageID {
			t.Fatalf("got %q, want %q", d.MessageID, m.MessageID)
		}
	}

	key := "inst.key." + unique()
	inst, err := bus.InstanceQueue("Rmq"+unique(), "i-"+unique(), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(t.Context(), inst); err != nil {
		t.Fatal(err)
	}
	deleteBehind(inst.Name)
	ic := newCollector()
	consume(t, b, inst.Name, bus.ConsumeOptions{}, ic.handle)
	deliver(ic, inst.Name, key)

	task := e.taskQueue(t, b)
	tc := newCollector()
	consume(t, b, task.Name, bus.ConsumeOptions{}, tc.handle)
	deliver(tc, task.Name, task.Name)
	deleteBehind(task.Name)
	deliver(tc, task.Name, task.Name)
}
