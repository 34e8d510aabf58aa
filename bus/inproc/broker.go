// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package inproc is the embedded, in-memory bus: a broker with RabbitMQ's
// semantics (topic routing, confirms, unroutable errors, priority task
// queues, attempt counting, dead-lettering, expiration, exclusive instance
// queues), so code tested on it behaves the same on bus/rabbitmq. It is the
// default transport when no RabbitMQ is configured.
package inproc

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// ErrExclusive: an instance queue belongs to another connection.
var ErrExclusive = errors.New("inproc: queue is exclusive to another connection")

// Death reasons set in bus.HeaderDeathReason on dead-lettered messages.
const (
	ReasonRejected    = "rejected"     // the handler called DeadLetter
	ReasonMaxAttempts = "max-attempts" // a requeue past MaxAttempts
	ReasonExpired     = "expired"      // the message outlived its Expiration
)

// DefaultCloseTimeout bounds how long Close waits for running handlers.
const DefaultCloseTimeout = 5 * time.Second

// Options for the broker; the zero value is usable.
type Options struct {
	// Exchange names the bus exchange; empty means a2a.DefaultExchange.
	Exchange string
	// Logger receives the broker's warnings; nil means zap.NewNop().
	Logger *zap.Logger
	// CloseTimeout bounds how long closing a connection waits for its
	// handlers to return; zero means DefaultCloseTimeout.
	CloseTimeout time.Duration
}

// Broker is the shared in-memory backend: one per process, any number of
// connections. It is safe for concurrent use.
type Broker struct {
	exchange     string
	log          *zap.Logger
	closeTimeout time.Duration
	closeOnce    sync.Once

	mu     sync.Mutex // guards everything below and all queue state
	queues map[string]*queue
	conns  map[*conn]struct{}
	seq    uint64
	closed bool
}

// NewBroker returns a broker whose exchange already has its dead-letter queue.
func NewBroker(opts Options) *Broker {
	b := &Broker{
		exchange:     opts.Exchange,
		log:          opts.Logger,
		closeTimeout: opts.CloseTimeout,
		queues:       map[string]*queue{},
		conns:        map[*conn]struct{}{},
	}
	if b.exchange == "" {
		b.exchange = a2a.DefaultExchange
	}
	if b.log == nil {
		b.log = zap.NewNop()
	}
	if b.closeTimeout <= 0 {
		b.closeTimeout = DefaultCloseTimeout
	}
	b.log = b.log.With(zap.String("exchange", b.exchange))
	dead := bus.DeadQueue(b.exchange)
	b.queues[dead.Name] = newQueue(dead, nil)
	return b
}

// New is a broker with one connection; closing the connection closes the broker.
func New(opts Options) bus.Bus {
	c := NewBroker(opts).connect("")
	c.ownsBroker = true
	return c
}

// Exchange is the name of the broker's exchange.
func (b *Broker) Exchange() string { return b.exchange }

// Connect opens a new connection. Closing it requeues its unacked deliveries
// and deletes its instance queues. After Close it returns a closed connection.
func (b *Broker) Connect() bus.Bus { return b.connect("") }

func (b *Broker) connect(user string) *conn {
	c := newConn(b)
	c.user = user
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		c.closed = true
		c.cancel()
		return c
	}
	b.conns[c] = struct{}{}
	return c
}

// Close closes every connection (each bounded by CloseTimeout, all at once)
// and discards the queues. It is idempotent.
func (b *Broker) Close() error {
	var err error
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		conns := make([]*conn, 0, len(b.conns))
		for c := range b.conns {
			conns = append(conns, c)
		}
		b.mu.Unlock()

		errs := make([]error, len(conns))
		var wg sync.WaitGroup
		for i, c := range conns {
			wg.Go(func() { errs[i] = c.shutdown() })
		}
		wg.Wait()

		b.mu.Lock()
		for _, q := range b.queues {
			q.drop()
		}
		clear(b.queues)
		b.mu.Unlock()
		err = errors.Join(errs...)
	})
	return err
}

// route returns the queues bound to key: on the exchange, or on its
// dead-letter exchange when dead is set. Called with b.mu held.
func (b *Broker) route(key []string, dead bool) []*queue {
	var out []*queue
	for _, q := range b.queues {
		if (q.kind == bus.KindDead) == dead && q.routes(key) {
			out = append(out, q)
		}
	}
	return out
}

// nextSeq numbers a new message. Called with b.mu held.
func (b *Broker) nextSeq() uint64 {
	b.seq++
	return b.seq
}

// enqueue puts e in q and arms q's expiry timer. Called with b.mu held.
func (b *Broker) enqueue(q *queue, e *entry) {
	if q.deleted {
		return
	}
	q.insert(e)
	if !e.expires.IsZero() {
		b.armExpiry(q, e.expires)
	}
}

// armExpiry makes q's timer fire no later than at. Called with b.mu held.
func (b *Broker) armExpiry(q *queue, at time.Time) {
	if !q.timerAt.IsZero() && !at.Before(q.timerAt) {
		return
	}
	q.timerAt = at
	d := time.Until(at)
	if q.timer == nil {
		q.timer = time.AfterFunc(d, func() { b.expire(q) })
		return
	}
	q.timer.Reset(d)
}

// expire dead-letters q's expired messages and re-arms its timer.
func (b *Broker) expire(q *queue) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if q.deleted {
		return
	}
	q.timerAt = time.Time{}
	for _, e := range q.takeExpired(time.Now()) {
		b.deadLetter(q, e, ReasonExpired)
	}
	if next := q.nextExpiry(); !next.IsZero() {
		b.armExpiry(q, next)
	}
}

// deadLetter routes e, taken from src, to the dead-letter exchange with its
// death reason and attempt count. Called with b.mu held.
func (b *Broker) deadLetter(src *queue, e *entry, reason string) {
	log := b.log.With(zap.String("queue", src.name), zap.String("message_id", e.msg.MessageID), zap.String("reason", reason))
	if src.kind == bus.KindDead {
		log.Warn("dropping a message given up on in the dead-letter queue")
		return
	}
	m := e.msg
	m.Headers = maps.Clone(m.Headers)
	if m.Headers == nil {
		m.Headers = map[string]string{}
	}
	m.Headers[bus.HeaderDeathReason] = reason
	m.Headers[bus.HeaderAttempt] = strconv.Itoa(e.attempts)
	m.Expiration = 0
	targets := b.route(words(m.RoutingKey), true)
	if len(targets) == 0 {
		log.Warn("dropping a dead-lettered message: no dead-letter queue is bound")
		return
	}
	seq := b.nextSeq()
	for _, q := range targets {
		b.enqueue(q, &entry{msg: m, seq: seq})
	}
}

// settle marks p settled and runs then, unless p was settled already.
func (b *Broker) settle(p *pending, then func()) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.done {
		return fmt.Errorf("settle: %w: it went back to its queue when its connection closed (%w)", bus.ErrDeliveryLost, bus.ErrClosed)
	}
	p.done = true
	delete(p.c.unacked, p)
	then()
	return nil
}

// requeue puts p's message back at its place; counted adds the delivery to
// its attempts. Called with b.mu held.
func (b *Broker) requeue(p *pending, counted bool) {
	if counted {
		p.e.attempts = p.attempt
	}
	b.enqueue(p.q, p.e)
}

// release requeues p if it is still unsettled, without dead-lettering it:
// for deliveries whose consumer is going away.
func (b *Broker) release(p *pending, counted bool) {
	_ = b.settle(p, func() { b.requeue(p, counted) })
}
