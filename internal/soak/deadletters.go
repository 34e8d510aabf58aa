// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"fmt"
	"strconv"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// DeadLetter is one message found in the dead-letter queue.
type DeadLetter struct {
	Type   string // the message kind (AMQP type)
	Task   string // the correlation id: the task id
	Queue  string // the queue it was dead-lettered from
	Reason string // rejected, expired, maxlen, delivery_limit
	// Attempt is the delivery attempt it was dead-lettered at (bus.HeaderAttempt; 0: not set).
	Attempt int
}

// explained says whether the fault plan (or the design) accounts for d:
// an expired request (its deadline passed while it waited: never started,
// by design), or a request dead-lettered past its attempt limit after
// faults that interrupt tasks (kills, closed connections, broker or node
// restarts, paused nodes).
//
// A request whose deliveries were interrupted past its attempts (each lost
// delivery counted, bus/rabbitmq's countCrash) comes to its next consumer
// exhausted: the agent answers it EXECUTION_FAILED ("gave up after N
// delivery attempts") and dead-letters it as rejected, at an attempt past
// bus.DefaultMaxAttempts (the soak's agents run with it). Other rejections
// (undecodable, a caller it may not act as) come at an attempt within it.
func (d DeadLetter) explained(faults map[FaultKind]int) bool {
	interrupted := faults[FaultKillAgent]+faults[FaultCloseConns]+faults[FaultBrokerRestart]+
		faults[FaultNodeRestart]+faults[FaultNodePause] > 0
	_, fromTasks := a2a.AgentFromTaskKey(d.Queue)
	request := d.Type == string(a2a.KindTaskRequest) && fromTasks
	switch {
	case d.Reason == "expired":
		return true
	case d.Reason == rabbitmq.ReasonMaxAttempts:
		return request && interrupted
	case d.Reason == rabbitmq.ReasonRejected:
		return request && interrupted && d.Attempt > bus.DefaultMaxAttempts
	}
	return false
}

// readDeadLetters reads (without removing) the messages of queue on the broker at url.
func readDeadLetters(ctx context.Context, url, queue string) ([]DeadLetter, error) {
	conn, err := amqp.DialConfig(url, amqp.Config{Properties: amqp.Table{"connection_name": "soak checker"}})
	if err != nil {
		return nil, fmt.Errorf("soak: connect to read %s: %w", queue, err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		return nil, fmt.Errorf("soak: channel to read %s: %w", queue, err)
	}
	defer func() { _ = ch.Close() }() // the unacked messages go back to the queue
	var out []DeadLetter
	for ctx.Err() == nil {
		m, ok, err := ch.Get(queue, false)
		if err != nil {
			if e, isAMQP := err.(*amqp.Error); isAMQP && e.Code == amqp.NotFound {
				return nil, nil // no dead-letter queue: nothing was dead-lettered
			}
			return nil, fmt.Errorf("soak: read %s: %w", queue, err)
		}
		if !ok {
			break
		}
		d := DeadLetter{Type: m.Type, Task: m.CorrelationId}
		// a2abus dead-letters by republishing a copy that names the reason and
		// the queue; the broker's own dead-lettering (expiry) sets x-death.
		d.Reason, _ = m.Headers[bus.HeaderDeathReason].(string)
		d.Queue, _ = m.Headers[rabbitmq.HeaderDeathQueue].(string)
		if a, ok := m.Headers[bus.HeaderAttempt].(string); ok {
			d.Attempt, _ = strconv.Atoi(a)
		}
		if deaths, ok := m.Headers["x-death"].([]any); ok && len(deaths) > 0 {
			if first, ok := deaths[0].(amqp.Table); ok && d.Reason == "" {
				d.Reason, _ = first["reason"].(string)
				d.Queue, _ = first["queue"].(string)
			}
		}
		out = append(out, d)
	}
	return out, nil
}
