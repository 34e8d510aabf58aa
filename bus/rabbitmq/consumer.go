// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/backoff"
)

// terminalError marks a consume error that re-subscribing cannot fix.
type terminalError struct{ error }

func (e terminalError) Unwrap() error { return e.error }

func isTerminal(err error) bool {
	var t terminalError
	return errors.As(err, &t)
}

// consumerSeq numbers consumer tags.
var consumerSeq atomic.Uint64

// consumer is one Consume call: it subscribes, runs the handler on
// Concurrency goroutines and re-subscribes after the channel or connection is
// lost.
type consumer struct {
	b     *Bus
	queue string
	opts  bus.ConsumeOptions
	h     bus.Handler

	subscribed bool        // a subscription has succeeded before (serve's goroutine only)
	missing    bool        // the last subscribe found the queue gone (serve's goroutine only)
	delivered  atomic.Bool // the current subscription received a message
}

// Consume delivers queue's messages to h on opts.Concurrency goroutines
// (prefetch = Concurrency) until ctx is done (nil) or the bus is closed
// (bus.ErrClosed). It survives reconnections. A missing queue is
// bus.ErrNoQueue, unless the bus declared it: then it is declared again and
// the subscription retried (an exclusive queue dies with the connection that
// declared it, and the broker may delete it only after the new connection's
// re-declare was refused as locked). A delivery h leaves unsettled is acked
// when h returns nil and nacked (requeued as its next attempt) when h
// returns an error or panics.
// Acks are coalesced (see acks): one may reach the broker up to ackHold later.
// On stop, in-flight handlers are waited for and prefetched deliveries not
// yet handled are handed back without counting an attempt.
func (b *Bus) Consume(ctx context.Context, queue string, opts bus.ConsumeOptions, h bus.Handler) error {
	switch {
	case queue == "" || len(queue) > maxShortString:
		return fmt.Errorf("consume: %w: queue name %q is empty or longer than %d bytes",
			bus.ErrInvalidMessage, queue, maxShortString)
	case h == nil:
		return fmt.Errorf("consume %q: %w: handler is nil", queue, bus.ErrInvalidMessage)
	}
	opts = opts.Normalize()
	if opts.Concurrency > math.MaxUint16 {
		return fmt.Errorf("consume %q: %w: concurrency %d exceeds %d",
			queue, bus.ErrInvalidMessage, opts.Concurrency, math.MaxUint16)
	}
	if !b.consumers.enter() {
		return fmt.Errorf("consume %q: %w", queue, bus.ErrClosed)
	}
	defer b.consumers.leave()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(b.ctx, cancel)()

	c := &consumer{b: b, queue: queue, opts: opts, h: h}
	var stale *amqp.Connection
	for fails := 0; ; {
		conn, err := b.consume.get(ctx, stale)
		if err == nil {
			err = c.serve(ctx, conn)
		}
		switch {
		case b.isClosed():
			return fmt.Errorf("consume %q: %w", queue, bus.ErrClosed)
		case ctx.Err() != nil:
			return nil
		case isTerminal(err):
			return err
		}
		stale = nil
		if conn != nil && conn.IsClosed() {
			stale = conn // get waits for the next connection
			continue
		}
		// The channel closed on a live connection: retry with backoff so that
		// a refusal the broker repeats cannot spin.
		if c.delivered.Load() {
			fails = 0
		}
		b.log.Warn("rabbitmq consumer interrupted, re-subscribing",
			zap.String("queue", queue), zap.Error(err))
		if backoff.Sleep(ctx, b.reconnect.Delay(fails)) {
			fails++
		}
	}
}

// serve runs one subscription on a new channel of conn until the channel is
// lost (it returns an error) or ctx is done (it hands back prefetched
// deliveries and returns nil).
func (c *consumer) serve(ctx context.Context, conn *amqp.Connection) error {
	c.delivered.Store(false)
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("consume %q: open channel: %w", c.queue, err)
	}
	// Closed once the acks are flushed (deferred later), without waiting
	// for the close-ok; the bus's Close waits for it before the connections
	// close, so that the broker has settled the acks first. An instance
	// queue's are not waited for: its messages go with the connection.
	closing := &c.b.consumers
	if c.instance() {
		closing = &c.b.bg
	}
	defer closeLater(ch, closing)
	if err := ch.Qos(c.opts.Concurrency, 0, false); err != nil {
		return fmt.Errorf("consume %q: set prefetch %d: %w", c.queue, c.opts.Concurrency, err)
	}
	if c.missing {
		if err := c.redeclare(ch); err != nil {
			return err
		}
	}
	tag := "a2abus-" + strconv.FormatUint(consumerSeq.Add(1), 10)
	deliveries, err := ch.Consume(c.queue, tag, false, false, false, false, nil)
	if err != nil {
		return c.subscribeErr(err)
	}
	c.subscribed = true
	settle := newAcks(ch, c.b.log)
	defer settle.flush() // before the channel closes (deferred earlier)
	hctx := handlerContext(ctx, ch)

	var wg sync.WaitGroup
	if c.opts.Ordered {
		c.dispatchOrdered(ctx, hctx, deliveries, settle, &wg)
	} else {
		workers := bus.StartWorkers(c.opts.Concurrency, func(w *bus.Workers) { c.work(ctx, hctx, deliveries, settle, w) })
		wg.Go(workers.Wait)
	}
	workersDone := make(chan struct{})
	go func() {
		wg.Wait()
		close(workersDone)
	}()

	select {
	case <-workersDone: // deliveries closed: channel or connection lost, or cancelled by the broker
		return fmt.Errorf("consume %q: subscription ended: %w", c.queue, channelReason(ch))
	case <-ctx.Done():
	}
	// Stop: the broker sends no more after cancel-ok; the deliveries it had
	// already pushed are handed back unhandled.
	if err := ch.Cancel(tag, false); err == nil && !c.opts.Ordered { // an ordered dispatcher drains them itself
		for d := range deliveries {
			c.handBack(&d, settle)
		}
	}
	<-workersDone
	return nil
}

// handlerContext is the context of the handlers of one subscription on ch:
// ctx, also ended with cause bus.ErrDeliveryLost once ch closes under them.
// Their deliveries are then back in the queue (the broker requeued them)
// and can no longer be acked, so their work is stopped rather than waited
// for: the consumer subscribes again only once they returned, and a handler
// waiting on other agents stuck the same way would hold it off its queue
// until their deadlines passed. The watch ends with ctx.
func handlerContext(ctx context.Context, ch *amqp.Channel) context.Context {
	hctx, lose := context.WithCancelCause(ctx)
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	go func() {
		select {
		case <-closed: // an error, or closed by Close after the stop
			lose(bus.ErrDeliveryLost)
		case <-ctx.Done():
			lose(context.Cause(ctx))
		}
	}()
	return hctx
}

// dispatchOrdered runs the deliveries through bus.RunOrdered: one
// correlation id is handled one at a time, in queue order, while other ids
// go on; hctx is the handlers' context. Once ctx is done it hands back
// whatever still arrives.
func (c *consumer) dispatchOrdered(ctx, hctx context.Context, deliveries <-chan amqp.Delivery, settle *acks, wg *sync.WaitGroup) {
	wg.Go(func() {
		next := func() (amqp.Delivery, bool) {
			d, ok := <-deliveries
			return d, ok
		}
		bus.RunOrdered(c.opts.Concurrency, next, func(d amqp.Delivery) string { return d.CorrelationId }, func(d amqp.Delivery) {
			if ctx.Err() != nil {
				c.handBack(&d, settle)
				return
			}
			c.delivered.Store(true)
			c.handle(hctx, &d, settle)
		})
	})
}

// work handles deliveries, under hctx, until they end or ctx is done: one
// of the consumer's workers (w).
func (c *consumer) work(ctx, hctx context.Context, deliveries <-chan amqp.Delivery, settle *acks, w *bus.Workers) {
	for {
		select {
		case <-ctx.Done():
			return
		case d, ok := <-deliveries:
			if !ok {
				return
			}
			c.delivered.Store(true)
			if ctx.Err() != nil {
				c.handBack(&d, settle)
				continue
			}
			w.Took()
			c.handle(hctx, &d, settle)
			w.Idle()
		}
	}
}

// handle runs the handler on one delivery and settles what it left unsettled.
func (c *consumer) handle(ctx context.Context, d *amqp.Delivery, settle *acks) {
	a := &acker{c: c, d: d, acks: settle, attempt: attemptOf(d.Headers)}
	if d.Redelivered {
		// The consumer that had it died or lost its connection without
		// settling: that was an attempt. Count it where it sticks — a copy
		// carrying the next attempt number — rather than handling it now.
		if err := a.countCrash(); err != nil {
			c.settleFailed("count redelivery", d, err)
		}
		return
	}
	del := bus.NewDelivery(fromDelivery(d, c.b.user), c.queue, a.attempt, c.opts.MaxAttempts, a)
	herr := c.call(ctx, del)
	if del.Settled() {
		return
	}
	var err error
	if herr == nil {
		err = del.Ack()
	} else {
		c.b.log.Debug("rabbitmq: handler failed, requeueing", zap.String("queue", c.queue),
			zap.String("message_id", d.MessageId), zap.Int("attempt", a.attempt), zap.Error(herr))
		err = del.Nack()
	}
	if err != nil {
		c.settleFailed("settle delivery", d, err)
	}
}

// settleFailed logs a settlement of d that failed: at debug level when d
// was lost with its channel (the broker delivers it again; nothing is
// wrong with it), else as a warning.
func (c *consumer) settleFailed(what string, d *amqp.Delivery, err error) {
	log := c.b.log.Warn
	if errors.Is(err, bus.ErrDeliveryLost) || (errors.Is(err, bus.ErrUnroutable) && c.instance()) {
		log = c.b.log.Debug
	}
	log("rabbitmq: "+what, zap.String("queue", c.queue), zap.String("message_id", d.MessageId), zap.Error(err))
}

// instance reports whether c consumes an instance queue: exclusive and
// auto-deleted with its last consumer, so a delivery handed back while it
// stops finds no queue (NO_ROUTE) — expected, and no news to anyone (a
// short command would print it under its own output).
func (c *consumer) instance() bool {
	spec, ok := c.b.declared.get(c.queue)
	return ok && spec.Kind == bus.KindInstance
}

// call runs the handler under bus.Recover: a panic is logged with its stack
// and returned as an error (a *bus.PanicError).
func (c *consumer) call(ctx context.Context, d *bus.Delivery) error {
	err := bus.Recover(func() error { return c.h(ctx, d) })
	if p, ok := errors.AsType[*bus.PanicError](err); ok {
		c.b.log.Error("rabbitmq: handler panicked", zap.String("queue", c.queue),
			zap.String("message_id", d.MessageID), zap.Any("panic", p.Value),
			zap.ByteString("stack", p.Stack))
	}
	return err
}

// handBack returns a delivery that was never handled: republished unchanged
// (same attempt) and acked, so that stopping a consumer costs no attempt.
func (c *consumer) handBack(d *amqp.Delivery, settle *acks) {
	a := &acker{c: c, d: d, acks: settle, attempt: attemptOf(d.Headers)}
	var err error
	if d.Redelivered {
		err = a.countCrash() // its earlier, crashed attempt still counts
	} else {
		err = a.requeue(a.attempt)
	}
	if err != nil {
		c.settleFailed("hand back delivery", d, err)
	}
}

// redeclare declares the queue again, from the spec the bus recorded, on ch
// before the next subscribe; a refusal (still locked by the old connection)
// closes ch and is retried after a backoff.
func (c *consumer) redeclare(ch *amqp.Channel) error {
	spec, ok := c.b.declared.get(c.queue)
	if !ok {
		return terminalError{fmt.Errorf("consume %q: %w: no longer declared through this bus", c.queue, bus.ErrNoQueue)}
	}
	if err := c.b.declareQueue(ch, spec); err != nil {
		err = fmt.Errorf("consume %q: declare the missing queue again: %w", c.queue, err)
		if ae, ok := errors.AsType[*amqp.Error](err); errors.Is(err, bus.ErrTopologyMismatch) || ok && ae.Code == amqp.AccessRefused {
			return terminalError{err} // declaring again cannot change the answer
		}
		return err
	}
	c.missing = false
	return nil
}

// subscribeErr classifies a basic.consume refusal.
func (c *consumer) subscribeErr(err error) error {
	var ae *amqp.Error
	if errors.As(err, &ae) {
		switch {
		case ae.Code == amqp.NotFound && c.b.declared.has(c.queue):
			c.missing = true
			return fmt.Errorf("consume %q: %w: %s (declaring it again)", c.queue, bus.ErrNoQueue, ae.Reason)
		case ae.Code == amqp.NotFound:
			return terminalError{fmt.Errorf("consume %q: %w: %s", c.queue, bus.ErrNoQueue, ae.Reason)}
		case ae.Code == amqp.AccessRefused,
			// After a reconnect the broker may briefly still hold the old
			// connection's exclusive queue: only a first refusal is final.
			ae.Code == amqp.ResourceLocked && !c.subscribed:
			return terminalError{fmt.Errorf("consume %q: %w", c.queue, err)}
		}
	}
	return fmt.Errorf("consume %q: %w", c.queue, err)
}

// channelReason is why ch closed, as far as it is known.
func channelReason(ch *amqp.Channel) error {
	if ch.IsClosed() {
		return amqp.ErrClosed
	}
	return errors.New("consumer cancelled by the broker")
}
