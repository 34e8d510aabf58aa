// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
)

// QueueStats is what the broker says of a queue at one instant.
type QueueStats struct {
	// Messages is the number of messages ready for delivery (not those
	// delivered and not yet acked).
	Messages int
	// Consumers is the number of consumers subscribed to it.
	Consumers int
}

// Inspect returns the stats of an existing queue, read with a passive
// declare (which creates nothing and needs no management rights). A queue
// that does not exist is an error wrapping bus.ErrNoQueue.
func (b *Bus) Inspect(ctx context.Context, queue string) (QueueStats, error) {
	if queue == "" || len(queue) > maxShortString {
		return QueueStats{}, fmt.Errorf("inspect queue: %w: queue name %q is empty or longer than %d bytes",
			bus.ErrInvalidMessage, queue, maxShortString)
	}
	if b.isClosed() {
		return QueueStats{}, fmt.Errorf("inspect queue %q: %w", queue, bus.ErrClosed)
	}
	res := make(chan QueueStats, 1) // fn may still run after withChannel returned on ctx
	err := b.withChannel(ctx, fmt.Sprintf("inspect queue %q", queue), func(ch *amqp.Channel) error {
		q, err := ch.QueueDeclarePassive(queue, false, false, false, false, nil)
		if ae, ok := errors.AsType[*amqp.Error](err); ok && ae.Code == amqp.NotFound {
			return fmt.Errorf("inspect queue %q: %w", queue, bus.ErrNoQueue)
		}
		if err != nil {
			return fmt.Errorf("inspect queue %q: %w", queue, err)
		}
		res <- QueueStats{Messages: q.Messages, Consumers: q.Consumers}
		return nil
	})
	if err != nil {
		return QueueStats{}, err
	}
	return <-res, nil
}
