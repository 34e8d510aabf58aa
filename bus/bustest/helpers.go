// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bustest

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// waitBound bounds every wait of the suite; it is generous because the suite
// must never assert on speed, only on what eventually happens.
const waitBound = testenv.WaitBound

// wait receives from ch, failing the test when waitBound passes first.
func wait[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitBound):
		t.Fatalf("%s: not within %v", what, waitBound)
		var zero T
		return zero
	}
}

// unique returns a name-safe random suffix: letters and digits only.
func unique() string { return rand.Text()[:12] }

// connect opens a connection that is closed when the test ends.
func connect(t *testing.T, env Env) bus.Bus {
	t.Helper()
	b := env.Connect(t)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close connection: %v", err)
		}
	})
	return b
}

// taskQueue declares a fresh task queue on b and returns its spec.
func taskQueue(t *testing.T, b bus.Bus) bus.QueueSpec {
	t.Helper()
	spec, err := bus.TaskQueue("Conf" + unique())
	if err != nil {
		t.Fatalf("task queue spec: %v", err)
	}
	declare(t, b, spec)
	return spec
}

func declare(t *testing.T, b bus.Bus, spec bus.QueueSpec) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if err := b.Declare(ctx, spec); err != nil {
		t.Fatalf("declare %q: %v", spec.Name, err)
	}
}

// message returns a message to key with a unique id.
func message(key string) bus.Message {
	return bus.Message{Envelope: a2a.Envelope{Kind: "task.request", MessageID: "m-" + unique(), ContentType: "application/json", Body: []byte(`{}`)}, RoutingKey: key}
}

func publish(t *testing.T, b bus.Bus, msg bus.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	if err := b.Publish(ctx, msg); err != nil {
		t.Fatalf("publish %q to %q: %v", msg.MessageID, msg.RoutingKey, err)
	}
}

// publishN publishes n messages to key in order and returns their ids.
func publishN(t *testing.T, b bus.Bus, key string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		m := message(key)
		publish(t, b, m)
		ids[i] = m.MessageID
	}
	return ids
}

// consumer is one running Consume call.
type consumer struct {
	cancel context.CancelFunc
	done   chan error
}

// consume runs b.Consume in the background until the test ends (or stop).
func consume(t *testing.T, b bus.Bus, queue string, opts bus.ConsumeOptions, h bus.Handler) *consumer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &consumer{cancel: cancel, done: make(chan error, 1)}
	go func() { c.done <- b.Consume(ctx, queue, opts, h) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-c.done:
		case <-time.After(waitBound):
			t.Errorf("consumer of %q did not stop within %v", queue, waitBound)
		}
	})
	return c
}

// stop cancels the consumer and returns what Consume returned.
func (c *consumer) stop(t *testing.T) error {
	t.Helper()
	c.cancel()
	return c.result(t, "Consume returns after cancel")
}

// result waits for Consume to return (without stopping it) and returns its error.
func (c *consumer) result(t *testing.T, what string) error {
	t.Helper()
	err := wait(t, what, c.done)
	c.done <- err // keep it for the cleanup
	return err
}

// received is what a recorder keeps of a delivery.
type received struct {
	bus.Message
	Queue       string
	Attempt     int
	MaxAttempts int
}

// recorder collects deliveries; its handler acks by returning nil.
type recorder struct {
	mu   sync.Mutex
	got  []received
	seen map[string]int
}

func newRecorder() *recorder { return &recorder{seen: map[string]int{}} }

func (r *recorder) add(d *bus.Delivery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := d.Message
	m.Body = append([]byte(nil), d.Body...)
	r.got = append(r.got, received{Message: m, Queue: d.Queue, Attempt: d.Attempt, MaxAttempts: d.MaxAttempts})
	r.seen[d.MessageID]++
}

func (r *recorder) handle(_ context.Context, d *bus.Delivery) error {
	r.add(d)
	return nil
}

func (r *recorder) all() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// has reports whether every id was received at least once.
func (r *recorder) has(ids ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if r.seen[id] == 0 {
			return false
		}
	}
	return true
}

// count is how many times id was received.
func (r *recorder) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id]
}

// find returns the first delivery of id.
func (r *recorder) find(id string) (received, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.got {
		if g.MessageID == id {
			return g, true
		}
	}
	return received{}, false
}

// watchDead consumes env's dead-letter queue into a recorder.
func watchDead(t *testing.T, env Env, b bus.Bus) *recorder {
	t.Helper()
	r := newRecorder()
	consume(t, b, a2a.DeadLetterQueue(env.Exchange()), bus.ConsumeOptions{Concurrency: 4}, r.handle)
	return r
}

// expectDead waits until id is in the dead-letter queue and checks its death reason.
func expectDead(t *testing.T, dead *recorder, id string) received {
	t.Helper()
	testenv.Eventually(t, "message "+id+" dead-lettered", func() bool { return dead.has(id) })
	d, _ := dead.find(id)
	if d.Headers[bus.HeaderDeathReason] == "" {
		t.Errorf("dead-lettered %q has no %s header: %v", id, bus.HeaderDeathReason, d.Headers)
	}
	return d
}

// expectErr fails unless err wraps target.
func expectErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want one wrapping %v", what, err, target)
	}
}

func isUnroutable(err error) bool { return errors.Is(err, bus.ErrUnroutable) }

// raise lifts peak to at least v.
func raise(peak *atomic.Int32, v int32) {
	for {
		p := peak.Load()
		if v <= p || peak.CompareAndSwap(p, v) {
			return
		}
	}
}
