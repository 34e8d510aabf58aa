// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// waitBound bounds every wait of these tests.
const waitBound = 15 * time.Second

// unique is a name-safe random suffix.
func unique() string { return rand.Text()[:12] }

// testEnv is one unique exchange on the real broker; it deletes, when the
// test ends, the exchange, its dead-letter exchange and queue and every
// queue declared through its connections. It implements bustest.Env.
type testEnv struct {
	url, exchange string

	mu     sync.Mutex
	queues map[string]bool
}

func newTestEnv(t testing.TB) *testEnv {
	t.Helper()
	e := &testEnv{url: testenv.AMQPURL(t), exchange: "test." + unique(), queues: map[string]bool{}}
	t.Cleanup(func() { e.cleanup(t) })
	return e
}

// Exchange is the env's unique exchange.
func (e *testEnv) Exchange() string { return e.exchange }

// Connect dials a bus on the env's exchange; the caller closes it.
func (e *testEnv) Connect(t *testing.T) bus.Bus {
	t.Helper()
	return &trackingBus{Bus: e.dial(t, Options{}), env: e}
}

// Cut closes b's consume connection under it; b connects again.
func (e *testEnv) Cut(t *testing.T, b bus.Bus) {
	t.Helper()
	tb, ok := b.(*trackingBus)
	if !ok {
		t.Fatalf("cut: %T is not a bus of this env", b)
	}
	if err := tb.consume.current().conn.Close(); err != nil {
		t.Fatalf("cut: close the consume connection: %v", err)
	}
}

// dial opens a Bus on the env's exchange with opts (URL and Exchange set).
func (e *testEnv) dial(t testing.TB, opts Options) *Bus {
	t.Helper()
	opts.URL, opts.Exchange = e.url, e.exchange
	if opts.ConnectionName == "" {
		opts.ConnectionName = t.Name()
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	b, err := Dial(ctx, opts)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return b
}

// open dials a Bus that is closed when the test ends.
func (e *testEnv) open(t testing.TB, opts Options) *Bus {
	t.Helper()
	b := e.dial(t, opts)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close bus: %v", err)
		}
	})
	return b
}

func (e *testEnv) track(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.queues[name] = true
}

// taskQueue declares a fresh task queue through b and returns its spec.
func (e *testEnv) taskQueue(t testing.TB, b *Bus) bus.QueueSpec {
	t.Helper()
	spec, err := bus.TaskQueue("Rmq" + unique())
	if err != nil {
		t.Fatal(err)
	}
	e.track(spec.Name)
	if err := b.Declare(t.Context(), spec); err != nil {
		t.Fatalf("declare %q: %v", spec.Name, err)
	}
	return spec
}

func (e *testEnv) cleanup(t testing.TB) {
	conn, ch := rawChannel(t, e.url)
	defer func() { _ = conn.Close() }()
	e.mu.Lock()
	defer e.mu.Unlock()
	for q := range e.queues {
		if _, err := ch.QueueDelete(q, false, false, false); err != nil {
			t.Errorf("cleanup: delete queue %q: %v", q, err)
			return
		}
	}
	if _, err := ch.QueueDelete(a2a.DeadLetterQueue(e.exchange), false, false, false); err != nil {
		t.Errorf("cleanup: delete dead queue: %v", err)
		return
	}
	for _, x := range []string{e.exchange, a2a.DeadLetterExchange(e.exchange)} {
		if err := ch.ExchangeDelete(x, false, false); err != nil {
			t.Errorf("cleanup: delete exchange %q: %v", x, err)
			return
		}
	}
}

// rawChannel opens a plain amqp091 connection and channel (the caller closes the connection).
func rawChannel(t testing.TB, url string) (*amqp.Connection, *amqp.Channel) {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatalf("raw dial: %v", err)
	}
	ch, err := conn.Channel()
	if err != nil {
		_ = conn.Close()
		t.Fatalf("raw channel: %v", err)
	}
	return conn, ch
}

// trackingBus records the queues the conformance suite declares so the env
// can delete them.
type trackingBus struct {
	*Bus
	env *testEnv
}

// Declare records spec's queue and declares it.
func (b *trackingBus) Declare(ctx context.Context, spec bus.QueueSpec) error {
	if spec.Name != "" {
		b.env.track(spec.Name)
	}
	return b.Bus.Declare(ctx, spec)
}

// seen is what a test keeps of a delivery.
type seen struct {
	bus.Message
	Queue   string
	Attempt int
}

func seenOf(d *bus.Delivery) seen {
	return seen{Message: d.Message, Queue: d.Queue, Attempt: d.Attempt}
}

// collector gathers deliveries from a handler.
type collector struct {
	ch chan seen
}

func newCollector() *collector { return &collector{ch: make(chan seen, 1024)} }

// handle records d and acks it.
func (c *collector) handle(_ context.Context, d *bus.Delivery) error {
	c.ch <- seenOf(d)
	return nil
}

// next waits for one delivery.
func (c *collector) next(t testing.TB) seen {
	t.Helper()
	select {
	case d := <-c.ch:
		return d
	case <-time.After(waitBound):
		t.Fatalf("no delivery within %v", waitBound)
		return seen{}
	}
}

// consume runs b.Consume until the test ends and checks it returns cleanly.
func consume(t testing.TB, b *Bus, queue string, opts bus.ConsumeOptions, h bus.Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Consume(ctx, queue, opts, h) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("consume %q: %v", queue, err)
			}
		case <-time.After(waitBound):
			t.Errorf("consumer of %q did not stop within %v", queue, waitBound)
		}
	})
}

func message(key string) bus.Message {
	return bus.Message{Envelope: a2a.Envelope{Kind: "task.request", MessageID: "m-" + unique(), Body: []byte(`{}`)}, RoutingKey: key}
}
