// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import "fmt"

// Kind is the type of a bus message, carried in the AMQP "type" property.
type Kind string

// The message kinds.
const (
	KindTaskRequest    Kind = "task.request"
	KindTaskStatus     Kind = "task.status"
	KindTaskResult     Kind = "task.result"
	KindTaskError      Kind = "task.error"
	KindTaskCancel     Kind = "task.cancel"
	KindAgentCard      Kind = "agent.card"
	KindDiscoveryQuery Kind = "discovery.query"
)

// Kinds lists every known kind.
var Kinds = []Kind{KindTaskRequest, KindTaskStatus, KindTaskResult, KindTaskError, KindTaskCancel, KindAgentCard, KindDiscoveryQuery}

// ParseKind returns the kind named s, or an error wrapping ErrUnknownKind.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownKind, s)
}

// Priority is a task's priority; it maps onto the AMQP message priority.
type Priority string

// The priorities; the empty priority means PriorityNormal.
const (
	PriorityHigh   Priority = "high"
	PriorityNormal Priority = "normal"
	PriorityLow    Priority = "low"
)

// AMQP priorities of the three levels (task queues honour 0..9).
const (
	amqpHigh   uint8 = 9
	amqpNormal uint8 = 5
	amqpLow    uint8 = 1
)

// ParsePriority returns the priority named s ("" is normal) or an error wrapping ErrInvalidField.
func ParsePriority(s string) (Priority, error) {
	switch Priority(s) {
	case PriorityHigh, PriorityNormal, PriorityLow:
		return Priority(s), nil
	case "":
		return PriorityNormal, nil
	}
	return "", fmt.Errorf("%w: priority must be high, normal or low, got %q", ErrInvalidField, s)
}

// AMQP returns the AMQP message priority of p.
func (p Priority) AMQP() uint8 {
	switch p {
	case PriorityHigh:
		return amqpHigh
	case PriorityLow:
		return amqpLow
	}
	return amqpNormal
}
