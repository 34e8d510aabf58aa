// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"errors"
	"maps"
	"reflect"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestToPublishingMapsEveryField(t *testing.T) {
	ts := time.Unix(1700000000, 0)
	m := bus.Message{
		Envelope: a2a.Envelope{Kind: "task.request", MessageID: "m1", CorrelationID: "t1", ReplyTo: "agent.response.B",
			ContentType: "application/json", Priority: 7, Expiration: 1500 * time.Millisecond, Timestamp: ts,
			Headers: map[string]string{"a2a-version": "1.0"}, Body: []byte(`{"a":1}`)},
		RoutingKey: "agent.task.A",
	}
	p := toPublishing(m, "alice")
	want := amqp.Publishing{UserId: "alice",
		Headers: amqp.Table{"a2a-version": "1.0"}, ContentType: "application/json",
		DeliveryMode: amqp.Persistent, Priority: 7, CorrelationId: "t1", ReplyTo: "agent.response.B",
		Expiration: "1500", MessageId: "m1", Timestamp: ts, Type: "task.request", Body: m.Body,
	}
	if !maps.Equal(p.Headers, want.Headers) {
		t.Errorf("headers = %v, want %v", p.Headers, want.Headers)
	}
	p.Headers, want.Headers = nil, nil
	if string(p.Body) != string(want.Body) {
		t.Errorf("body = %q, want %q", p.Body, want.Body)
	}
	p.Body, want.Body = nil, nil
	if !reflect.DeepEqual(p, want) {
		t.Errorf("publishing = %+v\nwant %+v", p, want)
	}
	if toPublishing(bus.Message{RoutingKey: "k"}, "").Headers != nil {
		t.Error("no headers should map to a nil table")
	}
}

func TestFromDeliveryMapsEveryField(t *testing.T) {
	ts := time.Unix(1700000000, 0)
	d := &amqp.Delivery{
		RoutingKey: "agent.task.A", Type: "task.status", MessageId: "m1", CorrelationId: "t1",
		ReplyTo: "r", ContentType: "application/json", Priority: 3, Expiration: "2000", Timestamp: ts,
		Headers: amqp.Table{"s": "v", "n": int32(4), "b": []byte("raw"), "x-death": []any{amqp.Table{"q": "x"}},
			headerPublishSeq: int64(7), headerUser: "carol"}, // the bus's own: never shown
		Body: []byte("body"), UserId: "alice",
	}
	m := fromDelivery(d, "bob")
	want := bus.Message{
		Envelope: a2a.Envelope{Kind: "task.status", MessageID: "m1", CorrelationID: "t1", ReplyTo: "r",
			ContentType: "application/json", Priority: 3, Expiration: 2 * time.Second, Timestamp: ts},
		UserID:     "alice",
		RoutingKey: "agent.task.A",
	}
	if !maps.Equal(m.Headers, map[string]string{"s": "v", "n": "4", "b": "raw"}) {
		t.Errorf("headers = %v", m.Headers)
	}
	if string(m.Body) != "body" {
		t.Errorf("body = %q", m.Body)
	}
	m.Headers, m.Body = nil, nil
	if !m.Timestamp.Equal(want.Timestamp) {
		t.Errorf("timestamp = %v, want %v", m.Timestamp, want.Timestamp)
	}
	m.Timestamp, want.Timestamp = time.Time{}, time.Time{}
	if !equalMessages(m, want) {
		t.Errorf("message = %+v\nwant %+v", m, want)
	}
}

func equalMessages(a, b bus.Message) bool {
	return a.RoutingKey == b.RoutingKey && a.Kind == b.Kind && a.MessageID == b.MessageID &&
		a.CorrelationID == b.CorrelationID && a.ReplyTo == b.ReplyTo && a.ContentType == b.ContentType &&
		a.Priority == b.Priority && a.Expiration == b.Expiration && a.Timestamp.Equal(b.Timestamp) &&
		maps.Equal(a.Headers, b.Headers) && string(a.Body) == string(b.Body) && a.UserID == b.UserID
}

func TestRepublishingKeepsIdentityAndOriginalKey(t *testing.T) {
	d := &amqp.Delivery{
		RoutingKey: "agent.cancel.A", MessageId: "m1", Type: "task.cancel", Priority: 5, Expiration: "900",
		Headers: amqp.Table{"keep": "me", "x-delivery-count": int64(2)}, Body: []byte("b"),
	}
	p := republishing(d, "", map[string]string{bus.HeaderAttempt: "2"})
	if p.Headers[headerRoutingKey] != "agent.cancel.A" || p.Headers["keep"] != "me" || p.Headers[bus.HeaderAttempt] != "2" {
		t.Errorf("headers = %v", p.Headers)
	}
	if _, ok := p.Headers["x-delivery-count"]; ok {
		t.Error("quorum delivery count copied into the republished message")
	}
	if p.MessageId != "m1" || p.Type != "task.cancel" || p.Priority != 5 || p.Expiration != "900" ||
		p.DeliveryMode != amqp.Persistent || string(p.Body) != "b" {
		t.Errorf("republishing = %+v", p)
	}
	if d.Headers["keep"] != "me" || len(d.Headers) != 2 {
		t.Errorf("republishing changed the original's headers: %v", d.Headers)
	}

	// A second requeue keeps the first routing key, and the delivery shows it.
	again := &amqp.Delivery{RoutingKey: "a2a.instance.A.i1", Headers: p.Headers}
	if k := originalKey(again); k != "agent.cancel.A" {
		t.Errorf("originalKey = %q", k)
	}
	m := fromDelivery(again, "")
	if m.RoutingKey != "agent.cancel.A" {
		t.Errorf("delivery routing key = %q, want the original", m.RoutingKey)
	}
	if _, ok := m.Headers[headerRoutingKey]; ok {
		t.Error("internal routing-key header visible in the delivery")
	}
}

func TestExpirationConversion(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "", -time.Second: "", time.Microsecond: "1", 1500 * time.Millisecond: "1500", time.Hour: "3600000",
	} {
		if got := expirationString(d); got != want {
			t.Errorf("expirationString(%v) = %q, want %q", d, got, want)
		}
	}
	for s, want := range map[string]time.Duration{"": 0, "abc": 0, "-5": 0, "250": 250 * time.Millisecond} {
		if got := parseExpiration(s); got != want {
			t.Errorf("parseExpiration(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestAttemptOf(t *testing.T) {
	for _, tc := range []struct {
		h    amqp.Table
		want int
	}{
		{nil, 1}, {amqp.Table{bus.HeaderAttempt: "3"}, 3}, {amqp.Table{bus.HeaderAttempt: "junk"}, 1},
		{amqp.Table{bus.HeaderAttempt: "0"}, 1}, {amqp.Table{bus.HeaderAttempt: int32(4)}, 4},
		{amqp.Table{bus.HeaderAttempt: int64(6)}, 6},
	} {
		if got := attemptOf(tc.h); got != tc.want {
			t.Errorf("attemptOf(%v) = %d, want %d", tc.h, got, tc.want)
		}
	}
}

func TestValidateMessage(t *testing.T) {
	long := string(make([]byte, 256))
	for name, m := range map[string]bus.Message{
		"no key":        {},
		"long key":      {RoutingKey: long},
		"priority":      {RoutingKey: "k", Envelope: a2a.Envelope{Priority: 10}},
		"negative ttl":  {RoutingKey: "k", Envelope: a2a.Envelope{Expiration: -1}},
		"long reply-to": {RoutingKey: "k", Envelope: a2a.Envelope{ReplyTo: long}},
		"long header":   {RoutingKey: "k", Envelope: a2a.Envelope{Headers: map[string]string{long: "v"}}},
	} {
		if err := validateMessage(m); !errors.Is(err, bus.ErrInvalidMessage) {
			t.Errorf("%s: validateMessage = %v, want ErrInvalidMessage", name, err)
		}
	}
	if err := validateMessage(bus.Message{Envelope: a2a.Envelope{Priority: bus.MaxPriority}, RoutingKey: "k"}); err != nil {
		t.Errorf("valid message refused: %v", err)
	}
}

func TestBrokerDeathReasonShown(t *testing.T) {
	m := fromDelivery(&amqp.Delivery{Headers: amqp.Table{headerFirstDeathReason: "expired"}}, "")
	if m.Headers[bus.HeaderDeathReason] != "expired" {
		t.Errorf("headers = %v, want the broker's death reason in %s", m.Headers, bus.HeaderDeathReason)
	}
	m = fromDelivery(&amqp.Delivery{Headers: amqp.Table{headerFirstDeathReason: "rejected", bus.HeaderDeathReason: ReasonMaxAttempts}}, "")
	if m.Headers[bus.HeaderDeathReason] != ReasonMaxAttempts {
		t.Errorf("headers = %v: the bus's own reason must win", m.Headers)
	}
}
