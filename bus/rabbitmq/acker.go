// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
)

// Death reasons set in bus.HeaderDeathReason.
const (
	// ReasonRejected: the handler dead-lettered the message.
	ReasonRejected = "rejected"
	// ReasonMaxAttempts: the message was requeued MaxAttempts times.
	ReasonMaxAttempts = "max-attempts"
)

// HeaderDeathQueue names the queue a dead-lettered message came from.
const HeaderDeathQueue = "x-a2a-death-queue"

// acker settles one AMQP delivery for bus.Delivery. RabbitMQ cannot change
// a message's headers on requeue or reject, so a requeue republishes a copy
// carrying the next attempt number to the same queue (through the default
// exchange) and a dead-letter republishes a copy carrying the reason to the
// dead-letter exchange; both are confirmed before the original is acked. If
// the republish fails the original is nacked back to its queue instead, and
// its redelivery counts the attempt: a message is never lost that way.
type acker struct {
	c       *consumer
	d       *amqp.Delivery
	acks    *acks // of d's channel
	attempt int
}

// Ack removes the message from its queue (the ack may be coalesced with
// others', see acks).
func (a *acker) Ack() error { return a.acks.ack(a.d.DeliveryTag) }

// Nack requeues the message as its next attempt, or dead-letters it when
// requeue is false (reason "rejected") or its attempts are used up
// (reason "max-attempts").
func (a *acker) Nack(requeue bool) error {
	switch {
	case !requeue:
		return a.deadLetter(ReasonRejected)
	case a.attempt >= a.c.opts.MaxAttempts:
		return a.deadLetter(ReasonMaxAttempts)
	default:
		return a.requeue(a.attempt + 1)
	}
}

// Release puts the message back unhandled: a copy with the same attempt
// number, so it costs no attempt.
func (a *acker) Release() error { return a.requeue(a.attempt) }

// countCrash counts the attempt of a delivery whose consumer went away
// without settling it: a copy numbered as the next attempt goes to the back
// of the queue — past MaxAttempts once, so that the next consumer sees the
// attempts are spent and can report it — and a message that crashed even
// that delivery is dead-lettered instead of looping. The redelivery of an
// original whose copy was confirmed as its channel was lost (copied) is
// only acked: that copy is its next attempt.
func (a *acker) countCrash() error {
	if a.c.b.copied.take(a.c.queue, a.d) { // its copy was made before its channel was lost
		err := a.acks.ack(a.d.DeliveryTag)
		if errors.Is(err, bus.ErrDeliveryLost) {
			a.c.b.copied.add(a.c.queue, a.d) // lost again: it comes back once more
		}
		return err
	}
	if a.attempt > a.c.opts.MaxAttempts {
		return a.deadLetter(ReasonMaxAttempts)
	}
	return a.requeue(a.attempt + 1)
}

// requeue puts a copy numbered attempt at the back of the queue.
func (a *acker) requeue(attempt int) error {
	pub := republishing(a.d, a.c.b.user, map[string]string{bus.HeaderAttempt: strconv.Itoa(attempt)})
	return a.replace("", a.c.queue, pub, fmt.Sprintf("requeue as attempt %d", attempt))
}

// deadLetter sends a copy to the dead-letter exchange with the reason.
func (a *acker) deadLetter(reason string) error {
	pub := republishing(a.d, a.c.b.user, map[string]string{
		bus.HeaderAttempt:     strconv.Itoa(a.attempt),
		bus.HeaderDeathReason: reason,
		HeaderDeathQueue:      a.c.queue,
	})
	pub.Expiration = "" // as RabbitMQ's own dead-lettering: it must not expire in the dead queue
	return a.replace(a.c.b.dlx, originalKey(a.d), pub, "dead-letter ("+reason+")")
}

// replace publishes pub (confirmed) and then acks the original at once. A
// delivery whose channel closed is not replaced: the broker has the
// original back and delivers it again (and that redelivery counts the
// attempt), so a copy would make two. When the channel is lost while the
// copy is being confirmed, the original is remembered (b.copied) so that
// its redelivery is dropped here instead of copied again.
func (a *acker) replace(exchange, key string, pub amqp.Publishing, what string) error {
	if a.acks.lost() {
		return fmt.Errorf("%s: %w", what, errLost)
	}
	b := a.c.b
	t := startTimer(b.publishTimeout)
	defer stopTimer(t)
	if err := b.pub.publish(context.Background(), nil, t.C, exchange, key, pub, false); err != nil {
		if nerr := a.acks.nack(a.d.DeliveryTag, true); nerr != nil {
			return fmt.Errorf("%s: %w; and nack: %w", what, err, nerr)
		}
		return fmt.Errorf("%s: %w (the message went back to its queue)", what, err)
	}
	if b.afterCopy != nil {
		b.afterCopy()
	}
	if err := a.acks.ackNow(a.d.DeliveryTag); err != nil {
		if errors.Is(err, bus.ErrDeliveryLost) {
			b.copied.add(a.c.queue, a.d)
			return nil // the copy stands; the original, back in the queue, is dropped when it comes
		}
		return fmt.Errorf("%s: ack original: %w", what, err)
	}
	return nil
}
