// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// dropTopology deletes the run's exchange and queues from a broker the
// soak shares with others (a private node is simply stopped).
func dropTopology(url, exchange string, agents, callers []string) error {
	conn, err := amqp.DialConfig(url, amqp.Config{Properties: amqp.Table{"connection_name": "soak cleanup"}})
	if err != nil {
		return fmt.Errorf("soak: connect to clean up: %w", err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("soak: channel to clean up: %w", err)
	}
	defer func() { _ = ch.Close() }()
	queues := []string{a2a.DeadLetterQueue(exchange)}
	for _, a := range agents {
		queues = append(queues, "agent.task."+a, "agent.response."+a)
	}
	for _, c := range callers {
		queues = append(queues, "agent.response."+c)
	}
	for _, q := range queues {
		if _, err := ch.QueueDelete(q, false, false, false); err != nil {
			return fmt.Errorf("soak: delete queue %s: %w", q, err)
		}
	}
	for _, x := range []string{exchange, a2a.DeadLetterExchange(exchange)} {
		if err := ch.ExchangeDelete(x, false, false); err != nil {
			return fmt.Errorf("soak: delete exchange %s: %w", x, err)
		}
	}
	return nil
}
