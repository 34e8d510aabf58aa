// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/component"
)

// conn is one connection to a Broker; it implements bus.Bus.
type conn struct {
	b          *Broker
	ctx        context.Context // cancelled by Close: stops consumers and their handlers
	cancel     context.CancelFunc
	consumers  sync.WaitGroup
	closeOnce  sync.Once
	ownsBroker bool   // made by New: closing the connection closes the broker
	user       string // the user it connects as (ConnectAs), stamped on its publishes

	// guarded by b.mu
	closed  bool
	unacked map[*pending]struct{}
}

var _ bus.Bus = (*conn)(nil)

func newConn(b *Broker) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{b: b, ctx: ctx, cancel: cancel, unacked: map[*pending]struct{}{}}
}

// pending is a delivery handed to a handler and not settled yet.
type pending struct {
	c       *conn
	q       *queue
	e       *entry
	attempt int
	max     int
	done    bool // guarded by b.mu
}

// Ack removes the message.
func (p *pending) Ack() error { return p.c.b.settle(p, func() {}) }

// Nack requeues the message, or dead-letters it when requeue is false or
// this was its last attempt.
func (p *pending) Nack(requeue bool) error {
	b := p.c.b
	return b.settle(p, func() {
		switch {
		case requeue && p.attempt < p.max:
			b.requeue(p, true)
		case requeue:
			p.e.attempts = p.attempt
			b.deadLetter(p.q, p.e, ReasonMaxAttempts)
		default:
			p.e.attempts = p.attempt
			b.deadLetter(p.q, p.e, ReasonRejected)
		}
	})
}

// Release requeues the message without counting an attempt.
func (p *pending) Release() error {
	b := p.c.b
	return b.settle(p, func() { b.requeue(p, false) })
}

// Publish routes a copy of msg to every bound queue and returns once it is in all of them.
func (c *conn) Publish(ctx context.Context, msg bus.Message) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("publish %q to %q: %w", msg.MessageID, msg.RoutingKey, err)
	}
	if msg.Priority > bus.MaxPriority {
		return fmt.Errorf("publish %q: %w: priority %d is above %d", msg.MessageID, bus.ErrInvalidMessage, msg.Priority, bus.MaxPriority)
	}
	if msg.Expiration < 0 {
		return fmt.Errorf("publish %q: %w: negative expiration %v", msg.MessageID, bus.ErrInvalidMessage, msg.Expiration)
	}
	stored := copyMessage(msg)
	stored.UserID = c.user                                 // as RabbitMQ's validated user_id: never the sender's say
	stored.Timestamp = msg.Timestamp.Truncate(time.Second) // AMQP timestamps have second precision
	key := words(msg.RoutingKey)

	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.closed {
		return fmt.Errorf("publish %q to %q: %w", msg.MessageID, msg.RoutingKey, bus.ErrClosed)
	}
	targets := b.route(key, false)
	if len(targets) == 0 && msg.NoConfirm {
		return nil // as a broker's return of an unconfirmed publish, unseen
	}
	if len(targets) == 0 {
		return fmt.Errorf("publish %q to %q on exchange %q: %w", msg.MessageID, msg.RoutingKey, b.exchange, bus.ErrUnroutable)
	}
	var expires time.Time
	if msg.Expiration > 0 {
		expires = time.Now().Add(msg.Expiration)
	}
	seq := b.nextSeq()
	for _, q := range targets {
		b.enqueue(q, &entry{msg: stored, seq: seq, expires: expires})
	}
	return nil
}

// copyMessage returns m with its own body and headers.
func copyMessage(m bus.Message) bus.Message {
	m.Body = bytes.Clone(m.Body)
	m.Headers = maps.Clone(m.Headers)
	return m
}

// Declare creates spec's queue or checks it matches, and adds its bindings.
func (c *conn) Declare(ctx context.Context, spec bus.QueueSpec) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("declare %q: %w", spec.Name, err)
	}
	if err := spec.Validate(); err != nil {
		return fmt.Errorf("declare: %w", err)
	}
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.closed {
		return fmt.Errorf("declare %q: %w", spec.Name, bus.ErrClosed)
	}
	q, ok := b.queues[spec.Name]
	if !ok {
		b.queues[spec.Name] = newQueue(spec, c)
		return nil
	}
	if q.kind != spec.Kind {
		return fmt.Errorf("declare %q: exists as a %s queue, asked for a %s queue: %w", spec.Name, q.kind, spec.Kind, bus.ErrTopologyMismatch)
	}
	if q.expires != spec.Expires {
		return fmt.Errorf("declare %q: exists with expiry %s, asked for %s: %w", spec.Name, q.expires, spec.Expires, bus.ErrTopologyMismatch)
	}
	if q.owner != nil && q.owner != c {
		return fmt.Errorf("declare %q: %w", spec.Name, ErrExclusive)
	}
	q.bind(spec.Bindings)
	return nil
}

// Consume runs h on the messages of queue, opts.Concurrency at a time, until
// ctx is done (nil) or the connection closes (ErrClosed). A panic in h
// requeues the delivery as an error does.
func (c *conn) Consume(ctx context.Context, queue string, opts bus.ConsumeOptions, h bus.Handler) error {
	if h == nil {
		return fmt.Errorf("consume %q: %w: nil handler", queue, bus.ErrInvalidMessage)
	}
	opts = opts.Normalize()
	q, err := c.startConsumer(queue)
	if err != nil {
		return err
	}
	defer c.consumers.Done()

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()

	var workers sync.WaitGroup
	if opts.Ordered {
		c.consumeOrdered(cctx, q, opts, h, &workers)
	} else {
		pool := bus.StartWorkers(opts.Concurrency, func(w *bus.Workers) {
			for p := c.next(cctx, q, opts.MaxAttempts); p != nil; p = c.next(cctx, q, opts.MaxAttempts) {
				w.Took()
				c.handle(cctx, p, h)
				w.Idle()
			}
		})
		workers.Go(pool.Wait)
	}
	workers.Wait()
	if c.ctx.Err() != nil {
		return fmt.Errorf("consume %q: %w", queue, bus.ErrClosed)
	}
	return nil
}

// consumeOrdered runs the queue's messages through bus.RunOrdered: one
// correlation id is handled one at a time, in order, while other ids go on.
// At most Concurrency messages are taken ahead of their handlers.
func (c *conn) consumeOrdered(ctx context.Context, q *queue, opts bus.ConsumeOptions, h bus.Handler, workers *sync.WaitGroup) {
	workers.Go(func() {
		next := func() (*pending, bool) {
			p := c.next(ctx, q, opts.MaxAttempts)
			return p, p != nil
		}
		bus.RunOrdered(opts.Concurrency, next, func(p *pending) string { return p.e.msg.CorrelationID }, func(p *pending) {
			c.handle(ctx, p, h) // releases p unhandled once ctx is done
		})
	})
}

// startConsumer finds queue and registers a consumer on the connection.
func (c *conn) startConsumer(name string) (*queue, error) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("consume %q: %w", name, bus.ErrClosed)
	}
	q, ok := b.queues[name]
	if !ok {
		return nil, fmt.Errorf("consume %q on exchange %q: %w", name, b.exchange, bus.ErrNoQueue)
	}
	if q.owner != nil && q.owner != c {
		return nil, fmt.Errorf("consume %q: %w", name, ErrExclusive)
	}
	c.consumers.Add(1)
	return q, nil
}

// next waits for the next deliverable message of q; nil once ctx is done.
func (c *conn) next(ctx context.Context, q *queue, maxAttempts int) *pending {
	b := c.b
	for {
		b.mu.Lock()
		if ctx.Err() != nil || q.deleted {
			b.mu.Unlock()
			return nil
		}
		now := time.Now()
		for e := q.pop(); e != nil; e = q.pop() {
			if !e.expires.IsZero() && !now.Before(e.expires) {
				b.deadLetter(q, e, ReasonExpired)
				continue
			}
			p := &pending{c: c, q: q, e: e, attempt: e.attempts + 1, max: maxAttempts}
			c.unacked[p] = struct{}{}
			b.mu.Unlock()
			return p
		}
		arrived := q.wait()
		b.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
		}
	}
}

// handle runs h on p and settles what h left unsettled: ack on nil, requeue
// on error or panic (logged with its stack). A delivery abandoned because its
// consumer is stopping is requeued (counting the attempt) but never
// dead-lettered for it.
func (c *conn) handle(ctx context.Context, p *pending, h bus.Handler) {
	if ctx.Err() != nil {
		c.b.release(p, false) // never reached the handler
		return
	}
	d := bus.NewDelivery(copyMessage(p.e.msg), p.q.name, p.attempt, p.max, p)
	err := bus.Recover(func() error { return h(ctx, d) })
	if pe, ok := errors.AsType[*bus.PanicError](err); ok {
		c.b.log.Error("inproc: handler panicked", zap.String("queue", p.q.name),
			zap.String("message_id", d.MessageID), zap.Any("panic", pe.Value),
			zap.ByteString("stack", pe.Stack))
	}
	if d.Settled() {
		return
	}
	switch {
	case err == nil:
		err = d.Ack()
	case ctx.Err() != nil:
		c.b.release(p, true)
		return
	default:
		err = d.Nack()
	}
	if err != nil {
		c.b.log.Debug("settle after handler", zap.String("queue", p.q.name), zap.Error(err))
	}
}

// takeBack requeues every delivery of c not settled yet, counting the
// attempt, as a broker does with the deliveries of a connection gone: a
// later settle of one fails with bus.ErrDeliveryLost. It returns how many
// there were. Called with b.mu held.
func (c *conn) takeBack() int {
	n := len(c.unacked)
	for p := range c.unacked {
		p.done = true
		c.b.requeue(p, true)
	}
	clear(c.unacked)
	return n
}

// Close stops the connection's consumers, waits for their handlers (at most
// the broker's CloseTimeout), requeues what they left unacked and deletes
// the connection's instance queues. It is idempotent. On a connection made
// by New it closes the broker.
func (c *conn) Close() error {
	if c.ownsBroker {
		return c.b.Close()
	}
	return c.shutdown()
}

func (c *conn) shutdown() error {
	var err error
	c.closeOnce.Do(func() {
		b := c.b
		b.mu.Lock()
		c.closed = true
		b.mu.Unlock()
		c.cancel()
		finished := component.WaitWithin(&c.consumers, b.closeTimeout)

		b.mu.Lock()
		defer b.mu.Unlock()
		stuck := c.takeBack()
		for name, q := range b.queues {
			if q.owner == c {
				if n := q.drop(); n > 0 {
					b.log.Debug("instance queue deleted with its messages", zap.String("queue", name), zap.Int("messages", n))
				}
				delete(b.queues, name)
			}
		}
		delete(b.conns, c)
		if !finished {
			b.log.Warn("handlers still running after close timeout; their deliveries were requeued",
				zap.Int("deliveries", stuck), zap.Duration("timeout", b.closeTimeout))
			err = fmt.Errorf("inproc: close connection: handlers still running after %v (%d deliveries requeued)", b.closeTimeout, stuck)
		}
	})
	return err
}
