// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"fmt"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// QueueKind decides a queue's arguments; transports map it to their own.
type QueueKind int

const (
	// KindTask is agent.task.<Name>: durable, dead-lettered, priority-ordered.
	KindTask QueueKind = iota + 1
	// KindResponse is agent.response.<Name>: durable, dead-lettered, shared by the caller's replicas.
	KindResponse
	// KindInstance is a per-process queue: exclusive, auto-deleted with its connection.
	KindInstance
	// KindDead is the dead-letter queue.
	KindDead
)

// String names the kind.
func (k QueueKind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindResponse:
		return "response"
	case KindInstance:
		return "instance"
	case KindDead:
		return "dead"
	}
	return fmt.Sprintf("QueueKind(%d)", int(k))
}

// QueueSpec describes a queue and the routing keys bound to it.
type QueueSpec struct {
	Name     string
	Kind     QueueKind
	Bindings []string
	// Expires, when positive, makes a response queue transient: RabbitMQ
	// deletes it, with its messages, once it has had no consumer (and no
	// declare) for this long (the x-expires argument, whole milliseconds).
	// Unlike an exclusive queue it survives a reconnection. Zero means the
	// queue stays until deleted. Only KindResponse queues may expire; a queue
	// declared again with another Expires is a topology mismatch. The
	// embedded bus (bus/inproc) checks the value but never deletes the
	// queue: its queues end with the process anyway.
	Expires time.Duration
}

// MaxPriority is the highest message priority task queues honour.
const MaxPriority = 9

// TaskQueue is the one spec of agent's task queue, used by the agent at start,
// by the invoker before it first publishes to agent, and by topology apply.
func TaskQueue(agent string) (QueueSpec, error) {
	key, err := a2a.TaskRoutingKey(agent)
	if err != nil {
		return QueueSpec{}, err
	}
	return QueueSpec{Name: key, Kind: KindTask, Bindings: []string{key}}, nil
}

// ResponseQueue is the one spec of caller's response queue.
func ResponseQueue(caller string) (QueueSpec, error) {
	key, err := a2a.ResponseRoutingKey(caller)
	if err != nil {
		return QueueSpec{}, err
	}
	return QueueSpec{Name: key, Kind: KindResponse, Bindings: []string{key}}, nil
}

// InstanceQueue is the spec of one process's exclusive queue bound to keys.
func InstanceQueue(owner, instanceID string, keys ...string) (QueueSpec, error) {
	name, err := a2a.InstanceQueue(owner, instanceID)
	if err != nil {
		return QueueSpec{}, err
	}
	return QueueSpec{Name: name, Kind: KindInstance, Bindings: keys}, nil
}

// DeadQueue is the spec of exchange's dead-letter queue; transports bind it
// to a2a.DeadLetterExchange(exchange) and declare it on connect.
func DeadQueue(exchange string) QueueSpec {
	return QueueSpec{Name: a2a.DeadLetterQueue(exchange), Kind: KindDead, Bindings: []string{"#"}}
}

// Validate checks the spec has a name, a known kind and bindings where needed.
func (s QueueSpec) Validate() error {
	if s.Name == "" {
		return fmt.Errorf("%w: queue spec has no name", ErrInvalidMessage)
	}
	if s.Kind < KindTask || s.Kind > KindDead {
		return fmt.Errorf("%w: queue %q has unknown kind %d", ErrInvalidMessage, s.Name, int(s.Kind))
	}
	switch {
	case s.Expires < 0 || (s.Expires > 0 && s.Expires < time.Millisecond):
		return fmt.Errorf("%w: queue %q: Expires %s is neither zero nor at least a millisecond", ErrInvalidMessage, s.Name, s.Expires)
	case s.Expires > 0 && s.Kind != KindResponse:
		return fmt.Errorf("%w: queue %q: only response queues may expire, not a %s queue", ErrInvalidMessage, s.Name, s.Kind)
	}
	return nil
}
