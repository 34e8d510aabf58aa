package a2a

import "errors"

// Sentinel errors of the wire protocol; decode errors wrap them in *DecodeError.
var (
	// ErrInvalidName: an agent name, instance id or other identifier is malformed.
	ErrInvalidName = errors.New("a2a: invalid name")
	// ErrUnknownKind: the message type is not one of the known kinds.
	ErrUnknownKind = errors.New("a2a: unknown message kind")
	// ErrMalformed: the body is not valid JSON for its kind.
	ErrMalformed = errors.New("a2a: malformed message")
	// ErrMissingField: a required field is absent or empty.
	ErrMissingField = errors.New("a2a: missing field")
	// ErrInvalidField: a field has a value outside its domain.
	ErrInvalidField = errors.New("a2a: invalid field")
	// ErrTooLarge: the body exceeds the configured limit.
	ErrTooLarge = errors.New("a2a: message too large")
)
