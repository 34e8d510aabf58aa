// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

func TestURLUser(t *testing.T) {
	for raw, want := range map[string]string{
		"amqp://alice:pw@h:5672/":                                          "alice",
		"amqp://h:5672/":                                                   "guest",
		"amqps://bob:pw@h/?auth_mechanism=plain":                           "bob",
		"amqps://h/?auth_mechanism=external":                               "",
		"amqps://carol:pw@h/?auth_mechanism=plain&auth_mechanism=external": "",
	} {
		if got := urlUser(raw); got != want {
			t.Errorf("urlUser(%q) = %q, want %q", raw, got, want)
		}
	}
}

// A requeued or dead-lettered copy carries the original publisher: the
// republishing consumer's own user_id, and the original in headerUser,
// believed only on a copy whose user_id is the receiver's own user.
func TestRepublishingKeepsThePublisher(t *testing.T) {
	orig := &amqp.Delivery{RoutingKey: "agent.task.B", UserId: "alice", Body: []byte("b")}
	p := republishing(orig, "bob", nil)
	if p.UserId != "bob" || p.Headers[headerUser] != "alice" {
		t.Fatalf("republished copy: user_id %q, header %v", p.UserId, p.Headers[headerUser])
	}
	copy1 := &amqp.Delivery{RoutingKey: "agent.task.B", UserId: p.UserId, Headers: p.Headers}
	if m := fromDelivery(copy1, "bob"); m.UserID != "alice" {
		t.Errorf("copy received by bob: UserID %q, want alice", m.UserID)
	}
	if _, ok := fromDelivery(copy1, "bob").Headers[headerUser]; ok {
		t.Error("the user header leaked into the delivery's headers")
	}
	// Requeued again: still alice.
	p2 := republishing(copy1, "bob", nil)
	if m := fromDelivery(&amqp.Delivery{UserId: p2.UserId, Headers: p2.Headers}, "bob"); m.UserID != "alice" {
		t.Errorf("second copy: UserID %q, want alice", m.UserID)
	}
	// A message without a publisher stays without one after a requeue.
	p3 := republishing(&amqp.Delivery{RoutingKey: "k"}, "bob", nil)
	if m := fromDelivery(&amqp.Delivery{UserId: p3.UserId, Headers: p3.Headers}, "bob"); m.UserID != "" {
		t.Errorf("requeued anonymous message: UserID %q, want none", m.UserID)
	}
	// The header from anyone else is ignored: carol cannot claim to be alice.
	forged := &amqp.Delivery{UserId: "carol", Headers: amqp.Table{headerUser: "alice"}}
	if m := fromDelivery(forged, "bob"); m.UserID != "carol" {
		t.Errorf("forged header: UserID %q, want carol", m.UserID)
	}
}
