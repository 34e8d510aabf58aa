// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// received is one message the kit got back: its AMQP delivery (properties,
// headers, body) and when it arrived.
type received struct {
	d  amqp.Delivery
	at time.Time
}

// inbox collects the deliveries of one consumer, keyed by a string the
// owner chooses (a correlation id, a message id, an agent name).
type inbox struct {
	mu     sync.Mutex
	byKey  map[string][]received
	notify chan struct{} // closed and replaced on every arrival
}

func newInbox() *inbox {
	return &inbox{byKey: map[string][]received{}, notify: make(chan struct{})}
}

func (in *inbox) add(key string, d amqp.Delivery) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.byKey[key] = append(in.byKey[key], received{d: d, at: time.Now()})
	close(in.notify)
	in.notify = make(chan struct{})
}

// get returns a copy of what arrived under key so far.
func (in *inbox) get(key string) []received {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]received(nil), in.byKey[key]...)
}

// wait returns what arrived under key once done accepts it, or what arrived
// so far and false when ctx ends first.
func (in *inbox) wait(ctx context.Context, key string, done func([]received) bool) ([]received, bool) {
	for {
		in.mu.Lock()
		got := append([]received(nil), in.byKey[key]...)
		ch := in.notify
		in.mu.Unlock()
		if done(got) {
			return got, true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return got, false
		}
	}
}

// session is the kit's own connection to the broker: a confirm channel to
// publish on, and exclusive queues for the agent's responses, the
// announcements and the agent's dead letters.
type session struct {
	opts Options
	conn *amqp.Connection

	pubMu   sync.Mutex
	pub     *amqp.Channel
	returns chan amqp.Return

	responses *inbox // by correlation id
	cards     *inbox // by agent name, lower case
	dead      *inbox // by message id

	responseQueue string // agent.response.<Caller>
}

// dial opens the session and starts its consumers.
func dial(opts Options) (*session, error) {
	conn, err := amqp.DialConfig(opts.URL, amqp.Config{Properties: amqp.Table{"connection_name": "a2abus conformance " + opts.Caller}})
	if err != nil {
		return nil, fmt.Errorf("conformance: connect to the broker: %w", err)
	}
	s := &session{opts: opts, conn: conn, responses: newInbox(), cards: newInbox(), dead: newInbox()}
	if err := s.setup(); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return s, nil
}

func (s *session) close() { _ = s.conn.Close() }

func (s *session) setup() error {
	pub, err := s.conn.Channel()
	if err != nil {
		return fmt.Errorf("conformance: open a channel: %w", err)
	}
	if err := pub.Confirm(false); err != nil {
		return fmt.Errorf("conformance: enable publisher confirms: %w", err)
	}
	s.pub = pub
	s.returns = pub.NotifyReturn(make(chan amqp.Return, 16))

	x, dlx := s.opts.Exchange, a2a.DeadLetterExchange(s.opts.Exchange)
	for _, name := range []string{x, dlx} {
		if err := pub.ExchangeDeclare(name, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
			return fmt.Errorf("conformance: declare exchange %q (durable topic): %w", name, err)
		}
	}
	s.responseQueue, _ = a2a.ResponseRoutingKey(s.opts.Caller) // validated by Options.normalize
	taskKey, _ := a2a.TaskRoutingKey(s.opts.Agent)
	annQueue, _ := a2a.InstanceQueue("directory", s.opts.instance)
	deadQueue, _ := a2a.InstanceQueue(s.opts.Caller, s.opts.instance)
	for _, q := range []struct {
		name, exchange, key string
		in                  *inbox
		keyOf               func(amqp.Delivery) string
	}{
		// Private stand-ins: an exclusive response queue (nothing is left
		// behind), a directory's announcement queue, and a watch on the
		// agent's dead letters beside <exchange>.dead (a second binding on
		// the dead-letter exchange: the dead queue keeps its copy).
		{s.responseQueue, x, s.responseQueue, s.responses, func(d amqp.Delivery) string { return d.CorrelationId }},
		{annQueue, x, a2a.RoutingKeyAnnounce, s.cards, cardKey},
		{deadQueue + ".dead", dlx, taskKey, s.dead, func(d amqp.Delivery) string { return d.MessageId }},
	} {
		if err := s.consume(q.name, q.exchange, q.key, q.in, q.keyOf); err != nil {
			return err
		}
	}
	return nil
}

// cardKey is the lower-case agent name of an announcement ("" when unreadable).
func cardKey(d amqp.Delivery) string {
	var a struct {
		Card struct {
			Name string `json:"name"`
		} `json:"card"`
	}
	_ = jsonUnmarshal(d.Body, &a)
	return strings.ToLower(a.Card.Name)
}

// consume declares an exclusive, auto-delete queue bound to key on
// exchange and files its deliveries (auto-acked) into in.
func (s *session) consume(queue, exchange, key string, in *inbox, keyOf func(amqp.Delivery) string) error {
	ch, err := s.conn.Channel()
	if err != nil {
		return fmt.Errorf("conformance: open a channel: %w", err)
	}
	if _, err := ch.QueueDeclare(queue, false, true, true, false, nil); err != nil {
		return fmt.Errorf("conformance: declare queue %q: %w", queue, err)
	}
	if err := ch.QueueBind(queue, key, exchange, false, nil); err != nil {
		return fmt.Errorf("conformance: bind %q to %q with %q: %w", queue, exchange, key, err)
	}
	ds, err := ch.Consume(queue, "", true, true, false, false, nil)
	if err != nil {
		return fmt.Errorf("conformance: consume %q: %w", queue, err)
	}
	go func() {
		for d := range ds {
			in.add(keyOf(d), d)
		}
	}()
	return nil
}

// errReturned: the broker returned a mandatory publish: no queue is bound to its routing key.
var errReturned = errors.New("conformance: unroutable (returned by the broker)")

// publish sends p to the exchange with key, mandatory, and waits for the
// broker's confirm; a returned message is errReturned.
func (s *session) publish(ctx context.Context, exchange, key string, p amqp.Publishing) error {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	for len(s.returns) > 0 { // returns of earlier publishes were already reported
		<-s.returns
	}
	dc, err := s.pub.PublishWithDeferredConfirmWithContext(ctx, exchange, key, true, false, p)
	if err != nil {
		return fmt.Errorf("conformance: publish %s to %q: %w", p.Type, key, err)
	}
	ok, err := dc.WaitContext(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("conformance: publish %s to %q: no confirm: %w", p.Type, key, err)
	case !ok:
		return fmt.Errorf("conformance: publish %s to %q: the broker nacked it", p.Type, key)
	}
	// A return precedes the confirm of its message on the channel.
	select {
	case r := <-s.returns:
		if r.MessageId == p.MessageId {
			return fmt.Errorf("%w: %s to %q", errReturned, p.Type, key)
		}
	default:
	}
	return nil
}

// probeQueue passively declares queue on a throwaway channel: nil and the
// consumer count when it exists and this connection may use it, else the
// broker's error (404 NOT_FOUND, 405 RESOURCE_LOCKED for another
// connection's exclusive queue).
func (s *session) probeQueue(queue string) (int, error) {
	return s.onChannel(func(ch *amqp.Channel) (int, error) {
		q, err := ch.QueueDeclarePassive(queue, false, false, false, false, nil)
		return q.Consumers, err
	})
}

// redeclare declares queue with the given parameters on a throwaway
// channel: nil when they match the queue's (406 PRECONDITION_FAILED when not).
func (s *session) redeclare(queue string, durable bool, args amqp.Table) error {
	_, err := s.onChannel(func(ch *amqp.Channel) (int, error) {
		_, err := ch.QueueDeclare(queue, durable, false, false, false, args)
		return 0, err
	})
	return err
}

func (s *session) onChannel(fn func(*amqp.Channel) (int, error)) (int, error) {
	ch, err := s.conn.Channel()
	if err != nil {
		return 0, fmt.Errorf("conformance: open a channel: %w", err)
	}
	defer func() { _ = ch.Close() }()
	return fn(ch)
}

// amqpCode is the reply code of a broker error, 0 for any other error.
func amqpCode(err error) int {
	var ae *amqp.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	return 0
}
