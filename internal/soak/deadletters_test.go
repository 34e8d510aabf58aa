// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"testing"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// TestDeadLetterExplained: a request dead-lettered past its attempts is
// explained by faults that interrupt tasks, whether the bus counted the
// last one (max-attempts) or its next consumer found it exhausted and
// rejected it; a rejection within the attempts (an undecodable request, a
// caller the publisher may not act as) or anything without such faults is not.
func TestDeadLetterExplained(t *testing.T) {
	request := string(a2a.KindTaskRequest)
	queue := "agent.task.SoakAgent0"
	faults := map[FaultKind]int{FaultBrokerRestart: 1}
	for _, c := range []struct {
		name   string
		d      DeadLetter
		faults map[FaultKind]int
		want   bool
	}{
		{"expired", DeadLetter{Type: request, Queue: queue, Reason: "expired"}, nil, true},
		{"max attempts after faults", DeadLetter{Type: request, Queue: queue, Reason: rabbitmq.ReasonMaxAttempts, Attempt: bus.DefaultMaxAttempts}, faults, true},
		{"max attempts without faults", DeadLetter{Type: request, Queue: queue, Reason: rabbitmq.ReasonMaxAttempts, Attempt: bus.DefaultMaxAttempts}, nil, false},
		{"exhausted, rejected after faults", DeadLetter{Type: request, Queue: queue, Reason: rabbitmq.ReasonRejected, Attempt: bus.DefaultMaxAttempts + 1}, faults, true},
		{"exhausted, rejected without faults", DeadLetter{Type: request, Queue: queue, Reason: rabbitmq.ReasonRejected, Attempt: bus.DefaultMaxAttempts + 1}, nil, false},
		{"rejected within its attempts", DeadLetter{Type: request, Queue: queue, Reason: rabbitmq.ReasonRejected, Attempt: 1}, faults, false},
		{"rejected, no attempt header", DeadLetter{Type: request, Queue: queue, Reason: rabbitmq.ReasonRejected}, faults, false},
		{"a result rejected", DeadLetter{Type: string(a2a.KindTaskResult), Queue: "agent.response.SoakCaller0", Reason: rabbitmq.ReasonRejected, Attempt: bus.DefaultMaxAttempts + 1}, faults, false},
	} {
		if got := c.d.explained(c.faults); got != c.want {
			t.Errorf("%s: explained = %v, want %v (%+v)", c.name, got, c.want, c.d)
		}
	}
}
