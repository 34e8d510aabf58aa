// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"fmt"
	"sync"
)

// Delivery is one received message with its queue and attempt count.
// Settle it once: later Ack/Nack calls return ErrAlreadySettled. A delivery
// whose connection was lost cannot be settled: the transport has it back,
// and every settle returns an error wrapping ErrDeliveryLost.
type Delivery struct {
	Message
	// Queue is the queue the message came from.
	Queue string
	// Attempt is 1 on first delivery and grows with every redelivery
	// (requeue, consumer crash, lost connection). It exceeds MaxAttempts
	// when the earlier attempts ended without a settlement (crashes): the
	// consumer should then report the failure and DeadLetter the message.
	Attempt int
	// MaxAttempts is the consumer's attempt limit.
	MaxAttempts int

	mu      sync.Mutex
	settled bool
	acker   Acknowledger
}

// NewDelivery is used by transports to build a delivery.
func NewDelivery(m Message, queue string, attempt, maxAttempts int, a Acknowledger) *Delivery {
	return &Delivery{Message: m, Queue: queue, Attempt: attempt, MaxAttempts: maxAttempts, acker: a}
}

// LastAttempt reports whether a requeue of this delivery would dead-letter it.
func (d *Delivery) LastAttempt() bool { return d.Attempt >= d.MaxAttempts }

// Exhausted reports whether the attempts were spent before this delivery
// (Attempt > MaxAttempts): the message should be reported and dead-lettered.
func (d *Delivery) Exhausted() bool { return d.Attempt > d.MaxAttempts }

// Ack removes the message from its queue.
func (d *Delivery) Ack() error { return d.settle("ack", func() error { return d.acker.Ack() }) }

// Nack requeues the message for another attempt; past MaxAttempts the
// transport dead-letters it instead.
func (d *Delivery) Nack() error {
	return d.settle("nack", func() error { return d.acker.Nack(true) })
}

// Release puts the message back unhandled without counting an attempt
// (e.g. a one-shot worker whose task budget is spent).
func (d *Delivery) Release() error {
	return d.settle("release", func() error { return d.acker.Release() })
}

// DeadLetter moves the message to the dead-letter queue at once.
func (d *Delivery) DeadLetter() error {
	return d.settle("dead-letter", func() error { return d.acker.Nack(false) })
}

// Settled reports whether Ack, Nack or DeadLetter was called.
func (d *Delivery) Settled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.settled
}

func (d *Delivery) settle(op string, f func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.settled {
		return fmt.Errorf("%s %q: %w", op, d.MessageID, ErrAlreadySettled)
	}
	d.settled = true
	if err := f(); err != nil {
		return fmt.Errorf("%s %q on %q: %w", op, d.MessageID, d.Queue, err)
	}
	return nil
}
