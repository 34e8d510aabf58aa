package bus

import (
	"maps"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// FromEnvelope builds the bus message that carries env under routingKey.
func FromEnvelope(routingKey string, env a2a.Envelope) Message {
	return Message{
		RoutingKey:    routingKey,
		Type:          string(env.Kind),
		MessageID:     env.MessageID,
		CorrelationID: env.CorrelationID,
		ReplyTo:       env.ReplyTo,
		ContentType:   env.ContentType,
		Priority:      env.Priority,
		Expiration:    env.Expiration,
		Timestamp:     env.Timestamp,
		Headers:       maps.Clone(env.Headers),
		Body:          env.Body,
	}
}

// Envelope returns the protocol view of m, without the bus's own headers
// (attempt count, death reason).
func (m Message) Envelope() a2a.Envelope {
	h := maps.Clone(m.Headers)
	delete(h, HeaderAttempt)
	delete(h, HeaderDeathReason)
	return a2a.Envelope{
		Kind:          a2a.Kind(m.Type),
		MessageID:     m.MessageID,
		CorrelationID: m.CorrelationID,
		ReplyTo:       m.ReplyTo,
		ContentType:   m.ContentType,
		Priority:      m.Priority,
		Expiration:    m.Expiration,
		Timestamp:     m.Timestamp,
		Headers:       h,
		Body:          m.Body,
	}
}
