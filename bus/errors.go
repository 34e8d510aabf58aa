// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors every transport returns (wrapped with what was being done).
var (
	// ErrClosed: the bus was closed.
	ErrClosed = errors.New("bus: closed")
	// ErrUnroutable: no queue is bound for the message's routing key.
	ErrUnroutable = errors.New("bus: unroutable")
	// ErrNotConfirmed: the broker nacked the publish or the connection was lost before its confirm.
	ErrNotConfirmed = errors.New("bus: publish not confirmed")
	// ErrDeliveryLost: the channel a delivery came on closed before it was
	// settled; the broker has it back and delivers it again. It is the cause
	// of the handler's context then, so work that can no longer be acked
	// stops, and the error of any later Ack, Nack, Release or DeadLetter of
	// it, which change nothing (a copy would run the message twice).
	ErrDeliveryLost = errors.New("bus: delivery lost")
	// ErrNotSent: the message surely never left this process (no channel
	// could be had, or ctx ended before the send); it comes with
	// ErrNotConfirmed, and tells a publisher that nothing can arrive.
	ErrNotSent = errors.New("bus: message not sent")
	// ErrTopologyMismatch: a queue exists with other arguments than the ones asked for.
	ErrTopologyMismatch = errors.New("bus: topology mismatch")
	// ErrNoQueue: the queue to consume does not exist.
	ErrNoQueue = errors.New("bus: no such queue")
	// ErrAlreadySettled: a delivery was acked or nacked twice.
	ErrAlreadySettled = errors.New("bus: delivery already settled")
	// ErrInvalidMessage: a message or spec is missing something it needs.
	ErrInvalidMessage = errors.New("bus: invalid message")
	// ErrPanicked: a handler panicked; Recover returns it as a *PanicError.
	ErrPanicked = errors.New("bus: handler panicked")
)

// ErrOtherDeployment is wrapped by a DeploymentConflictError: a queue this
// deployment declares belongs to another deployment on the same broker vhost.
var ErrOtherDeployment = errors.New("bus: queue of another deployment")

// DeploymentConflictError is a declare refused because the queue exists on
// the vhost dead-lettered to another exchange: another deployment (another
// bus.exchange) uses the same agent or caller name there. Queue names are
// not scoped by the exchange (they are the wire protocol's), so two
// deployments on one vhost cannot share a name: each needs its own vhost.
// It wraps ErrOtherDeployment and ErrTopologyMismatch.
type DeploymentConflictError struct {
	// Queue is the queue both deployments name.
	Queue string
	// Exchange is this process's bus.exchange.
	Exchange string
	// Other is the other deployment's exchange, as its dead-letter exchange
	// names it; "" when the broker did not say.
	Other string
}

// Error names the queue, both exchanges and the remedy.
func (e *DeploymentConflictError) Error() string {
	other := "another exchange"
	if e.Other != "" {
		other = "exchange " + strconv.Quote(e.Other)
	}
	return fmt.Sprintf("%v: queue %q already belongs to a deployment on %s, on the same vhost as this one (exchange %q): "+
		"queue names do not include bus.exchange, so two deployments on one vhost cannot share an agent or caller name; "+
		"give each deployment its own RabbitMQ vhost (bus.url ending in /<vhost>; docs/topology.md#one-deployment-per-vhost)",
		ErrOtherDeployment, e.Queue, other, e.Exchange)
}

// Unwrap returns ErrOtherDeployment and ErrTopologyMismatch.
func (e *DeploymentConflictError) Unwrap() []error {
	return []error{ErrOtherDeployment, ErrTopologyMismatch}
}
