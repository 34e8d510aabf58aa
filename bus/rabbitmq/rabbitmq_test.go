// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/bustest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestConformance(t *testing.T) {
	bustest.Run(t, func(t *testing.T) bustest.Env { return newTestEnv(t) })
}

// TestCloseLeavesNoGoroutines runs first and alone (it is not parallel).
func TestCloseLeavesNoGoroutines(t *testing.T) {
	e := newTestEnv(t)
	before := runtime.NumGoroutine()
	b := e.dial(t, Options{})
	spec := e.taskQueue(t, b)
	c := newCollector()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Consume(ctx, spec.Name, bus.ConsumeOptions{Concurrency: 4}, c.handle) }()
	for range 20 {
		if err := b.Publish(t.Context(), message(spec.Name)); err != nil {
			t.Fatalf("publish: %v", err)
		}
	}
	for range 20 {
		c.next(t)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, bus.ErrClosed) {
		t.Errorf("Consume after Close = %v, want ErrClosed", err)
	}
	testenv.Eventually(t, "the goroutines of before Dial, no more", func() bool { return runtime.NumGoroutine() <= before },
		testenv.Explain(func() string {
			buf := make([]byte, 1<<16)
			return fmt.Sprintf("%d goroutines before Dial, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}))
}

func TestDeclareMismatchNamesQueueAndRecovers(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec, err := bus.TaskQueue("Rmq" + unique())
	if err != nil {
		t.Fatal(err)
	}
	e.track(spec.Name)
	conn, ch := rawChannel(t, e.url)
	defer func() { _ = conn.Close() }()
	// As a task queue, except without priority.
	args := amqp.Table{"x-dead-letter-exchange": a2a.DeadLetterExchange(e.exchange)}
	if _, err := ch.QueueDeclare(spec.Name, true, false, false, false, args); err != nil {
		t.Fatalf("raw declare: %v", err)
	}

	err = b.Declare(t.Context(), spec)
	if !errors.Is(err, bus.ErrTopologyMismatch) {
		t.Fatalf("Declare over a queue without priority = %v, want ErrTopologyMismatch", err)
	}
	for _, want := range []string{spec.Name, "x-max-priority"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("mismatch error %q does not mention %q", err, want)
		}
	}
	// The connection survived the channel the broker closed.
	other := e.taskQueue(t, b)
	if err := b.Publish(t.Context(), message(other.Name)); err != nil {
		t.Fatalf("publish after mismatch: %v", err)
	}
}

// A transient response queue carries x-expires on the broker: declaring it
// without the argument is refused as inequivalent, and once unused for its
// expiry the broker deletes it.
func TestTransientResponseQueueExpires(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec, err := bus.ResponseQueue("Rmq" + unique())
	if err != nil {
		t.Fatal(err)
	}
	e.track(spec.Name)
	spec.Expires = 2 * time.Second
	if err := b.Declare(t.Context(), spec); err != nil {
		t.Fatalf("declare transient: %v", err)
	}
	conn, ch := rawChannel(t, e.url)
	defer func() { _ = conn.Close() }()
	args := amqp.Table{"x-dead-letter-exchange": a2a.DeadLetterExchange(e.exchange)}
	_, err = ch.QueueDeclare(spec.Name, true, false, false, false, args)
	var ae *amqp.Error
	if !errors.As(err, &ae) || ae.Code != amqp.PreconditionFailed || !strings.Contains(ae.Reason, "x-expires") {
		t.Fatalf("raw declare without x-expires = %v, want PRECONDITION_FAILED on x-expires", err)
	}
	// Read the queue list with rabbitmqctl: a passive declare would renew
	// the queue's lease and keep it alive.
	testenv.NeedRabbitmqctl(t)
	testenv.Eventually(t, "the unused transient queue is deleted", func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), testenv.BrokerControlBound)
		defer cancel()
		out, err := exec.CommandContext(ctx, "rabbitmqctl", "-q", "list_queues", "name").Output()
		if err != nil {
			t.Fatalf("rabbitmqctl list_queues: %v", err)
		}
		return !slices.Contains(strings.Fields(string(out)), spec.Name)
	}, testenv.Within(30*time.Second))
}

func TestDialErrors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, err := Dial(ctx, Options{URL: "amqp://user:s3cret@127.0.0.1:1/"})
	if err == nil {
		t.Fatal("Dial to a closed port succeeded")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("dial error %q must name the host and hide the password", err)
	}
	var opErr interface{ Timeout() bool }
	if !errors.As(err, &opErr) {
		t.Errorf("dial error %q does not wrap the network cause", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Dial(cancelled, Options{URL: testenv.DefaultAMQPURL}); !errors.Is(err, context.Canceled) {
		t.Errorf("Dial with a cancelled ctx = %v, want context.Canceled", err)
	}
	if _, err := Dial(ctx, Options{URL: "amqp://u:p@127.0.0.1/", QueueType: "stream"}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("Dial with QueueType stream = %v, want ErrInvalidOptions", err)
	}
}

// A server that accepts but never speaks AMQP: ctx bounds the handshake.
func TestDialHonoursContextDuringHandshake(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer func() { _ = c.Close() }()
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = Dial(ctx, Options{URL: "amqp://u:p@" + ln.Addr().String() + "/"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dial to a silent server = %v, want context.DeadlineExceeded", err)
	}
}

func TestDialAuthFailure(t *testing.T) {
	t.Parallel()
	url := strings.Replace(testenv.AMQPURL(t), "guest:guest@", "guest:wrong-pw@", 1)
	if !strings.Contains(url, "wrong-pw") {
		t.Skip("test URL has no guest:guest credentials to replace")
	}
	_, err := Dial(t.Context(), Options{URL: url})
	if err == nil {
		t.Fatal("Dial with a wrong password succeeded")
	}
	if strings.Contains(err.Error(), "wrong-pw") {
		t.Errorf("dial error %q leaks the password", err)
	}
}

func TestPublishInvalidMessage(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	for name, m := range map[string]bus.Message{
		"no routing key":      {Envelope: a2a.Envelope{MessageID: "x"}},
		"priority too high":   {RoutingKey: "k", Envelope: a2a.Envelope{Priority: bus.MaxPriority + 1}},
		"negative expiration": {RoutingKey: "k", Envelope: a2a.Envelope{Expiration: -time.Second}},
		"long type":           {RoutingKey: "k", Envelope: a2a.Envelope{Kind: a2a.Kind(strings.Repeat("t", 256))}},
		"empty header name":   {RoutingKey: "k", Envelope: a2a.Envelope{Headers: map[string]string{"": "v"}}},
	} {
		if err := b.Publish(t.Context(), m); !errors.Is(err, bus.ErrInvalidMessage) {
			t.Errorf("%s: Publish = %v, want ErrInvalidMessage", name, err)
		}
	}
	if err := b.Consume(t.Context(), "", bus.ConsumeOptions{}, newCollector().handle); !errors.Is(err, bus.ErrInvalidMessage) {
		t.Errorf("Consume with no queue name = %v, want ErrInvalidMessage", err)
	}
	if err := b.Consume(t.Context(), "q", bus.ConsumeOptions{}, nil); !errors.Is(err, bus.ErrInvalidMessage) {
		t.Errorf("Consume with a nil handler = %v, want ErrInvalidMessage", err)
	}
}

// A publish whose context ended before the send surely never left the
// process: the error says so (ErrNotSent), besides ErrNotConfirmed.
func TestPublishNotSentWhenTheContextEndedFirst(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := b.Publish(ctx, message(e.taskQueue(t, b).Bindings[0]))
	if !errors.Is(err, bus.ErrNotSent) || !errors.Is(err, bus.ErrNotConfirmed) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Publish after its context ended = %v, want ErrNotSent and ErrNotConfirmed", err)
	}
}

// A message whose consumer died without settling it comes back with the
// Redelivered flag: the bus counts that as an attempt.
func TestRedeliveryCountsAnAttempt(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	m := message(spec.Name)
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	crashConsumer(t, e.url, spec.Name)

	c := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 3}, c.handle)
	d := c.next(t)
	if d.MessageID != m.MessageID || d.Attempt != 2 {
		t.Errorf("after one crash got %q attempt %d, want %q attempt 2", d.MessageID, d.Attempt, m.MessageID)
	}
}

// A message that crashed its consumer on its last attempt is delivered once
// more, numbered past MaxAttempts, so its consumer can report the failure.
func TestRedeliveryOnLastAttemptIsReported(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	m := message(spec.Name)
	m.Headers = map[string]string{bus.HeaderAttempt: "3"}
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	crashConsumer(t, e.url, spec.Name)
	handled := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 3}, handled.handle)
	if d := handled.next(t); d.MessageID != m.MessageID || d.Attempt != 4 {
		t.Errorf("got %q attempt %d, want %q attempt 4 (past MaxAttempts 3)", d.MessageID, d.Attempt, m.MessageID)
	}
}

// A message that crashed its consumer even on that extra delivery goes to
// the dead queue instead of looping.
func TestRedeliveryPastMaxAttemptsDeadLetters(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	m := message(spec.Name)
	m.Headers = map[string]string{bus.HeaderAttempt: "4"}
	m.Expiration = time.Minute
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	crashConsumer(t, e.url, spec.Name)

	handled := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 3}, handled.handle)
	dead := newCollector()
	consume(t, b, a2a.DeadLetterQueue(e.exchange), bus.ConsumeOptions{}, dead.handle)
	d := dead.next(t)
	if d.MessageID != m.MessageID || d.Headers[bus.HeaderDeathReason] != ReasonMaxAttempts ||
		d.Headers[HeaderDeathQueue] != spec.Name || d.RoutingKey != spec.Name {
		t.Errorf("dead-lettered %q reason %q queue %q key %q, want %q %q %q %q", d.MessageID,
			d.Headers[bus.HeaderDeathReason], d.Headers[HeaderDeathQueue], d.RoutingKey,
			m.MessageID, ReasonMaxAttempts, spec.Name, spec.Name)
	}
	if d.Expiration != 0 {
		t.Errorf("dead-lettered message keeps expiration %v: it would expire in the dead queue", d.Expiration)
	}
	select {
	case h := <-handled.ch:
		t.Errorf("handler saw %q attempt %d past MaxAttempts", h.MessageID, h.Attempt)
	default:
	}
}

// crashConsumer takes the head of queue on a raw connection and drops the
// connection without settling it, like a consumer process that died.
func crashConsumer(t *testing.T, url, queue string) {
	t.Helper()
	conn, ch := rawChannel(t, url)
	deliveries, err := ch.Consume(queue, "", false, false, false, false, nil)
	if err != nil {
		t.Fatalf("raw consume: %v", err)
	}
	select {
	case <-deliveries:
	case <-time.After(waitBound):
		t.Fatal("raw consumer got nothing")
	}
	_ = conn.Close()
}

// A requeued message keeps the routing key it was published with, even on a
// queue bound to another key.
func TestRequeueKeepsRoutingKey(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	s := unique()
	spec, err := bus.InstanceQueue("Rmq"+s, "i1", "agent.cancel.Rmq"+s)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	got := make(chan seen, 4)
	consume(t, b, spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
		got <- seenOf(d)
		if d.Attempt == 1 {
			return errors.New("try again")
		}
		return nil
	})
	if err := b.Publish(t.Context(), message(spec.Bindings[0])); err != nil {
		t.Fatal(err)
	}
	for want := 1; want <= 2; want++ {
		select {
		case d := <-got:
			if d.Attempt != want || d.RoutingKey != spec.Bindings[0] {
				t.Errorf("delivery attempt %d key %q, want attempt %d key %q", d.Attempt, d.RoutingKey, want, spec.Bindings[0])
			}
			if _, ok := d.Headers[headerRoutingKey]; ok {
				t.Errorf("internal header %s visible to the handler", headerRoutingKey)
			}
		case <-time.After(waitBound):
			t.Fatalf("attempt %d not delivered", want)
		}
	}
}

func TestDeleteQueue(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	if err := b.DeleteQueue(t.Context(), spec.Name); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if err := b.Publish(t.Context(), message(spec.Name)); !errors.Is(err, bus.ErrUnroutable) {
		t.Errorf("publish to a deleted queue = %v, want ErrUnroutable", err)
	}
	if err := b.DeleteQueue(t.Context(), spec.Name); err != nil {
		t.Errorf("deleting a missing queue: %v", err)
	}
	if err := b.DeleteQueue(t.Context(), ""); !errors.Is(err, bus.ErrInvalidMessage) {
		t.Errorf("DeleteQueue(\"\") = %v, want ErrInvalidMessage", err)
	}
}

// Quorum queues are declared with x-queue-type and no priority.
func TestQuorumTaskQueue(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{QueueType: QueueTypeQuorum})
	spec := e.taskQueue(t, b)
	conn, ch := rawChannel(t, e.url)
	defer func() { _ = conn.Close() }()
	args := amqp.Table{"x-queue-type": "quorum", "x-dead-letter-exchange": a2a.DeadLetterExchange(e.exchange)}
	if _, err := ch.QueueDeclare(spec.Name, true, false, false, false, args); err != nil {
		t.Fatalf("queue is not the expected quorum queue: %v", err)
	}
	c := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{}, c.handle)
	m := message(spec.Name)
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if d := c.next(t); d.MessageID != m.MessageID || d.Attempt != 1 {
		t.Errorf("got %q attempt %d, want %q attempt 1", d.MessageID, d.Attempt, m.MessageID)
	}
}

// A task that expires in its queue reaches the dead queue with the reason the
// broker gave.
func TestExpiredTaskDeadLettersWithReason(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	b := e.open(t, Options{})
	spec := e.taskQueue(t, b)
	m := message(spec.Name)
	m.Expiration = 10 * time.Millisecond
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	dead := newCollector()
	consume(t, b, a2a.DeadLetterQueue(e.exchange), bus.ConsumeOptions{}, dead.handle)
	d := dead.next(t)
	if d.MessageID != m.MessageID || d.Headers[bus.HeaderDeathReason] != "expired" {
		t.Errorf("dead-lettered %q with reason %q, want %q with \"expired\"", d.MessageID, d.Headers[bus.HeaderDeathReason], m.MessageID)
	}
}

// panicOnPurpose panics; its name must show in the logged stack.
func panicOnPurpose() { panic("rabbitmq test: handler panics on purpose") }

// A handler panic is logged once, at error level, with its value and stack,
// and the delivery comes back as its next attempt.
func TestHandlerPanicLoggedWithStack(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	core, logs := observer.New(zapcore.ErrorLevel)
	b := e.open(t, Options{Logger: zap.New(core)})
	spec := e.taskQueue(t, b)
	m := message(spec.Name)
	if err := b.Publish(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	consume(t, b, spec.Name, bus.ConsumeOptions{MaxAttempts: 3}, func(ctx context.Context, d *bus.Delivery) error {
		if d.Attempt == 1 {
			panicOnPurpose()
		}
		return c.handle(ctx, d)
	})
	if d := c.next(t); d.MessageID != m.MessageID || d.Attempt != 2 {
		t.Errorf("after the panic got %q attempt %d, want %q attempt 2", d.MessageID, d.Attempt, m.MessageID)
	}
	// The panic was logged before the delivery was requeued.
	entries := logs.FilterMessage("rabbitmq: handler panicked").All()
	if len(entries) != 1 {
		t.Fatalf("%d panic log entries, want 1 (all: %v)", len(entries), logs.All())
	}
	f := entries[0].ContextMap()
	if f["panic"] != "rabbitmq test: handler panics on purpose" || f["message_id"] != m.MessageID || f["queue"] != spec.Name {
		t.Errorf("panic logged with %v", f)
	}
	if stack, _ := f["stack"].(string); !strings.Contains(stack, "panicOnPurpose") {
		t.Errorf("logged stack does not name the panicking function:\n%s", stack)
	}
}

// Two deployments on one vhost, each on its own exchange, with the same
// agent and caller names: the first declares its queues; the second is
// refused at its first declare with a *bus.DeploymentConflictError naming
// the queue and both exchanges and saying to use a vhost per deployment,
// and the first deployment's queue is left as it was.
func TestSecondDeploymentOnOneVhostRefused(t *testing.T) {
	t.Parallel()
	first, second := newTestEnv(t), newTestEnv(t)
	a, b := first.open(t, Options{}), second.open(t, Options{})
	name := "Rmq" + unique()
	task, err := bus.TaskQueue(name)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := bus.ResponseQueue(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []bus.QueueSpec{task, resp} {
		first.track(spec.Name)
		if err := a.Declare(t.Context(), spec); err != nil {
			t.Fatalf("first deployment: declare %q: %v", spec.Name, err)
		}
		err := b.Declare(t.Context(), spec)
		var conflict *bus.DeploymentConflictError
		if !errors.As(err, &conflict) || !errors.Is(err, bus.ErrOtherDeployment) || !errors.Is(err, bus.ErrTopologyMismatch) {
			t.Fatalf("second deployment: declare %q = %v, want a *bus.DeploymentConflictError", spec.Name, err)
		}
		if conflict.Queue != spec.Name || conflict.Exchange != second.exchange || conflict.Other != first.exchange {
			t.Errorf("conflict = %+v, want queue %q, exchange %q, other %q", conflict, spec.Name, second.exchange, first.exchange)
		}
		for _, want := range []string{spec.Name, first.exchange, second.exchange, "vhost"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("conflict error %q does not mention %q", err, want)
			}
		}
	}
	// The first deployment's task queue still takes its tasks.
	if err := a.Publish(t.Context(), message(task.Name)); err != nil {
		t.Fatalf("first deployment: publish after the refusal: %v", err)
	}
}
