// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"fmt"
	"strconv"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// headerRoutingKey keeps a message's original routing key when the bus
// republishes it straight to a queue (a requeue goes through the default
// exchange with the queue name as key), so Delivery.RoutingKey survives.
const headerRoutingKey = "x-a2a-routing-key"

// headerFirstDeathReason is set by RabbitMQ when it dead-letters a message
// itself (expired, rejected without the bus, queue limits).
const headerFirstDeathReason = "x-first-death-reason"

// headerUser keeps the user_id of a message's original publisher when the
// bus republishes it (requeue, dead-letter): the copy's own user_id is the
// republishing consumer's, and the header is believed only on a copy whose
// user_id is the receiver's own user — no one else can have written it.
const headerUser = "x-a2a-user"

// validateMessage checks what AMQP would refuse or silently mangle.
func validateMessage(m bus.Message) error {
	switch {
	case m.RoutingKey == "":
		return fmt.Errorf("%w: message %q has no routing key", bus.ErrInvalidMessage, m.MessageID)
	case m.Priority > bus.MaxPriority:
		return fmt.Errorf("%w: message %q has priority %d above %d",
			bus.ErrInvalidMessage, m.MessageID, m.Priority, bus.MaxPriority)
	case m.Expiration < 0:
		return fmt.Errorf("%w: message %q has negative expiration %s",
			bus.ErrInvalidMessage, m.MessageID, m.Expiration)
	}
	for _, f := range [...]struct{ name, v string }{
		{"routing key", m.RoutingKey}, {"type", string(m.Kind)}, {"message id", m.MessageID},
		{"correlation id", m.CorrelationID}, {"reply-to", m.ReplyTo}, {"content type", m.ContentType},
	} {
		if len(f.v) > maxShortString {
			return fmt.Errorf("%w: message %.40q: %s is longer than %d bytes",
				bus.ErrInvalidMessage, m.MessageID, f.name, maxShortString)
		}
	}
	for k := range m.Headers {
		if k == "" || len(k) > maxShortString {
			return fmt.Errorf("%w: message %.40q: header name %.40q is empty or longer than %d bytes",
				bus.ErrInvalidMessage, m.MessageID, k, maxShortString)
		}
	}
	return nil
}

// toPublishing maps a bus message to an AMQP publishing, persistent unless
// the message is transient, with user_id set to user (the connection's own,
// which RabbitMQ requires it to be; m.UserID is ignored).
func toPublishing(m bus.Message, user string) amqp.Publishing {
	return amqp.Publishing{
		UserId:        user,
		Headers:       headerTable(m.Headers),
		ContentType:   m.ContentType,
		DeliveryMode:  deliveryMode(m.Transient),
		Priority:      m.Priority,
		CorrelationId: m.CorrelationID,
		ReplyTo:       m.ReplyTo,
		Expiration:    expirationString(m.Expiration),
		MessageId:     m.MessageID,
		Timestamp:     m.Timestamp,
		Type:          string(m.Kind),
		Body:          m.Body,
	}
}

// fromDelivery maps an AMQP delivery back to a bus message, received by a
// connection whose user is own.
func fromDelivery(d *amqp.Delivery, own string) bus.Message {
	h := tableHeaders(d.Headers)
	key := d.RoutingKey
	if k, ok := h[headerRoutingKey]; ok {
		key = k
		delete(h, headerRoutingKey)
	}
	user := originalUser(d, own)
	if r, ok := h[headerFirstDeathReason]; ok && h[bus.HeaderDeathReason] == "" {
		h[bus.HeaderDeathReason] = r // dead-lettered by the broker itself, e.g. "expired"
	}
	if len(h) == 0 {
		h = nil
	}
	return bus.Message{
		Envelope: a2a.Envelope{
			Kind:          a2a.Kind(d.Type),
			MessageID:     d.MessageId,
			CorrelationID: d.CorrelationId,
			ReplyTo:       d.ReplyTo,
			ContentType:   d.ContentType,
			Priority:      d.Priority,
			Expiration:    parseExpiration(d.Expiration),
			Timestamp:     d.Timestamp,
			Headers:       h,
			Body:          d.Body,
		},
		Transient:  d.DeliveryMode == amqp.Transient,
		RoutingKey: key,
		UserID:     user,
	}
}

// originalUser is the user that first published d: its user_id, or — on a
// copy the bus republished under own's user_id (requeue, dead-letter) — the
// one it kept in headerUser. A header on any other copy is ignored: only a
// process connected as own can have published it with own's user_id.
func originalUser(d *amqp.Delivery, own string) string {
	if own == "" || d.UserId != own {
		return d.UserId
	}
	if u, ok := d.Headers[headerUser].(string); ok {
		return u
	}
	return d.UserId
}

// republishing copies d for the bus to publish again (requeue, dead-letter)
// on a connection whose user is own: same properties and body, the original
// routing key and publisher's user kept in headers, user_id set to own, and
// set applied over the headers.
func republishing(d *amqp.Delivery, own string, set map[string]string) amqp.Publishing {
	h := make(amqp.Table, len(d.Headers)+len(set)+1)
	for k, v := range d.Headers {
		h[k] = v
	}
	delete(h, "x-delivery-count") // the quorum queue's own counter
	delete(h, headerPublishSeq)
	if _, ok := h[headerRoutingKey]; !ok {
		h[headerRoutingKey] = d.RoutingKey
	}
	h[headerUser] = originalUser(d, own)
	for k, v := range set {
		h[k] = v
	}
	return amqp.Publishing{
		Headers:         h,
		ContentType:     d.ContentType,
		ContentEncoding: d.ContentEncoding,
		DeliveryMode:    deliveryMode(d.DeliveryMode == amqp.Transient),
		Priority:        d.Priority,
		CorrelationId:   d.CorrelationId,
		ReplyTo:         d.ReplyTo,
		Expiration:      d.Expiration,
		MessageId:       d.MessageId,
		Timestamp:       d.Timestamp,
		Type:            d.Type,
		AppId:           d.AppId,
		UserId:          own,
		Body:            d.Body,
	}
}

// originalKey is the routing key d was first published with.
func originalKey(d *amqp.Delivery) string {
	if k, ok := d.Headers[headerRoutingKey].(string); ok && k != "" {
		return k
	}
	return d.RoutingKey
}

// expirationString is the AMQP expiration of d: whole milliseconds, at least
// 1 for a positive d (0 would mean "expire unless delivered at once").
func expirationString(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
}

// parseExpiration reads an AMQP expiration; absent or malformed is zero.
func parseExpiration(s string) time.Duration {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// headerTable maps string headers to an AMQP table (nil when empty).
func headerTable(h map[string]string) amqp.Table {
	if len(h) == 0 {
		return nil
	}
	t := make(amqp.Table, len(h))
	for k, v := range h {
		t[k] = v
	}
	return t
}

// tableHeaders maps AMQP headers to strings: strings and bytes as they are,
// numbers, booleans and times formatted; nested tables and arrays (such as
// the broker's x-death) are left out, and so are the bus's own headerUser
// and headerPublishSeq (not formatted only to be dropped). Nil when there
// are none.
func tableHeaders(t amqp.Table) map[string]string {
	if len(t) == 0 {
		return nil
	}
	h := make(map[string]string, len(t))
	for k, v := range t {
		if k == headerUser || k == headerPublishSeq {
			continue
		}
		switch v := v.(type) {
		case string:
			h[k] = v
		case []byte:
			h[k] = string(v)
		case bool, int, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64:
			h[k] = fmt.Sprint(v)
		case amqp.Decimal:
			h[k] = fmt.Sprintf("%de-%d", v.Value, v.Scale)
		case time.Time:
			h[k] = v.UTC().Format(time.RFC3339)
		}
	}
	if len(h) == 0 {
		return nil
	}
	return h
}

// attemptOf reads the bus attempt header; absent or malformed is 1.
func attemptOf(t amqp.Table) int {
	var n int64
	switch v := t[bus.HeaderAttempt].(type) {
	case string:
		n, _ = strconv.ParseInt(v, 10, 32)
	case int32:
		n = int64(v)
	case int64:
		n = v
	}
	if n < 1 {
		return 1
	}
	return int(n)
}

// deliveryMode is persistent unless the message is transient.
func deliveryMode(transient bool) uint8 {
	if transient {
		return amqp.Transient
	}
	return amqp.Persistent
}
