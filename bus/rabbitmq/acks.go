// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"errors"
	"fmt"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
)

// errSettled: a delivery was acked or nacked twice.
var errSettled = errors.New("rabbitmq: delivery already settled")

// errLost is the error of settling a delivery whose channel closed.
var errLost = fmt.Errorf("%w: its channel closed and the broker delivers it again", bus.ErrDeliveryLost)

// ackHold bounds how long an ack may wait to be coalesced.
const ackHold = 20 * time.Millisecond

// acks settles the deliveries of one subscription channel and coalesces
// their acks: one basic.ack with multiple set covers every delivery up to
// the highest whose handler has finished, once all below it have. Handlers
// finish out of order, so an ack whose lower tags are still being handled
// waits — at most ackHold, then it goes alone — so a long task never holds
// the acks of later ones (nor the prefetch window they free). Nacks go at
// once. Every ack waiting is sent before the channel is closed on stop
// (flush); one lost with the channel only means a redelivery, which the
// bus counts as an attempt.
type acks struct {
	ch  *amqp.Channel
	log *zap.Logger

	mu sync.Mutex
	// next is the lowest delivery tag not yet settled; every tag below it is.
	next uint64
	// settled holds the tags at or above next already settled: waiting is
	// true for an ack not yet sent, false for an ack or nack sent alone.
	settled map[uint64]bool
	waiting int         // acks not yet sent
	timer   *time.Timer // sends the waiting acks alone after ackHold; nil when none waits
}

func newAcks(ch *amqp.Channel, log *zap.Logger) *acks {
	return &acks{ch: ch, log: log, next: 1, settled: make(map[uint64]bool)}
}

// ack acknowledges tag, now or (coalesced) within ackHold.
func (a *acks) ack(tag uint64) error {
	if a.lost() {
		return fmt.Errorf("ack: %w", errLost)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.unsettled(tag); err != nil {
		return err
	}
	a.settled[tag] = true
	a.waiting++
	if err := a.advance(); err != nil {
		return err
	}
	if a.waiting > 0 && a.timer == nil {
		a.timer = time.AfterFunc(ackHold, a.sendWaiting)
	}
	return nil
}

// nack rejects tag at once, requeued or not.
func (a *acks) nack(tag uint64, requeue bool) error {
	return a.sendAlone("nack", tag, func() error { return a.ch.Nack(tag, false, requeue) })
}

// ackNow acknowledges tag at once, not coalesced: for an original whose
// copy was just confirmed, so that the instant in which a lost channel
// leaves both in the queue is as short as it can be.
func (a *acks) ackNow(tag uint64) error {
	return a.sendAlone("ack", tag, func() error { return a.ch.Ack(tag, false) })
}

// sendAlone settles tag at once with send (op names it in errors).
func (a *acks) sendAlone(op string, tag uint64, send func() error) error {
	if a.lost() {
		return fmt.Errorf("%s: %w", op, errLost)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.unsettled(tag); err != nil {
		return err
	}
	if err := send(); err != nil {
		if a.lost() {
			return fmt.Errorf("%s: %w", op, errLost)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	a.settled[tag] = false
	return a.advance()
}

// lost reports whether the channel closed under its deliveries: the broker
// took back every one not acked before and delivers it again, so none of
// them can be settled any more.
func (a *acks) lost() bool { return a.ch.IsClosed() }

// unsettled refuses a tag settled before (the broker would close the
// channel for it). a.mu is held.
func (a *acks) unsettled(tag uint64) error {
	if _, done := a.settled[tag]; done || tag < a.next {
		return fmt.Errorf("delivery %d: %w", tag, errSettled)
	}
	return nil
}

// advance moves next past the settled tags and sends one ack, with
// multiple set, up to the highest of them still waiting. a.mu is held.
func (a *acks) advance() error {
	var last uint64
	for {
		waiting, ok := a.settled[a.next]
		if !ok {
			break
		}
		if waiting {
			last = a.next
			a.waiting--
		}
		delete(a.settled, a.next)
		a.next++
	}
	if last == 0 {
		return nil
	}
	if err := a.ch.Ack(last, true); err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	return nil
}

// sendWaiting sends every waiting ack alone: their lower tags are still
// being handled.
func (a *acks) sendWaiting() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.timer = nil
	for tag, waiting := range a.settled {
		if !waiting {
			continue
		}
		if err := a.ch.Ack(tag, false); err != nil {
			a.log.Debug("rabbitmq: send a held ack; the delivery will come again", zap.Uint64("tag", tag), zap.Error(err))
			return
		}
		a.settled[tag] = false
		a.waiting--
	}
}

// flush sends the acks still waiting, before the channel closes.
func (a *acks) flush() {
	a.mu.Lock()
	t := a.timer
	a.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	a.sendWaiting()
}
