// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bustest

import (
	"context"
	"testing"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
)

// panicValue is what the suite's handlers panic with.
const panicValue = "bustest: handler panics on purpose"

// testPanicRedelivers: a handler panic requeues the delivery as its next
// attempt, as an error does, and the consumer goes on with later messages;
// for plain and ordered consumers alike.
func testPanicRedelivers(t *testing.T, env Env) {
	for _, tc := range []struct {
		name    string
		ordered bool
	}{{"Plain", false}, {"Ordered", true}} {
		t.Run(tc.name, func(t *testing.T) {
			b := connect(t, env)
			spec := taskQueue(t, b)
			first := message(spec.Bindings[0])
			first.CorrelationID = "task-" + unique()
			publish(t, b, first)
			seen := newRecorder()
			opts := bus.ConsumeOptions{MaxAttempts: 3, Ordered: tc.ordered}
			consume(t, b, spec.Name, opts, func(_ context.Context, d *bus.Delivery) error {
				seen.add(d)
				if d.MessageID == first.MessageID && d.Attempt == 1 {
					panic(panicValue)
				}
				return nil
			})
			testenv.Eventually(t, "the message redelivered after the panic", func() bool { return seen.count(first.MessageID) >= 2 })
			later := message(spec.Bindings[0])
			later.CorrelationID = first.CorrelationID
			publish(t, b, later)
			testenv.Eventually(t, "a message published after the panic delivered", func() bool { return seen.has(later.MessageID) })
			expectAttempts(t, seen, first.MessageID, 2)
			expectAttempts(t, seen, later.MessageID, 1)
		})
	}
}

// testPanicDeadLetters: a handler that panics on every attempt spends them
// like one that fails; the last one dead-letters the message.
func testPanicDeadLetters(t *testing.T, env Env) {
	msg, seen, dead := failing(t, env, 2, func(*bus.Delivery) error { panic(panicValue) })
	got := expectDead(t, dead, msg.MessageID)
	expectAttempts(t, seen, msg.MessageID, 2)
	expectSameMessage(t, got, msg)
}
