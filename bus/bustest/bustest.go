// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package bustest is the conformance suite every bus.Bus implementation
// passes: bus/inproc runs it in memory, bus/rabbitmq against a real broker.
// Code tested on one transport therefore behaves the same on the other.
package bustest

import (
	"testing"

	"github.com/a2abus/a2abus/bus"
)

// Env gives the suite connections to one shared backend. Implementations
// remove, in t.Cleanup, whatever the suite's connections declared.
type Env interface {
	// Exchange is the bus exchange the connections publish to (unique per Env so parallel runs never collide).
	Exchange() string
	// Connect opens a new bus.Bus connection to the shared backend. The suite closes it.
	Connect(t *testing.T) bus.Bus
	// Cut does to b (made by Connect) what a network failure does to its
	// link to the backend, leaving b open: the deliveries its consumers
	// hold unsettled go back to their queues, counted as an attempt.
	Cut(t *testing.T, b bus.Bus)
}

// Run runs every conformance test; newEnv is called once per sub-test. The
// sub-tests run in parallel and Run returns when all of them have finished.
func Run(t *testing.T, newEnv func(t *testing.T) Env) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, env Env)
	}{
		{"RoundTrip", testRoundTrip},
		{"TopicRouting", testTopicRouting},
		{"OrderWithinQueue", testOrder},
		{"NoConfirmKeepsOrder", testNoConfirmKeepsOrder},
		{"PriorityOnTaskQueue", testPriority},
		{"ExpiredNeverDelivered", testExpiration},
		{"ErrorRedeliversThenDeadLetters", testErrorRedelivers},
		{"NackRedeliversThenDeadLetters", testNackRedelivers},
		{"DeadLetterAtOnce", testDeadLetterAtOnce},
		{"PanicRedelivers", testPanicRedelivers},
		{"PanicThenDeadLetters", testPanicDeadLetters},
		{"ReleaseCostsNoAttempt", testReleaseCostsNoAttempt},
		{"Unroutable", testUnroutable},
		{"CompetingConsumers", testCompetingConsumers},
		{"CancelledConsumerLosesNothing", testCancelledConsumerLosesNothing},
		{"ClosedConnectionLosesNothing", testClosedConnectionLosesNothing},
		{"LostDeliveryComesBackOnce", testLostDeliveryComesBackOnce},
		{"CloseUnblocksConsumers", testCloseUnblocks},
		{"ConcurrencyBound", testConcurrency},
		{"OrderedPerCorrelation", testOrderedPerCorrelation},
		{"DeclareIdempotent", testDeclareIdempotent},
		{"DeclareKindMismatch", testDeclareMismatch},
		{"DeclareExpiryMismatch", testDeclareExpiryMismatch},
		{"DeclareInvalidSpec", testDeclareInvalid},
		{"ConsumeUndeclaredQueue", testConsumeNoQueue},
		{"InstanceQueueGoesWithConnection", testInstanceQueue},
		{"PublishDoneContext", testPublishDoneContext},
	}
	t.Run("bustest", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				tc.run(t, newEnv(t))
			})
		}
	})
}
