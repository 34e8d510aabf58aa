// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inproc

import (
	"context"
	"crypto/rand"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/bustest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// env is one broker per conformance sub-test.
type env struct{ b *Broker }

func (e env) Exchange() string           { return e.b.Exchange() }
func (e env) Connect(*testing.T) bus.Bus { return e.b.Connect() }

// Cut takes back b's unsettled deliveries as closing b would, leaving b
// open: the embedded bus has no network link to lose.
func (e env) Cut(t *testing.T, b bus.Bus) {
	c, ok := b.(*conn)
	if !ok {
		t.Fatalf("cut: %T is not a connection of this broker", b)
	}
	e.b.mu.Lock()
	defer e.b.mu.Unlock()
	c.takeBack()
}

func newEnv(t *testing.T) bustest.Env {
	b := NewBroker(Options{Exchange: "bt-" + rand.Text()[:8]})
	t.Cleanup(func() { _ = b.Close() })
	return env{b}
}

func TestConformance(t *testing.T) { bustest.Run(t, newEnv) }

func ctx(t *testing.T) context.Context { return t.Context() }

func TestTopicMatching(t *testing.T) {
	cases := []struct {
		binding, key string
		want         bool
	}{
		{"a.b.c", "a.b.c", true},
		{"a.b.c", "a.b", false},
		{"a.b", "a.b.c", false},
		{"a.*.c", "a.b.c", true},
		{"a.*.c", "a.c", false},
		{"a.*", "a.b", true},
		{"a.*", "a", false},
		{"a.*", "a.b.c", false},
		{"*", "a", true},
		{"*", "", false},
		{"*", "a.b", false},
		{"#", "", true},
		{"#", "a", true},
		{"#", "a.b.c", true},
		{"a.#", "a", true},
		{"a.#", "a.b.c", true},
		{"a.#", "b.a", false},
		{"#.c", "c", true},
		{"#.c", "a.b.c", true},
		{"#.c", "a.b.c.d", false},
		{"a.#.c", "a.c", true},
		{"a.#.c", "a.x.y.c", true},
		{"a.#.c", "a.x.y.d", false},
		{"#.#", "a.b", true},
		{"a.#.#.b", "a.b", true},
		{"*.#", "", false},
		{"*.#", "a.b.c", true},
		{"#.*", "a", true},
		{"a.*.#.d", "a.b.d", true},
		{"a.*.#.d", "a.d", false},
		{"agent.task.X", "agent.task.x", false},
		{"", "", true},
		{"", "a", false},
	}
	for _, tc := range cases {
		if got := compile(tc.binding).matches(words(tc.key)); got != tc.want {
			t.Errorf("binding %q, key %q: match = %v, want %v", tc.binding, tc.key, got, tc.want)
		}
	}
}

// fixture is a broker, a connection, a fresh task queue and its dead queue.
type fixture struct {
	b    *Broker
	c    bus.Bus
	spec bus.QueueSpec
}

func newFixture(t *testing.T, opts Options) fixture {
	t.Helper()
	b := NewBroker(opts)
	t.Cleanup(func() { _ = b.Close() })
	c := b.Connect()
	spec, err := bus.TaskQueue("T" + rand.Text()[:8])
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Declare(ctx(t), spec); err != nil {
		t.Fatal(err)
	}
	return fixture{b: b, c: c, spec: spec}
}

func (f fixture) publish(t *testing.T, m bus.Message) {
	t.Helper()
	if m.RoutingKey == "" {
		m.RoutingKey = f.spec.Bindings[0]
	}
	if err := f.c.Publish(ctx(t), m); err != nil {
		t.Fatal(err)
	}
}

// run consumes queue with h until the test ends.
func run(t *testing.T, c bus.Bus, queue string, opts bus.ConsumeOptions, h bus.Handler) (stop func() error) {
	t.Helper()
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Consume(cctx, queue, opts, h) }()
	var err error
	var stopped atomic.Bool
	stop = func() error {
		cancel()
		if stopped.CompareAndSwap(false, true) {
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Errorf("Consume of %q did not return", queue)
			}
		}
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// deadOf collects the dead-letter queue of f's broker.
func deadOf(t *testing.T, f fixture) *collected {
	col := &collected{}
	run(t, f.c, a2a.DeadLetterQueue(f.b.Exchange()), bus.ConsumeOptions{}, col.handle)
	return col
}

// collected records what a handler saw.
type collected struct {
	mu  sync.Mutex
	got []seen
}

type seen struct {
	bus.Message
	Attempt int
}

func (c *collected) handle(_ context.Context, d *bus.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, seen{Message: d.Message, Attempt: d.Attempt})
	return nil
}

func (c *collected) all() []seen {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]seen(nil), c.got...)
}

func TestDeathReasons(t *testing.T) {
	f := newFixture(t, Options{})
	dead := deadOf(t, f)
	rejected, exhausted := bus.Message{Envelope: a2a.Envelope{MessageID: "rejected"}}, bus.Message{Envelope: a2a.Envelope{MessageID: "exhausted"}}
	expired := bus.Message{Envelope: a2a.Envelope{MessageID: "expired", Expiration: 20 * time.Millisecond}}
	f.publish(t, expired) // nobody consumes the task queue yet: it expires there
	testenv.Eventually(t, "expired message dead-lettered", func() bool { return len(dead.all()) == 1 })
	f.publish(t, rejected)
	f.publish(t, exhausted)
	run(t, f.c, f.spec.Name, bus.ConsumeOptions{MaxAttempts: 2}, func(_ context.Context, d *bus.Delivery) error {
		if d.MessageID == "rejected" {
			return d.DeadLetter()
		}
		return errors.New("fail")
	})
	testenv.Eventually(t, "all dead-lettered", func() bool { return len(dead.all()) == 3 })
	want := map[string][2]string{"expired": {ReasonExpired, "0"}, "rejected": {ReasonRejected, "1"}, "exhausted": {ReasonMaxAttempts, "2"}}
	for _, d := range dead.all() {
		w := want[d.MessageID]
		if d.Headers[bus.HeaderDeathReason] != w[0] || d.Headers[bus.HeaderAttempt] != w[1] {
			t.Errorf("%s: reason %q attempts %q, want %q %q", d.MessageID, d.Headers[bus.HeaderDeathReason], d.Headers[bus.HeaderAttempt], w[0], w[1])
		}
		if d.Expiration != 0 {
			t.Errorf("%s: dead-lettered copy keeps expiration %v", d.MessageID, d.Expiration)
		}
	}
}

func TestKindMismatchNamesBoth(t *testing.T) {
	f := newFixture(t, Options{})
	err := f.c.Declare(ctx(t), bus.QueueSpec{Name: f.spec.Name, Kind: bus.KindInstance})
	if !errors.Is(err, bus.ErrTopologyMismatch) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{f.spec.Name, "task", "instance"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
}

func TestInstanceQueueIsExclusive(t *testing.T) {
	f := newFixture(t, Options{})
	spec, err := bus.InstanceQueue("Owner", "i1", "agent.cancel.Owner")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.c.Declare(ctx(t), spec); err != nil {
		t.Fatal(err)
	}
	other := f.b.Connect()
	if err := other.Declare(ctx(t), spec); !errors.Is(err, ErrExclusive) {
		t.Errorf("declare from another connection: %v", err)
	}
	h := func(context.Context, *bus.Delivery) error { return nil }
	if err := other.Consume(ctx(t), spec.Name, bus.ConsumeOptions{}, h); !errors.Is(err, ErrExclusive) {
		t.Errorf("consume from another connection: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, Options{})
	for _, m := range []bus.Message{{Envelope: a2a.Envelope{Priority: bus.MaxPriority + 1}}, {Envelope: a2a.Envelope{Expiration: -time.Second}}} {
		m.RoutingKey = f.spec.Bindings[0]
		if err := f.c.Publish(ctx(t), m); !errors.Is(err, bus.ErrInvalidMessage) {
			t.Errorf("publish %+v: %v", m, err)
		}
	}
	if err := f.c.Consume(ctx(t), f.spec.Name, bus.ConsumeOptions{}, nil); !errors.Is(err, bus.ErrInvalidMessage) {
		t.Errorf("nil handler: %v", err)
	}
	done, cancel := context.WithCancel(ctx(t))
	cancel()
	if err := f.c.Declare(done, f.spec); !errors.Is(err, context.Canceled) {
		t.Errorf("declare with a done ctx: %v", err)
	}
}

// A requeued message goes back to its place, ahead of later messages.
func TestRequeueKeepsPlace(t *testing.T) {
	f := newFixture(t, Options{})
	for _, id := range []string{"a", "b", "c"} {
		f.publish(t, bus.Message{Envelope: a2a.Envelope{MessageID: id}})
	}
	var order []string
	var n atomic.Int32
	run(t, f.c, f.spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
		order = append(order, d.MessageID) // Concurrency 1: one handler at a time
		n.Add(1)
		if d.MessageID == "a" && d.Attempt == 1 {
			return errors.New("again")
		}
		return nil
	})
	testenv.Eventually(t, "all handled", func() bool { return n.Load() == 4 })
	if got := strings.Join(order, ","); got != "a,a,b,c" {
		t.Errorf("order %s, want a,a,b,c", got)
	}
}

// A delivery held by a cancelled consumer is requeued only once its handler
// has returned, counting the attempt but never dead-lettering for it. The
// test runs in a synctest bubble: synctest.Wait returns once every goroutine
// of the broker is blocked, so a wrong broker has redelivered by then.
func TestCancelRequeuesAfterHandlerReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Options{})
		dead := deadOf(t, f)
		f.publish(t, bus.Message{Envelope: a2a.Envelope{MessageID: "held"}})
		var returned, started atomic.Bool
		release := make(chan struct{})
		stop := run(t, f.c, f.spec.Name, bus.ConsumeOptions{MaxAttempts: 1}, func(hctx context.Context, _ *bus.Delivery) error {
			started.Store(true)
			<-hctx.Done()
			<-release
			returned.Store(true)
			return hctx.Err()
		})
		synctest.Wait()
		if !started.Load() {
			t.Fatal("the first handler did not start")
		}
		stopped := make(chan error, 1)
		go func() { stopped <- stop() }()

		var second atomic.Int32
		run(t, f.b.Connect(), f.spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			if !returned.Load() {
				t.Errorf("redelivered while the first handler still runs")
			}
			second.Store(int32(d.Attempt))
			return nil
		})
		synctest.Wait() // the cancel is processed and the second consumer waits: nothing was redelivered
		if second.Load() != 0 {
			t.Error("redelivered before the first handler returned")
		}
		close(release)
		if err := <-stopped; err != nil {
			t.Errorf("Consume after cancel: %v", err)
		}
		synctest.Wait()
		if a := second.Load(); a != 2 {
			t.Errorf("redelivery attempt %d, want 2", a)
		}
		if n := len(dead.all()); n != 0 {
			t.Errorf("%d messages dead-lettered on shutdown", n)
		}
	})
}

// Close is bounded: a handler ignoring its ctx does not hold it past
// CloseTimeout, and its delivery goes back to the queue.
func TestCloseBoundedWithStuckHandler(t *testing.T) {
	f := newFixture(t, Options{CloseTimeout: 20 * time.Millisecond})
	stuck := f.b.Connect()
	f.publish(t, bus.Message{Envelope: a2a.Envelope{MessageID: "stuck"}})
	release := make(chan struct{})
	ackErr := make(chan error, 1)
	var started atomic.Bool
	go func() {
		_ = stuck.Consume(context.Background(), f.spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
			started.Store(true)
			<-release
			ackErr <- d.Ack()
			return nil
		})
	}()
	testenv.Eventually(t, "handler started", started.Load)
	if err := stuck.Close(); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("close with a stuck handler: %v", err)
	}
	var got atomic.Int32
	run(t, f.c, f.spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
		got.Store(int32(d.Attempt))
		return nil
	})
	testenv.Eventually(t, "stuck delivery requeued", func() bool { return got.Load() == 2 })
	close(release)
	if err := <-ackErr; !errors.Is(err, bus.ErrClosed) {
		t.Errorf("late ack: %v", err)
	}
}

func TestNewOwnsBroker(t *testing.T) {
	c := New(Options{})
	if err := c.Declare(ctx(t), bus.DeadQueue(a2a.DefaultExchange)); err != nil {
		t.Fatalf("the default exchange's dead queue: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if err := c.Publish(ctx(t), bus.Message{RoutingKey: "x"}); !errors.Is(err, bus.ErrClosed) {
		t.Errorf("publish after close: %v", err)
	}
}

func TestBrokerCloseClosesConnections(t *testing.T) {
	f := newFixture(t, Options{})
	done := make(chan error, 1)
	go func() {
		done <- f.c.Consume(context.Background(), f.spec.Name, bus.ConsumeOptions{}, func(context.Context, *bus.Delivery) error { return nil })
	}()
	if err := f.b.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, bus.ErrClosed) {
			t.Errorf("Consume after broker close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Consume still running after broker close")
	}
	if err := f.b.Connect().Publish(ctx(t), bus.Message{RoutingKey: f.spec.Bindings[0]}); !errors.Is(err, bus.ErrClosed) {
		t.Errorf("publish on a connection made after close: %v", err)
	}
}

// Everything the broker starts ends with Close (not parallel: counts goroutines).
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	f := newFixture(t, Options{})
	var n atomic.Int32
	for range 3 {
		go func() {
			_ = f.c.Consume(context.Background(), f.spec.Name, bus.ConsumeOptions{Concurrency: 4}, func(context.Context, *bus.Delivery) error {
				n.Add(1)
				return nil
			})
		}()
	}
	for range 50 {
		f.publish(t, bus.Message{Envelope: a2a.Envelope{Expiration: time.Hour}})
	}
	testenv.Eventually(t, "handled", func() bool { return n.Load() == 50 })
	if err := f.b.Close(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "goroutines gone", func() bool { return runtime.NumGoroutine() <= before })
}

// panicOnPurpose panics; its name must show in the logged stack.
func panicOnPurpose() { panic("inproc test: handler panics on purpose") }

// A handler panic is logged once, at error level, with its value and stack,
// and the delivery comes back as its next attempt.
func TestHandlerPanicLoggedWithStack(t *testing.T) {
	core, logs := observer.New(zapcore.ErrorLevel)
	f := newFixture(t, Options{Logger: zap.New(core)})
	m := bus.Message{Envelope: a2a.Envelope{MessageID: "m1"}}
	f.publish(t, m)
	col := &collected{}
	run(t, f.c, f.spec.Name, bus.ConsumeOptions{MaxAttempts: 3}, func(ctx context.Context, d *bus.Delivery) error {
		if d.Attempt == 1 {
			panicOnPurpose()
		}
		return col.handle(ctx, d)
	})
	testenv.Eventually(t, "the redelivery", func() bool { return len(col.all()) > 0 })
	if got := col.all()[0]; got.MessageID != m.MessageID || got.Attempt != 2 {
		t.Errorf("after the panic got %q attempt %d, want %q attempt 2", got.MessageID, got.Attempt, m.MessageID)
	}
	// The panic was logged before the delivery was requeued.
	entries := logs.FilterMessage("inproc: handler panicked").All()
	if len(entries) != 1 {
		t.Fatalf("%d panic log entries, want 1 (all: %v)", len(entries), logs.All())
	}
	fields := entries[0].ContextMap()
	if fields["panic"] != "inproc test: handler panics on purpose" || fields["message_id"] != m.MessageID || fields["queue"] != f.spec.Name {
		t.Errorf("panic logged with %v", fields)
	}
	if stack, _ := fields["stack"].(string); !strings.Contains(stack, "panicOnPurpose") {
		t.Errorf("logged stack does not name the panicking function:\n%s", stack)
	}
}
