// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
)

// headerPublishSeq carries a publish's sequence number on its channel, so a
// basic.return (which echoes the message) is matched to its publish while
// many publishes are in flight on one channel.
const headerPublishSeq = "x-a2a-publish-seq"

// errLaneClosed: the publish channel closed before the confirm arrived.
var errLaneClosed = errors.New("publish channel closed before the confirm")

// publisher sends confirmed, mandatory publishes over a few channels
// ("lanes") of the publish connection, many in flight on each. A publish
// with a correlation id always takes that id's lane, so one task's messages
// keep their order; others go round robin. Lanes are opened on demand and
// replaced when their channel or connection is lost.
type publisher struct {
	link *link
	bg   *group
	next atomic.Uint32

	mu    sync.Mutex
	slots []slot
}

// slot holds one lane, or the pending opening of one.
type slot struct {
	lane    *lane
	opening chan struct{} // closed when the opening attempt ends
	err     error         // of the last opening attempt
}

func newPublisher(l *link, lanes int, bg *group) *publisher {
	return &publisher{link: l, bg: bg, slots: make([]slot, lanes)}
}

// publish sends pub to exchange with key and waits for its confirm, unless
// noConfirm. It takes ownership of pub.Headers. It returns an error wrapping
// bus.ErrUnroutable when the broker returned the message and
// bus.ErrNotConfirmed when it nacked it, the channel or connection was lost
// first, or ctx ended first — with bus.ErrNotSent too when it was surely
// never sent (no lane could be had, or ctx ended, before any send was tried).
// A closed closed (the bus closing; nil: never) ends the wait as ctx does,
// with bus.ErrClosed: a watch that costs the publish no registration.
func (p *publisher) publish(ctx context.Context, closed <-chan struct{}, expire <-chan time.Time, exchange, key string, pub amqp.Publishing, noConfirm bool) error {
	if pub.Headers == nil {
		pub.Headers = amqp.Table{}
	}
	var stale *amqp.Connection
	// notSent holds until a send is tried: a send that failed on a closing
	// channel may still have reached the broker, so a later failure to get a
	// lane is only "not confirmed".
	unsent := notSent
	for {
		if err := ctx.Err(); err != nil { // amqp091 ignores contexts: check before sending
			return unsent(err)
		}
		select {
		case <-closed:
			return unsent(bus.ErrClosed)
		case <-expire:
			return unsent(context.DeadlineExceeded)
		default:
		}
		l, err := p.lane(ctx, closed, expire, stale, pub.CorrelationId)
		if err != nil {
			return unsent(err)
		}
		unsent = notConfirmed
		seq, w, err := l.send(exchange, key, pub, !noConfirm)
		if err != nil {
			if l.ch.IsClosed() { // the lane died: retry on a fresh one (the send may have gone out)
				if l.conn.IsClosed() {
					stale = l.conn
				}
				continue
			}
			return notConfirmed(err)
		}
		if w == nil {
			return nil // sent; its confirm is not awaited
		}
		select {
		case err := <-w.done:
			return err
		case <-ctx.Done():
			l.forget(seq)
			return notConfirmed(ctx.Err())
		case <-expire:
			l.forget(seq)
			return notConfirmed(context.DeadlineExceeded)
		case <-closed:
			l.forget(seq)
			return notConfirmed(bus.ErrClosed)
		}
	}
}

// notSent is the error of a publish that never left this process.
func notSent(err error) error {
	return fmt.Errorf("%w (%w): %w", bus.ErrNotConfirmed, bus.ErrNotSent, err)
}

// notConfirmed is the error of a publish that may have reached the broker.
func notConfirmed(err error) error { return fmt.Errorf("%w: %w", bus.ErrNotConfirmed, err) }

// lane returns a live lane of the current connection — correlationID's
// slot, or the next one when it is empty — opening it if needed; ctx and
// expire bound the wait, and closed ends it (nil: never).
func (p *publisher) lane(ctx context.Context, closed <-chan struct{}, expire <-chan time.Time, stale *amqp.Connection, correlationID string) (*lane, error) {
	i := int(p.next.Add(1) % uint32(len(p.slots)))
	if correlationID != "" {
		i = bus.Lane(correlationID, len(p.slots))
	}
	for {
		conn, err := p.link.getUntil(ctx, expire, stale)
		if err != nil {
			return nil, err
		}
		p.mu.Lock()
		s := &p.slots[i]
		if s.lane != nil && s.lane.conn == conn && !s.lane.ch.IsClosed() {
			l := s.lane
			p.mu.Unlock()
			return l, nil
		}
		opening, start := s.opening, s.opening == nil
		if start {
			opening = make(chan struct{})
			s.opening, s.err = opening, nil
		}
		p.mu.Unlock()
		if start && !p.bg.Go(func() { p.open(i, conn, opening) }) {
			return nil, bus.ErrClosed
		}
		select {
		case <-opening:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-expire:
			return nil, context.DeadlineExceeded
		case <-closed:
			return nil, bus.ErrClosed
		}
		p.mu.Lock()
		err = p.slots[i].err
		p.mu.Unlock()
		if err != nil && !conn.IsClosed() {
			return nil, err
		}
		if conn.IsClosed() {
			stale = conn
		}
	}
}

// open opens a lane on conn into slot i (a round trip, so it runs apart
// from the publishers waiting for it).
func (p *publisher) open(i int, conn *amqp.Connection, opening chan struct{}) {
	l, err := openLane(conn, p.bg)
	p.mu.Lock()
	s := &p.slots[i]
	if err == nil {
		s.lane = l
	}
	s.opening, s.err = nil, err
	p.mu.Unlock()
	close(opening)
}

// confirmBuffer is the buffer of a lane's confirms: amqp091's reader hands
// over the many confirms of one multiple-ack without waiting for the lane's
// dispatcher at each.
const confirmBuffer = 256

// lane is one confirm-mode channel with its publishes in flight. A single
// goroutine receives its returns and confirms. amqp091 delivers a publish's
// return before its ack from one reader goroutine, and returns come over an
// unbuffered channel: the dispatcher has taken (and records) the return
// before the ack can even be queued behind it in the confirms' buffer.
type lane struct {
	conn *amqp.Connection
	ch   *amqp.Channel

	sendMu sync.Mutex // keeps sequence numbers and publishes in step

	mu      sync.Mutex
	pending map[uint64]*waiter
	closed  error // set once the channel is gone
}

// waiter is one publish awaiting its confirm.
type waiter struct {
	done     chan error // buffered: receives the outcome once
	returned *amqp.Return
}

func openLane(conn *amqp.Connection, bg *group) (*lane, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, fmt.Errorf("open publish channel: %w", err)
	}
	if err := ch.Confirm(false); err != nil {
		_ = ch.Close()
		return nil, fmt.Errorf("enable publisher confirms: %w", err)
	}
	l := &lane{conn: conn, ch: ch, pending: make(map[uint64]*waiter)}
	closes := ch.NotifyClose(make(chan *amqp.Error, 1))
	returns := ch.NotifyReturn(make(chan amqp.Return))
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, confirmBuffer))
	if !bg.Go(func() { l.dispatch(returns, confirms, closes) }) {
		_ = ch.Close()
		return nil, bus.ErrClosed
	}
	return l, nil
}

// send publishes pub and, when confirmed is set, registers and returns its
// waiter (else the confirm and any return are ignored).
func (l *lane) send(exchange, key string, pub amqp.Publishing, confirmed bool) (uint64, *waiter, error) {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	seq := l.ch.GetNextPublishSeqNo()
	pub.Headers[headerPublishSeq] = int64(seq)
	var w *waiter
	if confirmed {
		w = &waiter{done: make(chan error, 1)}
	}
	l.mu.Lock()
	if l.closed != nil {
		l.mu.Unlock()
		return 0, nil, l.closed
	}
	if w != nil {
		l.pending[seq] = w
	}
	l.mu.Unlock()
	if _, err := l.ch.PublishWithDeferredConfirm(exchange, key, true, false, pub); err != nil {
		l.forget(seq)
		return 0, nil, err
	}
	return seq, w, nil
}

// forget drops the waiter of an abandoned publish.
func (l *lane) forget(seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pending, seq)
}

// dispatch settles waiters until the channel closes, then fails the rest.
func (l *lane) dispatch(returns <-chan amqp.Return, confirms <-chan amqp.Confirmation, closes <-chan *amqp.Error) {
	for {
		select {
		case r, ok := <-returns:
			if !ok {
				returns = nil
				continue
			}
			seq, _ := r.Headers[headerPublishSeq].(int64)
			l.mu.Lock()
			if w := l.pending[uint64(seq)]; w != nil {
				w.returned = &r
			}
			l.mu.Unlock()
		case c, ok := <-confirms:
			if !ok {
				l.failAll(closes)
				return
			}
			l.mu.Lock()
			w := l.pending[c.DeliveryTag]
			delete(l.pending, c.DeliveryTag)
			l.mu.Unlock()
			if w != nil {
				w.done <- outcome(c.Ack, w.returned)
			}
		}
	}
}

// outcome is the result of a confirmed (or nacked) publish.
func outcome(ack bool, returned *amqp.Return) error {
	switch {
	case returned != nil:
		return fmt.Errorf("%w: %d %s", bus.ErrUnroutable, returned.ReplyCode, returned.ReplyText)
	case !ack:
		return fmt.Errorf("%w: broker nacked the publish", bus.ErrNotConfirmed)
	}
	return nil
}

// failAll fails every waiting publish with why the channel closed.
func (l *lane) failAll(closes <-chan *amqp.Error) {
	err := errLaneClosed
	select {
	case e, ok := <-closes:
		if ok && e != nil {
			err = fmt.Errorf("%w: %s", errLaneClosed, e.Error())
		}
	default:
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = err
	for seq, w := range l.pending {
		if w.returned != nil {
			w.done <- outcome(true, w.returned) // returned, then lost: still unroutable
		} else {
			w.done <- fmt.Errorf("%w: %w", bus.ErrNotConfirmed, err)
		}
		delete(l.pending, seq)
	}
}
