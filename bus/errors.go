package bus

import "errors"

// Sentinel errors every transport returns (wrapped with what was being done).
var (
	// ErrClosed: the bus was closed.
	ErrClosed = errors.New("bus: closed")
	// ErrUnroutable: no queue is bound for the message's routing key.
	ErrUnroutable = errors.New("bus: unroutable")
	// ErrNotConfirmed: the broker nacked the publish or the connection was lost before its confirm.
	ErrNotConfirmed = errors.New("bus: publish not confirmed")
	// ErrTopologyMismatch: a queue exists with other arguments than the ones asked for.
	ErrTopologyMismatch = errors.New("bus: topology mismatch")
	// ErrNoQueue: the queue to consume does not exist.
	ErrNoQueue = errors.New("bus: no such queue")
	// ErrAlreadySettled: a delivery was acked or nacked twice.
	ErrAlreadySettled = errors.New("bus: delivery already settled")
	// ErrInvalidMessage: a message or spec is missing something it needs.
	ErrInvalidMessage = errors.New("bus: invalid message")
)
