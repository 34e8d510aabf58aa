// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// maxShortString is the AMQP limit on names, routing keys and property strings.
const maxShortString = 255

// queueParams are the queue.declare parameters of one queue kind.
type queueParams struct {
	Durable, AutoDelete, Exclusive bool
	Args                           amqp.Table
}

// queueArgs is the one place queue arguments are decided, keyed by kind:
// task queues are durable, dead-lettered to dlx and priority queues (classic)
// or quorum queues; response queues durable and dead-lettered; instance
// queues exclusive and auto-deleted; the dead queue durable.
func queueArgs(kind bus.QueueKind, queueType, dlx string) (queueParams, error) {
	quorum := queueType == QueueTypeQuorum
	switch kind {
	case bus.KindTask:
		args := amqp.Table{"x-dead-letter-exchange": dlx}
		if quorum {
			args["x-queue-type"] = QueueTypeQuorum
		} else {
			args["x-max-priority"] = int32(bus.MaxPriority)
		}
		return queueParams{Durable: true, Args: args}, nil
	case bus.KindResponse:
		args := amqp.Table{"x-dead-letter-exchange": dlx}
		if quorum {
			args["x-queue-type"] = QueueTypeQuorum
		}
		return queueParams{Durable: true, Args: args}, nil
	case bus.KindInstance:
		return queueParams{Exclusive: true, AutoDelete: true}, nil
	case bus.KindDead:
		p := queueParams{Durable: true}
		if quorum {
			p.Args = amqp.Table{"x-queue-type": QueueTypeQuorum}
		}
		return p, nil
	}
	return queueParams{}, fmt.Errorf("%w: unknown queue kind %d", bus.ErrInvalidMessage, int(kind))
}

// Declare creates spec's queue with the arguments of its kind and binds it to
// the exchange (the dead queue to the dead-letter exchange). The queue is
// re-declared after every reconnection.
func (b *Bus) Declare(ctx context.Context, spec bus.QueueSpec) error {
	if err := validateSpec(spec); err != nil {
		return fmt.Errorf("declare: %w", err)
	}
	if b.isClosed() {
		return fmt.Errorf("declare %q: %w", spec.Name, bus.ErrClosed)
	}
	// Record first so that a reconnection racing with this call re-declares it.
	prev, had := b.declared.put(spec)
	err := b.withChannel(ctx, fmt.Sprintf("declare queue %q", spec.Name),
		func(ch *amqp.Channel) error { return b.declareQueue(ch, spec) })
	if err != nil {
		b.declared.restore(spec.Name, prev, had)
		return err
	}
	return nil
}

// DeleteQueue deletes a queue (and its messages) and forgets it; deleting a
// missing queue is not an error. For tests and tooling.
func (b *Bus) DeleteQueue(ctx context.Context, name string) error {
	if name == "" || len(name) > maxShortString {
		return fmt.Errorf("delete queue: %w: queue name %q is empty or longer than %d bytes",
			bus.ErrInvalidMessage, name, maxShortString)
	}
	if b.isClosed() {
		return fmt.Errorf("delete queue %q: %w", name, bus.ErrClosed)
	}
	b.declared.remove(name)
	return b.withChannel(ctx, fmt.Sprintf("delete queue %q", name), func(ch *amqp.Channel) error {
		if _, err := ch.QueueDelete(name, false, false, false); err != nil {
			return fmt.Errorf("delete queue %q: %w", name, err)
		}
		return nil
	})
}

func validateSpec(spec bus.QueueSpec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if len(spec.Name) > maxShortString {
		return fmt.Errorf("%w: queue name %.40q... is longer than %d bytes", bus.ErrInvalidMessage, spec.Name, maxShortString)
	}
	for _, k := range spec.Bindings {
		if k == "" || len(k) > maxShortString {
			return fmt.Errorf("%w: queue %q has a binding key that is empty or longer than %d bytes",
				bus.ErrInvalidMessage, spec.Name, maxShortString)
		}
	}
	return nil
}

// declareBase declares the exchange, the dead-letter exchange and the dead
// queue. The exchanges are declared without waiting for their declare-oks:
// the dead queue's declaration is answered after them, or fails with the
// broker's refusal of one of them (its reason names the exchange).
func (b *Bus) declareBase(ch *amqp.Channel) error {
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	for _, x := range []string{b.exchange, b.dlx} {
		if err := ch.ExchangeDeclare(x, amqp.ExchangeTopic, true, false, false, true, nil); err != nil {
			return topologyErr(fmt.Sprintf("declare exchange %q", x), closeReason(err, closed))
		}
	}
	if err := b.declareQueue(ch, bus.DeadQueue(b.exchange)); err != nil {
		return fmt.Errorf("declare exchanges %q and %q: %w", b.exchange, b.dlx, err)
	}
	return nil
}

// closeReason is err, unless err is amqp.ErrClosed and closed (a
// NotifyClose of the channel) reports why the broker closed the channel:
// then that reason. A call sent without waiting was refused, and the next
// call found the channel closed already.
func closeReason(err error, closed <-chan *amqp.Error) error {
	if !errors.Is(err, amqp.ErrClosed) {
		return err
	}
	if e, ok := <-closed; ok && e != nil { // closed: the reason is on its way
		return e
	}
	return err
}

// specParams are the queue.declare parameters of spec: those of its kind,
// and x-expires (whole milliseconds) when the spec expires.
func specParams(spec bus.QueueSpec, queueType, dlx string) (queueParams, error) {
	p, err := queueArgs(spec.Kind, queueType, dlx)
	if err != nil || spec.Expires <= 0 {
		return p, err
	}
	if p.Args == nil {
		p.Args = amqp.Table{}
	}
	p.Args["x-expires"] = spec.Expires.Milliseconds()
	return p, nil
}

// declareQueue declares spec's queue and its bindings on ch.
func (b *Bus) declareQueue(ch *amqp.Channel, spec bus.QueueSpec) error {
	p, err := specParams(spec, b.queueType, b.dlx)
	if err != nil {
		return fmt.Errorf("declare queue %q: %w", spec.Name, err)
	}
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	if _, err := ch.QueueDeclare(spec.Name, p.Durable, p.AutoDelete, p.Exclusive, false, p.Args); err != nil {
		err = closeReason(err, closed)
		if conflict := deploymentConflict(spec.Name, b.exchange, b.dlx, err); conflict != nil {
			return fmt.Errorf("declare %s queue %q: %w", spec.Kind, spec.Name, conflict)
		}
		if ae, ok := errors.AsType[*amqp.Error](err); ok && ae.Code == amqp.AccessRefused && spec.Kind == bus.KindTask {
			return fmt.Errorf("declare %s queue %q: %w (this broker user may not create it: a new task queue needs configure "+
				"and read on it; a caller of `a2abus access plan` has configure only, so the queue must exist first: its agent "+
				"declares it when it starts, or `a2abus topology apply --agent <name>` does)", spec.Kind, spec.Name, err)
		}
		return topologyErr(fmt.Sprintf("declare %s queue %q", spec.Kind, spec.Name), err)
	}
	source := b.exchange
	if spec.Kind == bus.KindDead {
		source = b.dlx
	}
	return bindQueue(ch, closed, spec.Name, source, spec.Bindings)
}

// bindQueue binds queue to source with keys in one round trip: every
// binding but the last is sent without waiting for its bind-ok, and the
// last one's answer comes after theirs. A refused binding closes ch: the
// error is then the broker's (an *amqp.Error, from closed: a NotifyClose
// of ch), whichever binding it was.
func bindQueue(ch *amqp.Channel, closed <-chan *amqp.Error, queue, source string, keys []string) error {
	for i, key := range keys {
		err := ch.QueueBind(queue, key, source, i < len(keys)-1, nil)
		if err == nil {
			continue
		}
		err = closeReason(err, closed)
		if len(keys) == 1 {
			return fmt.Errorf("bind queue %q to %q with key %q: %w", queue, source, key, err)
		}
		return fmt.Errorf("bind queue %q to %q with keys %q: %w", queue, source, keys, err)
	}
	return nil
}

// topologyErr wraps a declare failure; a 406 PRECONDITION_FAILED (the entity
// exists with other arguments) becomes bus.ErrTopologyMismatch with the
// broker's explanation of the difference.
func topologyErr(what string, err error) error {
	var ae *amqp.Error
	if errors.As(err, &ae) && ae.Code == amqp.PreconditionFailed {
		return fmt.Errorf("%s: %w: %s", what, bus.ErrTopologyMismatch, ae.Reason)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// deploymentConflict returns a *bus.DeploymentConflictError when err is the
// broker refusing queue because its x-dead-letter-exchange is not dlx: the
// queue was declared by a deployment on another exchange of the same vhost
// (every durable queue of a deployment is dead-lettered to its exchange's
// dead-letter exchange). Otherwise nil. The broker's reason reads
// "inequivalent arg 'x-dead-letter-exchange' for queue 'Q' in vhost 'V':
// received 'mine.dlx' but current is 'other.dlx'"; the other exchange is
// read from it when it has that shape.
func deploymentConflict(queue, exchange, dlx string, err error) *bus.DeploymentConflictError {
	var ae *amqp.Error
	if !errors.As(err, &ae) || ae.Code != amqp.PreconditionFailed || !strings.Contains(ae.Reason, "'x-dead-letter-exchange'") {
		return nil
	}
	c := &bus.DeploymentConflictError{Queue: queue, Exchange: exchange}
	_, current, _ := strings.Cut(ae.Reason, "but current is ")
	current = strings.TrimPrefix(current, "the value ") // older brokers' wording
	if strings.HasPrefix(current, "none") {
		return nil // a queue without dead-lettering is no deployment's
	}
	if other, _, ok := strings.Cut(strings.TrimPrefix(current, "'"), "'"); ok && strings.HasPrefix(current, "'") && other != dlx {
		c.Other = strings.TrimSuffix(other, a2a.DeadLetterExchange(""))
	}
	return c
}

// setupPublish runs on every new publish connection.
func (b *Bus) setupPublish(c *amqp.Connection) error {
	return b.onChannel(c, b.declareBase)
}

// setupConsume runs on every new consume connection, before consumers
// resume: base topology, then every queue declared so far. A queue that can
// no longer be declared is logged; the connection is still used.
func (b *Bus) setupConsume(c *amqp.Connection) error {
	if err := b.onChannel(c, b.declareBase); err != nil {
		return err
	}
	for _, spec := range b.declared.snapshot() {
		err := b.onChannel(c, func(ch *amqp.Channel) error { return b.declareQueue(ch, spec) })
		if err == nil {
			continue
		}
		if c.IsClosed() {
			return err
		}
		b.log.Error("rabbitmq re-declare failed", zap.String("queue", spec.Name), zap.Error(err))
	}
	return nil
}

// withChannel runs fn on a throwaway channel of the consume connection (which
// owns exclusive queues), so that a channel closed by a refusal costs
// nothing. A connection lost underneath is waited out and fn retried: the
// operations are idempotent. ctx bounds the wait; an abandoned call finishes
// in the background.
func (b *Bus) withChannel(ctx context.Context, what string, fn func(*amqp.Channel) error) error {
	var stale *amqp.Connection
	for {
		c, err := b.consume.get(ctx, stale)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		done := make(chan error, 1)
		if !b.bg.Go(func() { done <- b.onChannel(c, fn) }) {
			return fmt.Errorf("%s: %w", what, bus.ErrClosed)
		}
		select {
		case err = <-done:
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		if err == nil || !c.IsClosed() || ctx.Err() != nil {
			return err
		}
		stale = c
	}
}

// onChannel opens a channel on c, runs fn and closes the channel without
// waiting for the broker's close-ok (closeLater): what fn did is done when
// its last call was answered, and the close is a round trip of its own.
func (b *Bus) onChannel(c *amqp.Connection, fn func(*amqp.Channel) error) error {
	ch, err := c.Channel()
	if err != nil {
		return fmt.Errorf("open channel: %w", err)
	}
	defer closeLater(ch, &b.bg)
	return fn(ch)
}

// closeLater closes ch in a goroutine of g, so that its caller does not
// wait for the close-ok; Close waits for g's goroutines (the consumers'
// before the connections close, the background ones after). Once g is
// closed, ch is closed at once.
func closeLater(ch *amqp.Channel, g *group) {
	if !g.Go(func() { _ = ch.Close() }) {
		_ = ch.Close()
	}
}

// registry remembers the queues declared through the bus, for re-declaring.
type registry struct {
	mu    sync.Mutex
	specs map[string]bus.QueueSpec
}

func (r *registry) put(spec bus.QueueSpec) (prev bus.QueueSpec, had bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.specs == nil {
		r.specs = make(map[string]bus.QueueSpec)
	}
	prev, had = r.specs[spec.Name]
	spec.Bindings = slices.Clone(spec.Bindings)
	r.specs[spec.Name] = spec
	return prev, had
}

func (r *registry) restore(name string, prev bus.QueueSpec, had bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if had {
		r.specs[name] = prev
	} else {
		delete(r.specs, name)
	}
}

// get returns the recorded spec of queue name.
func (r *registry) get(name string) (bus.QueueSpec, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	spec, ok := r.specs[name]
	spec.Bindings = slices.Clone(spec.Bindings)
	return spec, ok
}

// has reports whether queue name is recorded.
func (r *registry) has(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.specs[name]
	return ok
}

func (r *registry) remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.specs, name)
}

func (r *registry) snapshot() []bus.QueueSpec {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]bus.QueueSpec, 0, len(r.specs))
	for _, s := range r.specs {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b bus.QueueSpec) int { return strings.Compare(a.Name, b.Name) })
	return out
}
