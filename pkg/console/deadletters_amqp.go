// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/internal/text"
)

// maxBodyShown bounds the body of a dead letter on the page.
const maxBodyShown = 500

// AMQPDeadLetters reads a RabbitMQ dead-letter queue on a connection of
// its own: it gets messages without acking them and closes the channel,
// which puts every one back where it was. Quorum queues count each such
// return as a delivery (and drop a message past their delivery limit), so
// on them Peek reads nothing and only Count answers.
type AMQPDeadLetters struct {
	// URL is the broker (amqp:// or amqps://); TLS its client settings, if any.
	URL string
	TLS *tls.Config
	// Queue is the dead-letter queue (a2a.DeadLetterQueue of the exchange).
	Queue string
	// Quorum says the queues are quorum queues (bus.queue_type quorum).
	Quorum bool
}

// ErrQuorumPeek: a quorum dead-letter queue is not read (see AMQPDeadLetters).
var ErrQuorumPeek = errors.New("console: the dead letters of a quorum queue are not read (each look would count as a delivery): only their number is shown")

// dialTimeout bounds the connection of one look at the dead-letter queue.
const dialTimeout = 5 * time.Second

// with runs f on a channel of a new connection, closed when f returns or ctx ends.
func (a AMQPDeadLetters) with(ctx context.Context, f func(ch *amqp.Channel) error) error {
	cfg := amqp.Config{TLSClientConfig: a.TLS, Dial: amqp.DefaultDial(dialTimeout), Properties: amqp.Table{"connection_name": "a2abus-console"}}
	conn, err := amqp.DialConfig(a.URL, cfg)
	if err != nil {
		return fmt.Errorf("console: connect to the broker at %s: %w", redact.URL(a.URL), err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() { // a look that outlives ctx is cut
		select {
		case <-ctx.Done():
			_ = conn.Close()
		case <-done:
		}
	}()
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("console: open a channel: %w", err)
	}
	defer func() { _ = ch.Close() }() // returns every message got and not acked
	return f(ch)
}

// Count is how many messages the dead-letter queue holds.
func (a AMQPDeadLetters) Count(ctx context.Context) (int, error) {
	var n int
	err := a.with(ctx, func(ch *amqp.Channel) error {
		q, err := ch.QueueDeclarePassive(a.Queue, false, false, false, false, nil)
		if ae, ok := errors.AsType[*amqp.Error](err); ok && ae.Code == amqp.NotFound {
			return nil // no dead letter yet: the queue is declared on the first connect
		}
		if err != nil {
			return fmt.Errorf("console: inspect queue %q: %w", a.Queue, err)
		}
		n = q.Messages
		return nil
	})
	return n, err
}

// Peek returns up to n dead letters, oldest first, and leaves them in the queue.
func (a AMQPDeadLetters) Peek(ctx context.Context, n int) ([]DeadLetter, error) {
	if a.Quorum {
		return nil, ErrQuorumPeek
	}
	var out []DeadLetter
	err := a.with(ctx, func(ch *amqp.Channel) error {
		for len(out) < n && ctx.Err() == nil {
			d, ok, err := ch.Get(a.Queue, false)
			if ae, isAMQP := errors.AsType[*amqp.Error](err); isAMQP && ae.Code == amqp.NotFound {
				return nil
			}
			if err != nil {
				return fmt.Errorf("console: read queue %q: %w", a.Queue, err)
			}
			if !ok {
				return nil
			}
			out = append(out, deadLetterOf(&d))
		}
		return ctx.Err()
	})
	return out, err
}

// deadLetterOf reads what the page shows of a dead-lettered delivery.
func deadLetterOf(d *amqp.Delivery) DeadLetter {
	str := func(k string) string { s, _ := d.Headers[k].(string); return s }
	dl := DeadLetter{Reason: str(bus.HeaderDeathReason), Queue: str(rabbitmq.HeaderDeathQueue), Kind: d.Type, TaskID: d.CorrelationId,
		MessageID: d.MessageId, RoutingKey: d.RoutingKey, Attempt: fmt.Sprint(d.Headers[bus.HeaderAttempt]), Timestamp: d.Timestamp,
		Body: text.Cut(redact.String(string(d.Body)), maxBodyShown)}
	if d.Headers[bus.HeaderAttempt] == nil {
		dl.Attempt = ""
	}
	if deaths, ok := d.Headers["x-death"].([]any); ok && len(deaths) > 0 { // the broker's own dead-lettering (an expired task)
		if t, ok := deaths[0].(amqp.Table); ok {
			if dl.Reason == "" {
				dl.Reason, _ = t["reason"].(string)
			}
			if dl.Queue == "" {
				dl.Queue, _ = t["queue"].(string)
			}
		}
	}
	for _, q := range []string{dl.Queue, dl.RoutingKey} { // agent.task.<Name>, agent.response.<Name>
		for _, prefix := range []string{"agent.task.", "agent.response."} {
			if name, ok := strings.CutPrefix(q, prefix); ok && dl.Agent == "" {
				dl.Agent = name
			}
		}
	}
	return dl
}
