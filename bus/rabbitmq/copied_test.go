// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package rabbitmq

import (
	"strconv"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/bus"
)

func copiedDelivery(id string, attempt int) *amqp.Delivery {
	return &amqp.Delivery{MessageId: id, Headers: amqp.Table{bus.HeaderAttempt: strconv.Itoa(attempt)}}
}

// The set recognises an original by queue, message id and attempt, once;
// it holds at most copiedMax entries, dropping expired ones to make room,
// and an expired entry is not recognised.
func TestCopiedSetIsBoundedAndExact(t *testing.T) {
	var s copiedSet
	s.add("q", copiedDelivery("m", 2))
	for _, other := range []struct {
		queue string
		d     *amqp.Delivery
	}{{"other", copiedDelivery("m", 2)}, {"q", copiedDelivery("n", 2)}, {"q", copiedDelivery("m", 3)}} {
		if s.take(other.queue, other.d) {
			t.Errorf("take(%s, %s attempt %d) = true for another delivery", other.queue, other.d.MessageId, attemptOf(other.d.Headers))
		}
	}
	if !s.take("q", copiedDelivery("m", 2)) || s.take("q", copiedDelivery("m", 2)) {
		t.Error("the recorded delivery is not recognised exactly once")
	}
	s.add("q", copiedDelivery("", 1))
	if len(s.entries) != 0 {
		t.Errorf("a message without an id was recorded: %v", s.entries)
	}

	for i := range copiedMax {
		s.add("q", copiedDelivery("m"+strconv.Itoa(i), 1))
	}
	s.add("q", copiedDelivery("late", 1))
	if len(s.entries) != copiedMax || s.take("q", copiedDelivery("late", 1)) {
		t.Fatalf("%d entries after one past the bound, the last one recorded: want %d, not recorded", len(s.entries), copiedMax)
	}
	for k := range s.entries {
		s.entries[k] = time.Now().Add(-copiedTTL)
	}
	s.add("q", copiedDelivery("late", 1))
	if len(s.entries) != 1 || !s.take("q", copiedDelivery("late", 1)) {
		t.Errorf("%d entries after the expired ones made room, want just the new one", len(s.entries))
	}

	s.add("q", copiedDelivery("old", 1))
	s.entries[copiedKey{"q", "old", 1}] = time.Now().Add(-copiedTTL)
	if s.take("q", copiedDelivery("old", 1)) {
		t.Error("an expired entry was recognised")
	}
}
