// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package rabbitmq implements bus.Bus on RabbitMQ with amqp091-go.
//
// A Bus holds two connections, one for publishing and one for consuming
// (which also owns the declared topology, so exclusive queues live on the
// connection that consumes them). Publishes are persistent (unless the
// message is Transient), mandatory and confirmed; consumers ack manually with
// prefetch = concurrency, and an Ordered consumer handles one correlation id
// at a time (bus.RunOrdered). Each connection's writes go out coalesced
// (coalesce.go). Classic queues do not count deliveries, so the bus counts
// attempts itself in bus.HeaderAttempt: a requeue republishes a copy with the
// next attempt number, and a delivery redelivered by the broker (its consumer
// died or its connection dropped) is republished as its next attempt before
// it is handled — once past MaxAttempts, so the consumer can report it. A
// requeue at MaxAttempts, or a crash of that extra delivery, sends the
// message to the dead-letter exchange with bus.HeaderDeathReason. A
// delivery lost with its channel is never settled or copied again: its
// redelivery alone counts the attempt. Lost connections are re-dialled with
// backoff, the topology re-declared and consumers resumed.
package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/backoff"
	"github.com/a2abus/a2abus/internal/component"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Bus is a bus.Bus on RabbitMQ. It is safe for concurrent use.
type Bus struct {
	exchange, dlx, queueType string
	publishTimeout           time.Duration
	reconnect                backoff.Policy // ReconnectMin..ReconnectMax: re-dials and re-subscriptions
	log                      *zap.Logger
	user                     string // the connection's broker user, set as every publish's user_id

	publish, consume *link
	pub              *publisher
	declared         registry
	copied           copiedSet // originals whose copy was made as their channel was lost (copied.go)
	afterCopy        func()    // tests only: runs between a copy's confirm and its original's ack

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	consumers  group // Consume calls
	bg         group // background goroutines
	supervisor sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

var _ bus.Bus = (*Bus)(nil)

// Dial connects to RabbitMQ, declares the exchange, the dead-letter exchange
// and the dead queue, and returns a Bus that keeps its connections alive
// until Close. It fails at once (no retry) when the broker cannot be reached;
// the error names the host with the password redacted.
func Dial(ctx context.Context, opts Options) (*Bus, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	bctx, cancel := context.WithCancel(context.Background())
	b := &Bus{
		exchange:       opts.Exchange,
		dlx:            a2a.DeadLetterExchange(opts.Exchange),
		queueType:      opts.QueueType,
		publishTimeout: opts.PublishTimeout,
		reconnect:      backoff.Policy{Min: opts.ReconnectMin, Max: opts.ReconnectMax},
		log:            opts.Logger,
		user:           urlUser(opts.URL),
		ctx:            bctx,
		cancel:         cancel,
	}
	newLink := func(role string, setup func(*amqp.Connection) error) *link {
		return &link{role: role, url: opts.URL, name: opts.ConnectionName, setup: setup, tls: opts.TLS,
			retry: b.reconnect, log: opts.Logger, done: bctx.Done()}
	}
	b.publish = newLink("publish", b.setupPublish)
	b.consume = newLink("consume", b.setupConsume)
	if err := connectAll(ctx, b.publish, b.consume); err != nil {
		cancel()
		return nil, err
	}
	b.pub = newPublisher(b.publish, opts.PublishChannels, &b.bg)
	for _, l := range []*link{b.publish, b.consume} {
		b.supervisor.Add(1)
		go func() {
			defer b.supervisor.Done()
			l.run(bctx)
		}()
	}
	return b, nil
}

// connectAll connects links at once: each is a TCP, AMQP (and TLS)
// handshake and the declaration of the base topology, a series of round
// trips that a short-lived program would otherwise wait for once per link.
// When one fails, the others' dials are cancelled and the connections they
// made are closed. The error is the first link's (in the order given) that
// failed for a reason of its own, not the cancellation.
func connectAll(ctx context.Context, links ...*link) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(links))
	var wg sync.WaitGroup
	for i, l := range links {
		wg.Go(func() {
			if errs[i] = l.connect(ctx); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	var failed error
	for _, err := range errs {
		if err != nil && (failed == nil || errors.Is(failed, context.Canceled) && !errors.Is(err, context.Canceled)) {
			failed = err
		}
	}
	if failed == nil {
		return nil
	}
	deadline := time.Now().Add(closeTimeout)
	for i, l := range links {
		if errs[i] == nil {
			_ = l.close(deadline)
		}
	}
	return failed
}

// Publish sends msg through the exchange and waits for the broker's confirm,
// bounded by ctx and Options.PublishTimeout (including any wait for a lost
// connection to come back).
func (b *Bus) Publish(ctx context.Context, msg bus.Message) error {
	if err := validateMessage(msg); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if b.isClosed() {
		return fmt.Errorf("publish %q: %w", msg.RoutingKey, bus.ErrClosed)
	}
	var expire <-chan time.Time
	if b.boundsPublish(ctx) {
		t := startTimer(b.publishTimeout)
		defer stopTimer(t)
		expire = t.C
	}
	err := b.pub.publish(ctx, b.ctx.Done(), expire, b.exchange, msg.RoutingKey, toPublishing(msg, b.user), msg.NoConfirm)
	if err != nil {
		if b.isClosed() {
			return fmt.Errorf("publish %q: %w (%w)", msg.RoutingKey, bus.ErrClosed, err)
		}
		return fmt.Errorf("publish %q to %q: %w", msg.RoutingKey, b.exchange, err)
	}
	return nil
}

// PublishTimeout is Options.PublishTimeout: no Publish waits longer
// (bus.BoundedPublisher).
func (b *Bus) PublishTimeout() time.Duration { return b.publishTimeout }

// boundsPublish reports whether a publish under ctx needs the publish
// timeout's own timer: not when ctx's deadline comes first.
func (b *Bus) boundsPublish(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return !ok || time.Until(d) > b.publishTimeout
}

// timers holds stopped timers for the publish timeout. A publish takes one
// and gives it back, so its bound costs no allocation, where a
// context.WithTimeout costs a context, a timer and its registration on the
// parent per publish. (Since Go 1.23 a stopped timer delivers no stale tick.)
var timers sync.Pool

// startTimer is a timer of the pool, started to fire after d.
func startTimer(d time.Duration) *time.Timer {
	if t, ok := timers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

// stopTimer stops t and gives it back to the pool.
func stopTimer(t *time.Timer) {
	t.Stop()
	timers.Put(t)
}

// Close stops consumers (Consume returns an error wrapping bus.ErrClosed),
// fails waiting publishes with bus.ErrClosed and closes both connections.
// It waits at most about 5s for handlers to return; later calls return the
// first call's result.
func (b *Bus) Close() error {
	b.closeOnce.Do(func() {
		deadline := time.Now().Add(closeTimeout)
		b.cancel()
		var errs []error
		if !b.consumers.closeAndWait(deadline) {
			errs = append(errs, fmt.Errorf("rabbitmq: close: consumers still running after %s", closeTimeout))
		}
		b.supervisor.Wait() // supervisors return as soon as the context ends
		links := []*link{b.consume, b.publish}
		closeErrs := make([]error, len(links))
		var wg sync.WaitGroup
		for i, l := range links { // at once: each close is a round trip to the broker
			wg.Go(func() { closeErrs[i] = l.close(deadline) })
		}
		wg.Wait()
		errs = append(errs, closeErrs...) // errors.Join skips the nil ones
		if !b.bg.closeAndWait(deadline.Add(time.Second)) {
			errs = append(errs, errors.New("rabbitmq: close: background operations still running"))
		}
		b.closeErr = errors.Join(errs...)
		if b.closeErr != nil {
			b.log.Warn("rabbitmq close incomplete", zap.Error(b.closeErr))
		}
	})
	return b.closeErr
}

func (b *Bus) isClosed() bool { return b.ctx.Err() != nil }

// group tracks goroutines so Close can wait for them; once closed it refuses
// new members.
type group struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// enter adds a member unless the group is closed.
func (g *group) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

func (g *group) leave() { g.wg.Done() }

// Go runs fn in a member goroutine; once the group is closed it does not
// run fn and returns false.
func (g *group) Go(fn func()) bool {
	if !g.enter() {
		return false
	}
	go func() {
		defer g.leave()
		fn()
	}()
	return true
}

// closeAndWait closes the group and waits for its members until deadline;
// it reports whether they all returned.
func (g *group) closeAndWait(deadline time.Time) bool {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return component.WaitWithin(&g.wg, time.Until(deadline))
}
