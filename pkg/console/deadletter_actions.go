// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	amqp "github.com/rabbitmq/amqp091-go"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
)

// DeadLetterActor republishes or drops one dead letter, found by its message id.
type DeadLetterActor interface {
	// Republish puts the dead letter back on the queue it came from, its
	// attempts and death headers cleared, and takes it off the dead-letter queue.
	Republish(ctx context.Context, messageID string) (DeadLetter, error)
	// Drop takes the dead letter off the dead-letter queue for good.
	Drop(ctx context.Context, messageID string) (DeadLetter, error)
}

// ErrNoDeadLetter: no dead letter has the message id (among the first MaxDeadLetterScan).
var ErrNoDeadLetter = errors.New("console: no such dead letter")

// MaxDeadLetterScan bounds the dead letters looked through for one action.
const MaxDeadLetterScan = 10_000

// deadLetterAction answers POST /deadletters/{id}/{action}: republish or
// drop, when the console was started with Actions (and so a token). Each
// action is logged (the audit line), and the page shows what was done.
func (c *Console) deadLetterAction(w http.ResponseWriter, r *http.Request) {
	actor, ok := c.opts.DeadLetters.(DeadLetterActor)
	switch {
	case !c.opts.Actions:
		http.Error(w, "console: read-only (start it with --actions to act on dead letters)", http.StatusForbidden)
		return
	case !ok:
		http.Error(w, "console: the dead-letter queue cannot be acted on here (RabbitMQ only)", http.StatusNotImplemented)
		return
	case !sameOrigin(r):
		http.Error(w, "console: a cross-site request", http.StatusForbidden)
		return
	}
	id, action := r.PathValue("id"), r.PathValue("action")
	var act func(context.Context, string) (DeadLetter, error)
	switch action {
	case "republish":
		act = actor.Republish
	case "drop":
		act = actor.Drop
	default:
		http.Error(w, "console: unknown action "+action+" (republish or drop)", http.StatusNotFound)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*healthCheckTimeout)
	defer cancel()
	dl, err := act(ctx, id)
	if errors.Is(err, ErrNoDeadLetter) {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if err != nil {
		c.fail(w, action+" dead letter "+id, err)
		return
	}
	c.log.Info("console: dead letter "+action+"ed", zap.String("action", action), zap.String("message_id", id), zap.String("task", dl.TaskID),
		zap.String("queue", dl.Queue), zap.String("reason", dl.Reason), zap.String("kind", dl.Kind), zap.String("remote", r.RemoteAddr))
	http.Redirect(w, r, "/deadletters?done="+url.QueryEscape(action+"ed "+id), http.StatusSeeOther)
}

// sameOrigin reports whether a state-changing request came from the
// console's own pages: its Sec-Fetch-Site, when sent, is same-origin (or
// none: typed by the user), and its Origin, when sent, is the console's
// host. A browser sends "Origin: null" for a form of a page served with
// Referrer-Policy no-referrer, as the console's are: that passes only with
// Sec-Fetch-Site same-origin.
func sameOrigin(r *http.Request) bool {
	site := r.Header.Get("Sec-Fetch-Site")
	if site != "" && site != "same-origin" && site != "none" {
		return false
	}
	o := r.Header.Get("Origin")
	switch o {
	case "":
		return true
	case "null":
		return site == "same-origin"
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

// Republish puts the dead letter back on the queue it came from (through
// the default exchange), confirmed, then acks it off the dead-letter queue.
func (a AMQPDeadLetters) Republish(ctx context.Context, messageID string) (DeadLetter, error) {
	return a.act(ctx, messageID, func(ch *amqp.Channel, d *amqp.Delivery, dl DeadLetter) error {
		if dl.Queue == "" {
			return fmt.Errorf("console: dead letter %s names no queue it came from", messageID)
		}
		if err := ch.Confirm(false); err != nil {
			return fmt.Errorf("console: confirm mode: %w", err)
		}
		h := amqp.Table{}
		for k, v := range d.Headers {
			switch k {
			case bus.HeaderAttempt, bus.HeaderDeathReason, rabbitmq.HeaderDeathQueue, "x-death", "x-first-death-exchange",
				"x-first-death-queue", "x-first-death-reason", "x-last-death-exchange", "x-last-death-queue", "x-last-death-reason":
			default:
				h[k] = v
			}
		}
		conf, err := ch.PublishWithDeferredConfirmWithContext(ctx, "", dl.Queue, true, false, amqp.Publishing{
			Headers: h, ContentType: d.ContentType, DeliveryMode: amqp.Persistent, Priority: d.Priority, CorrelationId: d.CorrelationId,
			ReplyTo: d.ReplyTo, MessageId: d.MessageId, Timestamp: d.Timestamp, Type: d.Type, Body: d.Body})
		if err != nil {
			return fmt.Errorf("console: republish to %q: %w", dl.Queue, err)
		}
		if ok, err := conf.WaitContext(ctx); err != nil || !ok {
			return fmt.Errorf("console: republish to %q: not confirmed (%v)", dl.Queue, err)
		}
		return d.Ack(false)
	})
}

// Drop acks the dead letter off the dead-letter queue.
func (a AMQPDeadLetters) Drop(ctx context.Context, messageID string) (DeadLetter, error) {
	return a.act(ctx, messageID, func(_ *amqp.Channel, d *amqp.Delivery, _ DeadLetter) error { return d.Ack(false) })
}

// act looks through the dead letters for messageID and runs f on it; the
// others go back where they were when the channel closes.
func (a AMQPDeadLetters) act(ctx context.Context, messageID string, f func(*amqp.Channel, *amqp.Delivery, DeadLetter) error) (DeadLetter, error) {
	if messageID == "" {
		return DeadLetter{}, fmt.Errorf("%w: an empty message id", ErrNoDeadLetter)
	}
	var found DeadLetter
	err := a.with(ctx, func(ch *amqp.Channel) error {
		for range MaxDeadLetterScan {
			d, ok, err := ch.Get(a.Queue, false)
			if err != nil {
				return fmt.Errorf("console: read queue %q: %w", a.Queue, err)
			}
			if !ok {
				break
			}
			if d.MessageId == messageID {
				found = deadLetterOf(&d)
				return f(ch, &d, found)
			}
		}
		return fmt.Errorf("%w: %s", ErrNoDeadLetter, messageID)
	})
	return found, err
}
