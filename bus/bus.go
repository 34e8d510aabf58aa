// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package bus defines the transport a2abus runs on: publish with confirm,
// consume with manual ack/nack and a known attempt count, declare topology,
// close. bus/rabbitmq (amqp091-go) and bus/inproc (the embedded default)
// implement it, and both pass the conformance suite in bus/bustest.
package bus

import (
	"context"
	"hash/fnv"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Bus is one connection to the transport. All methods are safe for concurrent use.
type Bus interface {
	Publisher
	Subscriber
	// Declare creates spec's queue (idempotently) with the arguments its kind
	// dictates and binds it. A queue that exists with other arguments is an
	// error wrapping ErrTopologyMismatch that names the queue and the difference.
	// Declared queues are re-declared after a reconnection.
	Declare(ctx context.Context, spec QueueSpec) error
	// Close stops consumers (Consume returns ErrClosed), fails pending publishes
	// with ErrClosed and releases the connection. It is idempotent and bounded.
	Close() error
}

// Publisher sends messages through the bus exchange.
type Publisher interface {
	// Publish sends msg with msg.RoutingKey and returns once the broker has
	// confirmed it. An unroutable message is ErrUnroutable; an unconfirmed one
	// (nack, lost connection, ctx done) is an error — never silence — unless
	// msg.NoConfirm waives the confirm. Messages with the same non-empty
	// CorrelationID that one Bus publishes one after the other reach a queue
	// in that order while the connection lives, confirmed or not.
	Publish(ctx context.Context, msg Message) error
}

// BoundedPublisher is a Publisher whose every Publish ends within its own
// timeout, whatever its context: a caller that needs no shorter bound may
// publish under a context without a deadline.
type BoundedPublisher interface {
	Publisher
	// PublishTimeout is the longest a Publish waits for its confirm.
	PublishTimeout() time.Duration
}

// Subscriber consumes queues.
type Subscriber interface {
	// Consume delivers the messages of queue to h until ctx is done (returns
	// nil) or the bus is closed (returns ErrClosed). It survives reconnections:
	// when the channel or connection a delivery came on is lost, the context
	// of its handler ends with cause ErrDeliveryLost (the delivery comes
	// again, once: settling it fails with ErrDeliveryLost and copies
	// nothing), and the consumer subscribes again once its handlers returned.
	// A delivery h leaves unsettled is acked when h returns nil and nacked
	// with requeue when h returns an error or panics (see Recover); a panic
	// never stops the consumer.
	Consume(ctx context.Context, queue string, opts ConsumeOptions, h Handler) error
}

// Handler processes one delivery. It may settle it itself (Ack/Nack/DeadLetter).
type Handler func(ctx context.Context, d *Delivery) error

// ConsumeOptions tunes one consumer.
type ConsumeOptions struct {
	// Concurrency is how many deliveries are handled at once; it is also the
	// prefetch. Zero means 1.
	Concurrency int
	// MaxAttempts is how many times a message is delivered before a requeue
	// dead-letters it instead. Zero means DefaultMaxAttempts.
	MaxAttempts int
	// Ordered handles the messages of one correlation id (one task) one at a
	// time, in queue order, while different ids still run concurrently — so
	// a task's status updates are handled before its result.
	Ordered bool
}

// Lane picks one of n lanes for key, the same one every time (the
// RabbitMQ publisher keeps one task's messages on one channel with it).
func Lane(key string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}

// DefaultMaxAttempts is the attempt limit when ConsumeOptions.MaxAttempts is zero.
const DefaultMaxAttempts = 5

// Normalize returns opts with defaults filled in.
func (o ConsumeOptions) Normalize() ConsumeOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	return o
}

// HeaderAttempt is the header in which a requeued message carries its attempt count.
const HeaderAttempt = "x-a2a-attempt"

// HeaderDeathReason is set on dead-lettered messages: why the bus gave up.
const HeaderDeathReason = "x-a2a-death-reason"

// Message is what is published and delivered: the protocol's envelope (the
// AMQP properties a2abus uses, its headers and body) and what only the
// transport knows of it. A message carries an a2a.Envelope as it is, with no
// copy: bus.Message{Envelope: env, RoutingKey: key} is ready to publish, and
// a delivery's d.Envelope is ready to decode. Publish neither modifies nor
// keeps msg's headers and body, so the sender may reuse them once it returns.
//
// On a delivery, Headers also hold the bus's own headers when the bus set
// them (HeaderAttempt on a requeued message, HeaderDeathReason on a
// dead-lettered one); the protocol reads only its own (a2a's Header…
// names), so they do not change what the envelope decodes to.
type Message struct {
	a2a.Envelope
	// RoutingKey is where the message goes (publish) or went (delivery).
	RoutingKey string
	// Transient asks the broker not to persist the message (it is lost if
	// the broker restarts). For advisory messages only: status updates.
	Transient bool
	// NoConfirm makes Publish return once the message is handed to the
	// broker, without waiting for its confirm: a refused, unroutable or lost
	// message goes unnoticed. For advisory messages only: status updates.
	NoConfirm bool
	// UserID, on a delivery, is the broker user that published the message
	// (AMQP user_id, which RabbitMQ checks against the publishing
	// connection's user; kept across the bus's own requeues); empty when it
	// carries none. On publish it is ignored: the transport sets the user of
	// its own connection. Identities.Sender maps it to agent names.
	UserID string
}

// Acknowledger settles a delivery on its transport.
type Acknowledger interface {
	Ack() error
	// Nack requeues the message as its next attempt (requeue=true) or
	// dead-letters it (false).
	Nack(requeue bool) error
	// Release puts the message back unhandled, without counting an attempt.
	Release() error
}
